#pragma once
/// \file
/// A measure: the one figure per pass execution that a summary ranks passes
/// by and the regression gate compares, either wall time or a figure of a
/// recorded metric (metrics.h).

#include <optional>
#include <string_view>

#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

/// A per-record figure.
enum class Measure {
  wall,          ///< self: Record::self_ns; inclusive: Record::inclusive_ns
  cpu,           ///< self: RecordMetrics::cpu_self_ns; inclusive: cpu_ns
  instructions,  ///< self: instructions_self; inclusive: instructions
  rss,           ///< rss_end_bytes − rss_start_bytes (self and inclusive alike)
  ir,            ///< ir_after − ir_before (self and inclusive alike)
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

/// The self figure of record `index` of `section`; nullopt when its metric
/// was not measured for that record.
std::optional<double> record_measure(const Section& section, std::size_t index, Measure measure);
/// The inclusive figure of record `index` (see Measure); nullopt likewise.
std::optional<double> record_measure_inclusive(const Section& section, std::size_t index,
                                               Measure measure);

}  // namespace passtiming
