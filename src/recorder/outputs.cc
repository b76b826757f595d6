#include "passtiming/outputs.h"

#include <unistd.h>

#include <atomic>
#include <string>

namespace passtiming {

std::string expand_path_pattern(std::string_view pattern, long pid, unsigned long compile) {
  std::string out;
  out.reserve(pattern.size() + 16);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'p') {
        out += std::to_string(pid);
        ++i;
        continue;
      }
      if (pattern[i + 1] == 'n') {
        out += std::to_string(compile);
        ++i;
        continue;
      }
      if (pattern[i + 1] == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

unsigned long next_compile_number() noexcept {
  static std::atomic<unsigned long> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

OutputSettings OutputSettings::from_environment(const Environment& env, unsigned long compile) {
  auto read = [&](std::string_view name) -> std::optional<std::string> {
    std::optional<std::string> value = env.get(name);
    if (!value || value->empty()) return std::nullopt;
    return expand_path_pattern(*value, static_cast<long>(::getpid()), compile);
  };
  OutputSettings settings;
  settings.profile_path = read(kProfileSetting.environment);
  settings.events_path = read(kEventsSetting.environment);
  if (std::optional<std::string> metrics = env.get(kMetricsSetting.environment)) {
    settings.metrics = parse_metrics(*metrics, kMetricsSetting.environment);
  }
  return settings;
}

}  // namespace passtiming
