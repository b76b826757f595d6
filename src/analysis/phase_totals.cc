#include "passtiming/analysis/phase_totals.h"

#include <algorithm>

namespace passtiming {

std::size_t PhaseTotals::child(std::size_t parent, const std::string& name) {
  std::vector<std::size_t>& siblings = parent == nodes_.size() ? roots_ : nodes_[parent].children;
  for (std::size_t i : siblings) {
    if (nodes_[i].name == name) return i;
  }
  Node node;
  node.name = name;
  node.depth = parent == nodes_.size() ? 0 : nodes_[parent].depth + 1;
  const std::size_t index = nodes_.size();
  // `siblings` may be a node of nodes_: find it again after the push.
  const bool root = parent == nodes_.size();
  nodes_.push_back(std::move(node));
  (root ? roots_ : nodes_[parent].children).push_back(index);
  return index;
}

void PhaseTotals::add(const Profile& profile) {
  ++profiles_;
  const std::vector<Phase>& phases = profile.phases;
  if (phases.empty()) return;
  ++with_phases_;
  // Each phase's node; a parent comes before its children (phase.h), so one
  // forward walk builds the paths.
  std::vector<std::size_t> node_of(phases.size(), SIZE_MAX);
  for (PhaseIndex i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    const bool root = p.parent >= i;
    if (root) root_ns_ += p.duration_ns;
    if (!root && node_of[p.parent] == SIZE_MAX) continue;  // below the depth shown
    const std::size_t parent = root ? nodes_.size() : node_of[p.parent];
    if (!root && nodes_[parent].depth + 1 > max_depth_) continue;
    const std::size_t node = child(parent, p.name);
    node_of[i] = node;
    nodes_[node].total_ns += p.duration_ns;
    nodes_[node].count += 1;
    nodes_[node].failed = nodes_[node].failed || p.failed();
  }
}

void PhaseTotals::emit(std::size_t index, const std::string& prefix,
                       std::vector<PhaseTotal>& out) const {
  const Node& node = nodes_[index];
  PhaseTotal row;
  row.path = prefix.empty() ? node.name : prefix + kPhasePathSeparator + node.name;
  row.name = node.name;
  row.depth = node.depth;
  row.total_ns = node.total_ns;
  row.count = node.count;
  row.share =
      root_ns_ > 0 ? static_cast<double>(node.total_ns) / static_cast<double>(root_ns_) : 0.0;
  row.failed = node.failed;
  const std::string path = row.path;
  out.push_back(std::move(row));
  Nanoseconds covered = 0;
  for (std::size_t c : node.children) {
    covered += nodes_[c].total_ns;
    emit(c, path, out);
  }
  // After the children, as in phase_table(): the time of the path's phases
  // that none of their children covers, taken together.
  if (!node.children.empty() && covered < node.total_ns) {
    PhaseTotal untimed;
    untimed.path = path + kPhasePathSeparator + kUntimedPhaseName;
    untimed.name = kUntimedPhaseName;
    untimed.depth = node.depth + 1;
    untimed.total_ns = node.total_ns - covered;
    untimed.share =
        root_ns_ > 0 ? static_cast<double>(untimed.total_ns) / static_cast<double>(root_ns_) : 0.0;
    untimed.untimed = true;
    out.push_back(std::move(untimed));
  }
}

std::vector<PhaseTotal> PhaseTotals::rows() const {
  std::vector<PhaseTotal> out;
  for (std::size_t root : roots_) emit(root, {}, out);
  return out;
}

std::unordered_map<std::string, GroupTotals> phase_totals_by_path(const Profile& profile) {
  std::unordered_map<std::string, GroupTotals> out;
  if (profile.phases.empty()) return out;
  PhaseTotals totals;
  totals.add(profile);
  for (const PhaseTotal& row : totals.rows()) {
    out[row.path] = GroupTotals{row.total_ns, row.count};
  }
  return out;
}

std::string phase_path(const std::vector<Phase>& phases, PhaseIndex index) {
  std::vector<PhaseIndex> chain;
  for (PhaseIndex i = index; i < phases.size() && chain.size() <= phases.size();
       i = phases[i].parent) {
    chain.push_back(i);
    if (phases[i].parent >= i) break;
  }
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!path.empty()) path += kPhasePathSeparator;
    path += phases[*it].name;
  }
  return path;
}

}  // namespace passtiming
