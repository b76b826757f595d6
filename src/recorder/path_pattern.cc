#include "passtiming/recorder/path_pattern.h"

#include <unistd.h>

#include <atomic>
#include <string>

namespace passtiming {

std::string expand_placeholders(std::string_view pattern,
                                std::initializer_list<Placeholder> placeholders,
                                bool keep_escaped_percent) {
  std::string out;
  out.reserve(pattern.size() + 16);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char letter = pattern[i + 1];
      if (letter == '%') {
        out += keep_escaped_percent ? "%%" : "%";
        ++i;
        continue;
      }
      const Placeholder* match = nullptr;
      for (const Placeholder& p : placeholders) {
        if (p.letter == letter) match = &p;
      }
      if (match != nullptr) {
        out += match->value;
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

std::string expand_path_pattern(std::string_view pattern, long pid, unsigned long compile) {
  return expand_placeholders(pattern, {{'p', std::to_string(pid)}, {'n', std::to_string(compile)}});
}

unsigned long next_compile_number() noexcept {
  static std::atomic<unsigned long> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace passtiming
