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

/// Per group, each execution's `measure` in `profile` (what
/// measure_by_group() sums), by a name that is the same for the same
/// execution in every run of the same compile: the section's position (not
/// its context, which names the output file too), the pass, the IR unit,
/// and how many executions of that pass on that unit came before it in the
/// section, joined by U+001F. The matched
/// statistic of the gate (matched_statistic.h) matches executions by it. A
/// record whose metric was not measured counts 0. With `starts`, also each
/// execution's start by the same names (its record's start_ns, the clock
/// of the profile): where in the run it ran, for the speed of the moment
/// (run_speed.h's RunStarts), named in the same walk.
std::unordered_map<std::string, std::unordered_map<std::string, double>> measure_by_execution(
    const Profile& profile, GroupBy by, Measure measure,
    std::unordered_map<std::string, double>* starts = nullptr);

}  // namespace passtiming
