#include "passtiming/engine/phase.h"

#include <fmt/format.h>

#include <algorithm>

namespace passtiming {
namespace {

/// The children of each phase, in index order (which is start order for a
/// recorded profile), and the roots.
struct PhaseChildren {
  std::vector<std::vector<PhaseIndex>> of;
  std::vector<PhaseIndex> roots;
};

PhaseChildren children_of(const std::vector<Phase>& phases) {
  PhaseChildren tree;
  tree.of.resize(phases.size());
  for (PhaseIndex i = 0; i < phases.size(); ++i) {
    const PhaseIndex parent = phases[i].parent;
    if (parent < i) {
      tree.of[parent].push_back(i);
    } else {
      tree.roots.push_back(i);  // a root, or a parent index that is not earlier
    }
  }
  return tree;
}

struct TableBuilder {
  const std::vector<Phase>& phases;
  const PhaseChildren& tree;
  std::uint32_t max_depth;
  Nanoseconds root_ns = 0;
  std::vector<PhaseRow> rows;

  double share(Nanoseconds ns) const {
    return root_ns > 0 ? static_cast<double>(ns) / static_cast<double>(root_ns) : 0.0;
  }

  /// Rows for `group` (siblings of one name), then for all their children
  /// taken together, depth first.
  void add_group(const std::vector<PhaseIndex>& group, std::uint32_t depth) {
    PhaseRow row;
    const Phase& first = phases[group.front()];
    row.name = first.name;
    row.detail = group.size() == 1 ? first.detail : std::string();
    row.depth = depth;
    row.count = group.size();
    for (PhaseIndex i : group) {
      row.duration_ns += phases[i].duration_ns;
      row.failed = row.failed || phases[i].failed();
    }
    row.share = share(row.duration_ns);
    rows.push_back(std::move(row));
    if (depth + 1 > max_depth) return;
    std::vector<PhaseIndex> children;
    for (PhaseIndex i : group) {
      children.insert(children.end(), tree.of[i].begin(), tree.of[i].end());
    }
    if (children.empty()) return;
    // Children of every phase of the group, grouped by name at the place of
    // each name's first phase.
    std::vector<std::vector<PhaseIndex>> groups;
    for (PhaseIndex child : children) {
      auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
        return phases[g.front()].name == phases[child].name;
      });
      if (same == groups.end()) {
        groups.push_back({child});
      } else {
        same->push_back(child);
      }
    }
    const Nanoseconds parent_ns = rows.back().duration_ns;
    Nanoseconds covered = 0;
    for (PhaseIndex child : children) covered += phases[child].duration_ns;
    for (const auto& g : groups) add_group(g, depth + 1);
    if (covered < parent_ns) {
      PhaseRow untimed;
      untimed.name = "untimed";
      untimed.depth = depth + 1;
      untimed.duration_ns = parent_ns - covered;
      untimed.share = share(untimed.duration_ns);
      untimed.untimed = true;
      rows.push_back(std::move(untimed));
    }
  }
};

}  // namespace

std::vector<PhaseRow> phase_table(const std::vector<Phase>& phases, std::uint32_t max_depth) {
  const PhaseChildren tree = children_of(phases);
  TableBuilder builder{phases, tree, max_depth};
  for (PhaseIndex root : tree.roots) {
    builder.root_ns = phases[root].duration_ns;
    builder.add_group({root}, 0);
  }
  return std::move(builder.rows);
}

PhaseIndex innermost_phase(const std::vector<Phase>& phases, PhaseIndex within, Nanoseconds at) {
  if (within >= phases.size()) return kNoPhase;
  auto holds = [&](PhaseIndex i) { return phases[i].start_ns <= at && at <= phases[i].end_ns(); };
  if (!holds(within)) return kNoPhase;
  // Descendants come after their ancestors, so one forward walk finds the
  // deepest: a phase whose parent is the best so far and that holds `at`.
  PhaseIndex best = within;
  for (PhaseIndex i = within + 1; i < phases.size(); ++i) {
    if (phases[i].parent == best && holds(i)) best = i;
  }
  return best;
}

std::string check_phase_tree(const std::vector<Phase>& phases) {
  for (PhaseIndex i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    if (p.duration_ns < 0) {
      return fmt::format("phase {} ('{}') has a negative duration", i, p.name);
    }
    if (p.parent == kNoPhase) continue;
    if (p.parent >= i) {
      return fmt::format("phase {} ('{}') has parent {}, which is not an earlier phase", i, p.name,
                         p.parent);
    }
    const Phase& parent = phases[p.parent];
    if (p.start_ns < parent.start_ns || p.end_ns() > parent.end_ns()) {
      return fmt::format("phase {} ('{}') does not lie within its parent {} ('{}')", i, p.name,
                         p.parent, parent.name);
    }
  }
  return {};
}

}  // namespace passtiming
