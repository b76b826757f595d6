#pragma once
/// \file
/// The members that carry metrics in the files, once: the members of a JSON
/// profile record (its writer and readers are all driven by these tables)
/// and of an event-log event (its writer and replay), so a metric's key, its
/// place in the line and its meaning cannot drift apart.

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"
#include "text_writing.h"

namespace passtiming::detail {

/// A number of a record's metrics: written when measured, in table order.
struct MetricNumberField {
  std::string_view key;
  Metric metric;
  std::int64_t RecordMetrics::* member;
};
inline constexpr MetricNumberField kMetricNumberFields[] = {
    {"cpu_ns", Metric::cpu, &RecordMetrics::cpu_ns},
    {"cpu_self_ns", Metric::cpu, &RecordMetrics::cpu_self_ns},
    {"rss_start_bytes", Metric::rss, &RecordMetrics::rss_start_bytes},
    {"rss_end_bytes", Metric::rss, &RecordMetrics::rss_end_bytes},
    {"rss_peak_bytes", Metric::rss, &RecordMetrics::rss_peak_bytes},
    {"ir_before", Metric::ir, &RecordMetrics::ir_before},
    {"ir_after", Metric::ir, &RecordMetrics::ir_after},
    {"instructions", Metric::instructions, &RecordMetrics::instructions},
    {"instructions_self", Metric::instructions, &RecordMetrics::instructions_self},
};

/// A yes/no of a record's IR: written when `known` is set in ir_flags, as
/// whether `value` is.
struct MetricFlagField {
  std::string_view key;
  std::uint8_t known;
  std::uint8_t value;
};
inline constexpr MetricFlagField kMetricFlagFields[] = {
    {"ir_changed", kIrChangeKnown, kIrChanged},
    {"ir_preserved_all", kIrPreservedKnown, kIrPreservedAll},
};

/// A reading of an event-log event (docs/event-log-format.md): written when
/// measured, in table order, after the event's other members.
struct SampleNumberField {
  std::string_view key;
  std::int64_t MetricSample::* member;
};
inline constexpr SampleNumberField kSampleNumberFields[] = {
    {"cpu_ns", &MetricSample::cpu_ns},
    {"rss_bytes", &MetricSample::rss_bytes},
    {"rss_peak_bytes", &MetricSample::rss_peak_bytes},
    {"instructions", &MetricSample::instructions},
    {"ir_size", &MetricSample::ir_size},
};
/// The yes/no members of an after-event are the records': kMetricFlagFields.

/// The number field named `key`, or null.
inline const MetricNumberField* find_metric_number(std::string_view key) {
  for (const MetricNumberField& f : kMetricNumberFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}
inline const MetricFlagField* find_metric_flag(std::string_view key) {
  for (const MetricFlagField& f : kMetricFlagFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

/// After a section's records are read: one RecordMetrics per record when any
/// record had one, and every metric with a measured value in `recorded`.
void finish_section_metrics(Section& section, MetricSet& recorded);

/// The metric named `name`; false for an unknown name.
bool metric_from_name(std::string_view name, Metric& out);

/// Writes `,"KEY":VALUE` at `p` for each field of `fields` measured in
/// `object` (a RecordMetrics or a MetricSample), then `,"KEY":true|false`
/// for each flag of kMetricFlagFields known in `flags`; returns the end. At
/// most kMetricMembersBytes are written.
template <typename Object, typename Field, std::size_t N>
char* put_metric_members(char* p, const Object& object, const Field (&fields)[N],
                         std::uint8_t flags) noexcept {
  for (const Field& f : fields) {
    const std::int64_t value = object.*f.member;
    if (value == kNotMeasured) continue;
    p = put(p, ",\"");
    p = put(p, f.key);
    p = put(p, "\":");
    p = put_int(p, value);
  }
  for (const MetricFlagField& f : kMetricFlagFields) {
    if (!(flags & f.known)) continue;
    p = put(p, ",\"");
    p = put(p, f.key);
    p = put(p, (flags & f.value) ? "\":true" : "\":false");
  }
  return p;
}
/// Room for put_metric_members(): nine numbers with their keys, two flags.
inline constexpr std::size_t kMetricMembersBytes = 9 * (24 + kMaxIntChars) + 2 * 28;

/// Appends the record's measured metric members, each as `,"KEY":VALUE`, in
/// the order the profile writes them (the Chrome trace's args, the HTML
/// report's data).
void append_record_metrics(std::string& out, const RecordMetrics& metrics);

/// Appends `"recorded":[...],"unavailable":{NAME:REASON,...}`, the lists of
/// the `metrics` member of a profile (version 2), of an event log's meta line
/// and of the HTML report's data, with strings quoted by `append_string`.
void append_metrics_lists(std::string& out, const ProfileMetrics& metrics,
                          void (*append_string)(std::string&, std::string_view));

/// Appends `"metrics":{` + append_metrics_lists() + `}` with JSON strings.
void append_metrics_member(std::string& out, const ProfileMetrics& metrics);

/// Reads the value of that member into `metrics` (adding to it); false when
/// it breaks the member's rules.
bool read_metrics_member(simdjson::dom::element value, ProfileMetrics& metrics);

}  // namespace passtiming::detail
