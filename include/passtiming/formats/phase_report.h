#pragma once
/// \file
/// The phase table: where a compile's time went, phase by phase, printed
/// beside the passes' report (never inside it: that one stays the seed's).

#include <string>
#include <vector>

#include "passtiming/engine/phase.h"

namespace passtiming {

/// `phases` (a profile's) as a table (docs/report-format.md#phases): one
/// line a row of phase_table(), indented by depth, with its time in seconds,
/// its share of its root and how many phases it stands for; "untimed" rows
/// give the time of a phase that none of its children covers. "" when there
/// are no phases.
///
///     Phases
///     Phase                                     Time (s)   Share  Count
///     compile  lvm.c                              0.5768  100.0%      1
///       front end                                 0.1167   20.2%      2
///       ...
std::string render_phase_table(const std::vector<Phase>& phases);

}  // namespace passtiming
