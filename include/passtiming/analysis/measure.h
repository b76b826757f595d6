#pragma once
/// \file
/// A measure: the one figure per pass execution that a summary ranks passes
/// by and the regression gate compares, either wall time or a figure of a
/// recorded metric (metrics.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

/// A per-record figure.
enum class Measure {
  wall,          ///< self: Record::self_ns; inclusive: Record::inclusive_ns
  cpu,           ///< self: RecordMetrics::cpu_self_ns; inclusive: cpu_ns
  instructions,  ///< self: instructions_self; inclusive: instructions
  /// A change (is_change_measure()): inclusive: rss_end_bytes −
  /// rss_start_bytes; self: section_self_measures().
  rss,
  /// A change: inclusive: ir_after − ir_before; self: section_self_measures().
  ir,
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

/// What to do about a profile whose `metrics` lack what `measure` needs,
/// for the end of an error message. When the metric was asked for but the
/// machine could not measure it (ProfileMetrics::unavailable), says so, with
/// the system's reason and, for instructions, how to make the counter work
/// (a machine where a PASSTIMING_METRICS setting would change nothing);
/// otherwise: "record it with PASSTIMING_METRICS=NAME".
std::string missing_measure_advice(const ProfileMetrics& metrics, Measure measure);

/// Whether `measure` is the change of a level between a pass's begin and
/// its end (rss, ir): signed (a pass may shrink the IR or free memory), and
/// a nested pass's change is part of its parent's.
bool is_change_measure(Measure measure);

/// The record's own figure of record `index` of `section`; nullopt when its
/// metric was not measured for that record. For wall, cpu and instructions,
/// its self figure; for a change measure, its whole change, that of the
/// passes nested in it included (section_self_measures() takes it out).
std::optional<double> record_measure(const Section& section, std::size_t index, Measure measure);

/// The self figure of every record of `section`, at its index; nullopt where
/// not measured. For wall, cpu and instructions, record_measure(). For a
/// change measure, the record's change less the changes of the records
/// directly nested in it (a nested record whose change was not measured
/// stays in its parent's self): what the pass itself changed, outside its
/// nested passes. A section's self figures then sum to the changes of its
/// outermost measured records, without counting a nested change twice.
std::vector<std::optional<double>> section_self_measures(const Section& section, Measure measure);
/// The inclusive figure of record `index` (see Measure); nullopt likewise.
std::optional<double> record_measure_inclusive(const Section& section, std::size_t index,
                                               Measure measure);

}  // namespace passtiming
