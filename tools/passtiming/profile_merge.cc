#include "profile_merge.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace passtiming::cli {
namespace {

/// The name of the root phase a merge puts above each input's phases, with
/// the input's file as its detail (docs/cli.md#merge).
constexpr std::string_view kInputPhaseName = "input";

/// Appends `profile`'s phases to `merged`'s, and points its sections at
/// them. Unless the input was merged before (its roots are all input
/// phases already), its phases go under one new root, "input" with the
/// file as detail, spanning them: the inputs' clocks are not one clock, so
/// each input is a tree of its own, and says where it came from.
void merge_phases(Profile& profile, const std::string& file, Profile& merged) {
  const auto offset = static_cast<PhaseIndex>(merged.phases.size());
  const std::vector<Phase>& phases = profile.phases;
  const bool merged_before =
      !phases.empty() && std::all_of(phases.begin(), phases.end(), [](const Phase& p) {
        return p.parent != kNoPhase || p.name == kInputPhaseName;
      });
  const PhaseIndex shift = offset + (phases.empty() || merged_before ? 0 : 1);
  if (shift != offset) {
    Phase root;
    root.name = std::string(kInputPhaseName);
    root.detail = file;
    root.start_ns = phases.front().start_ns;
    Nanoseconds end = phases.front().end_ns();
    for (const Phase& p : phases) {
      root.start_ns = std::min(root.start_ns, p.start_ns);
      end = std::max(end, p.end_ns());
    }
    root.duration_ns = end - root.start_ns;
    merged.phases.push_back(std::move(root));
  }
  for (Phase& p : profile.phases) {
    p.parent = p.parent != kNoPhase ? p.parent + shift : shift != offset ? offset : kNoPhase;
    merged.phases.push_back(std::move(p));
  }
  for (Section& section : profile.sections) {
    if (section.phase != kNoPhase) section.phase += shift;
  }
}

}  // namespace

void merge_into(Profile& merged, Profile&& profile, const std::string& file) {
  merge_phases(profile, file, merged);
  for (Section& section : profile.sections) {
    // A section merged before keeps the origin it was given then.
    if (section.origin.empty()) section.origin = {file, profile.metadata};
    merged.sections.push_back(std::move(section));
  }
  // The metrics any input recorded, and those any input could not.
  for (Metric m : kAllMetrics) {
    if (profile.metrics.recorded.contains(m)) merged.metrics.recorded.insert(m);
  }
  for (UnavailableMetric& u : profile.metrics.unavailable) {
    const bool known =
        std::any_of(merged.metrics.unavailable.begin(), merged.metrics.unavailable.end(),
                    [&](const UnavailableMetric& seen) { return seen.metric == u.metric; });
    if (!known) merged.metrics.unavailable.push_back(std::move(u));
  }
}

}  // namespace passtiming::cli
