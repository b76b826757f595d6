#include "passtiming/profile.h"

#include <algorithm>

namespace passtiming {

std::vector<std::uint32_t> Section::order_by_sequence() const {
  std::vector<std::uint32_t> order(records.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  // Records complete in post-order, so most of the input is a few long runs;
  // a stable sort keeps equal sequences (possible only in merged input) in
  // completion order.
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
