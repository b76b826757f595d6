#pragma once
/// \file
/// What the regression gate compares: one figure per group (pass, kernel or
/// context) and profile, the sum of a measure over the group's records in
/// that profile. A group with no record in a profile is absent from its map;
/// the gate counts it as 0 in that run.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "passtiming/analysis/aggregate.h"
#include "passtiming/analysis/measure.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

/// format_metrics(`set`), or "none" when it is empty: for messages.
std::string describe_metrics(MetricSet set);

/// Per group, the sum of `measure` over the group's records in `profile`. A
/// record whose metric was not measured (kNotMeasured) adds nothing. The
/// profile must have the measure (profile_has_measure); else every group
/// sums to 0 but wall.
std::unordered_map<std::string, double> measure_by_group(const Profile& profile, GroupBy by,
                                                         Measure measure);

}  // namespace passtiming
