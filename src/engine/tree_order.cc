#include "engine/tree_order.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace passtiming::detail {

void renumber_in_tree_order(Section& section) {
  std::vector<Record>& records = section.records;
  std::unordered_map<std::uint32_t, std::uint32_t> index_of;  // old sequence -> record index
  index_of.reserve(records.size());
  for (std::uint32_t i = 0; i < records.size(); ++i) index_of.emplace(records[i].sequence, i);

  constexpr std::uint32_t kRoot = ~std::uint32_t{0};
  auto parent_index = [&](const Record& r) {
    if (r.parent == kNoParent) return kRoot;
    auto it = index_of.find(r.parent);
    return it == index_of.end() ? kRoot : it->second;
  };
  auto starts_before = [&](std::uint32_t a, std::uint32_t b) {
    if (records[a].start_ns != records[b].start_ns)
      return records[a].start_ns < records[b].start_ns;
    return records[a].sequence < records[b].sequence;
  };

  std::vector<std::uint32_t> roots;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> children;
  for (std::uint32_t i = 0; i < records.size(); ++i) {
    const std::uint32_t parent = parent_index(records[i]);
    (parent == kRoot ? roots : children[parent]).push_back(i);
  }
  // Roots and siblings in the order they started; the old sequence breaks
  // ties, so passes of one thread never swap.
  std::sort(roots.begin(), roots.end(), starts_before);
  for (auto& [parent, list] : children) std::sort(list.begin(), list.end(), starts_before);

  std::vector<std::uint32_t> new_sequence(records.size());
  std::uint32_t next = 0;
  std::vector<std::uint32_t> pending(roots.rbegin(), roots.rend());
  while (!pending.empty()) {
    const std::uint32_t i = pending.back();
    pending.pop_back();
    new_sequence[i] = next++;
    if (auto it = children.find(i); it != children.end()) {
      pending.insert(pending.end(), it->second.rbegin(), it->second.rend());
    }
  }
  std::vector<std::uint32_t> parents(records.size());
  for (std::uint32_t i = 0; i < records.size(); ++i) {
    const std::uint32_t parent = parent_index(records[i]);
    parents[i] = parent == kRoot ? kNoParent : new_sequence[parent];
  }
  for (std::uint32_t i = 0; i < records.size(); ++i) {
    records[i].sequence = new_sequence[i];
    records[i].parent = parents[i];
  }
}

}  // namespace passtiming::detail
