#include "passtiming/engine/kernel_label.h"

#include <unordered_set>

namespace passtiming {

std::string kernel_label(const std::vector<std::string_view>& symbols) noexcept {
  try {
    if (symbols.empty()) return {};
    std::size_t distinct_others = 0;
    if (symbols.size() <= 16) {
      // The common case (a handful of functions): a quadratic scan beats
      // building a hash set.
      for (std::size_t i = 1; i < symbols.size(); ++i) {
        bool repeated = symbols[i] == symbols[0];
        for (std::size_t j = 1; j < i && !repeated; ++j) repeated = symbols[j] == symbols[i];
        distinct_others += !repeated;
      }
    } else {
      std::unordered_set<std::string_view> seen(symbols.begin(), symbols.end());
      distinct_others = seen.size() - 1;
    }
    std::string label(symbols[0]);
    if (distinct_others > 0) label += " +" + std::to_string(distinct_others) + " more";
    return label;
  } catch (...) {
    return {};
  }
}

}  // namespace passtiming
