#pragma once
/// \file
/// Phases taken together over profiles: each phase's path of names
/// ("compile/back end/code generation") with its total time and how many
/// phases it stands for. What `summary`, `diff` and the gate read of phases.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "passtiming/analysis/aggregate.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

/// The separator of a phase path's names.
inline constexpr char kPhasePathSeparator = '/';
/// The last name of a path whose row is the time of its parent that none
/// of the parent's child phases covers (the phase table's "untimed").
inline constexpr const char* kUntimedPhaseName = "(untimed)";

/// One path's row.
struct PhaseTotal {
  std::string path;         ///< names from the root, joined by '/'
  std::string name;         ///< the path's last name
  std::uint32_t depth = 0;  ///< 0 for a root
  Nanoseconds total_ns = 0;
  /// Phases added on this path; 0 for an "(untimed)" row.
  std::uint64_t count = 0;
  /// Share of all the roots' time, 0..1.
  double share = 0.0;
  bool untimed = false;
  /// One of the phases failed.
  bool failed = false;
};

/// Adds phases of profiles up by path. Phases deeper than `max_depth` are
/// left out (their time stays in their ancestors' rows), as in the phase
/// table.
class PhaseTotals {
 public:
  explicit PhaseTotals(std::uint32_t max_depth = 3) : max_depth_(max_depth) {}

  /// Adds `profile`'s phases (none: nothing, but the profile still counts).
  void add(const Profile& profile);

  /// The rows in tree order: each root, then its children's rows depth
  /// first, siblings in the order their names first came. A path with
  /// children gets an "(untimed)" row after them when they cover less than
  /// its time: its phases' time less their children's, taken together, as
  /// phase_table() counts it for one profile.
  std::vector<PhaseTotal> rows() const;

  /// Sum of the roots' durations over every profile added.
  Nanoseconds root_ns() const { return root_ns_; }
  /// Profiles added, and those of them with phases.
  std::size_t profiles() const { return profiles_; }
  std::size_t profiles_with_phases() const { return with_phases_; }
  bool empty() const { return nodes_.empty(); }

 private:
  struct Node {
    std::string name;
    std::uint32_t depth = 0;
    Nanoseconds total_ns = 0;
    std::uint64_t count = 0;
    bool failed = false;
    std::vector<std::size_t> children;  ///< into nodes_, in first-seen order
  };
  /// The child of `parent` (nodes_.size() for the roots) named `name`,
  /// made when new.
  std::size_t child(std::size_t parent, const std::string& name);
  void emit(std::size_t node, const std::string& prefix, std::vector<PhaseTotal>& out) const;

  std::uint32_t max_depth_;
  std::vector<Node> nodes_;
  std::vector<std::size_t> roots_;
  Nanoseconds root_ns_ = 0;
  std::size_t profiles_ = 0;
  std::size_t with_phases_ = 0;
};

/// One profile's phase rows as diff's groups: each path (an "(untimed)"
/// row's too) with its time as `self_ns` and its count as `executions`.
/// Empty when the profile has no phases.
std::unordered_map<std::string, GroupTotals> phase_totals_by_path(const Profile& profile);

/// The path of names of `profile.phases[index]`, from its root.
std::string phase_path(const std::vector<Phase>& phases, PhaseIndex index);

}  // namespace passtiming
