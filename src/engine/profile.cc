#include "passtiming/engine/profile.h"

#include <algorithm>

namespace passtiming {

std::vector<std::uint32_t> Section::order_by_sequence() const {
  const auto n = static_cast<std::uint32_t>(records.size());
  std::vector<std::uint32_t> order;
  order.reserve(n);
  // The state machine hands out sequences 0, 1, 2, ... so they are unique and
  // dense: placing each record at its sequence sorts in linear time.
  std::uint32_t max_sequence = 0;
  for (const Record& r : records) max_sequence = std::max(max_sequence, r.sequence);
  constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  if (n > 0 && max_sequence < 4 * std::uint64_t{n}) {
    std::vector<std::uint32_t> slots(std::size_t{max_sequence} + 1, kEmpty);
    bool unique = true;
    for (std::uint32_t i = 0; i < n && unique; ++i) {
      std::uint32_t& slot = slots[records[i].sequence];
      unique = slot == kEmpty;
      slot = i;
    }
    if (unique) {
      for (std::uint32_t i : slots) {
        if (i != kEmpty) order.push_back(i);
      }
      return order;
    }
    order.clear();
  }
  // Merged or hand-made sections may repeat sequences: a stable sort keeps
  // equal ones in completion order.
  for (std::uint32_t i = 0; i < n; ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [this](std::uint32_t a, std::uint32_t b) {
    return records[a].sequence < records[b].sequence;
  });
  return order;
}

double Section::total_seconds() const {
  double total = 0.0;
  for (const Record& r : records) {
    if (r.depth == 0) total += to_seconds(r.inclusive_ns);
  }
  return total;
}

std::size_t Profile::record_count() const {
  std::size_t n = 0;
  for (const Section& s : sections) n += s.records.size();
  return n;
}

}  // namespace passtiming
