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

#include "passtiming/aggregate.h"
#include "passtiming/metrics.h"
#include "passtiming/profile.h"

namespace passtiming {

/// A per-record figure the gate can compare.
enum class Measure {
  wall,          ///< Record::self_ns (always recorded)
  cpu,           ///< RecordMetrics::cpu_self_ns (metric cpu)
  instructions,  ///< RecordMetrics::instructions_self (metric instructions)
  rss,           ///< rss_end_bytes - rss_start_bytes (metric rss)
  ir,            ///< ir_after - ir_before (metric ir)
};

/// "wall", "cpu", "instructions", "rss", "ir".
std::string_view measure_name(Measure measure);
/// The measure of a name measure_name() gives; nullopt for anything else.
std::optional<Measure> parse_measure(std::string_view text);
/// The unit of the measure's values: "ns", "instructions", "bytes", "IR units".
std::string_view measure_unit(Measure measure);
/// The metric a profile must have recorded for the measure; nullopt for wall.
std::optional<Metric> required_metric(Measure measure);
/// Whether `profile` recorded what `measure` needs.
bool profile_has_measure(const Profile& profile, Measure measure);

/// The names of the metrics in `set`, comma-separated in Metric order, or
/// "none" when it is empty: for messages.
std::string describe_metrics(MetricSet set);

/// Per group, the sum of `measure` over the group's records in `profile`. A
/// record whose metric was not measured (kNotMeasured) adds nothing. The
/// profile must have the measure (profile_has_measure); else every group
/// sums to 0 but wall.
std::unordered_map<std::string, double> measure_by_group(const Profile& profile, GroupBy by,
                                                         Measure measure);

}  // namespace passtiming
