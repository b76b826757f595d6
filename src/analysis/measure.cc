#include "passtiming/analysis/measure.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace passtiming {
namespace {

struct MeasureInfo {
  Measure measure;
  std::string_view name;
  std::string_view unit;
};

constexpr std::array<MeasureInfo, 5> kMeasures{{
    {Measure::wall, "wall", "ns"},
    {Measure::cpu, "cpu", "ns"},
    {Measure::instructions, "instructions", "instructions"},
    {Measure::rss, "rss", "bytes"},
    {Measure::ir, "ir", "IR units"},
}};

std::optional<double> value(std::int64_t v) {
  if (v == kNotMeasured) return std::nullopt;
  return static_cast<double>(v);
}

std::optional<double> difference(std::int64_t before, std::int64_t after) {
  if (before == kNotMeasured || after == kNotMeasured) return std::nullopt;
  return static_cast<double>(after) - static_cast<double>(before);
}

/// The record's metrics, or null when the section recorded none.
const RecordMetrics* metrics_of(const Section& section, std::size_t index) {
  return section.metrics.size() == section.records.size() ? &section.metrics[index] : nullptr;
}

}  // namespace

std::string_view measure_name(Measure measure) {
  return kMeasures[static_cast<std::size_t>(measure)].name;
}

std::optional<Measure> parse_measure(std::string_view text) {
  for (const MeasureInfo& info : kMeasures) {
    if (info.name == text) return info.measure;
  }
  return std::nullopt;
}

std::string_view measure_unit(Measure measure) {
  return kMeasures[static_cast<std::size_t>(measure)].unit;
}

std::optional<Metric> required_metric(Measure measure) {
  switch (measure) {
    case Measure::wall: return std::nullopt;
    case Measure::cpu: return Metric::cpu;
    case Measure::instructions: return Metric::instructions;
    case Measure::rss: return Metric::rss;
    case Measure::ir: return Metric::ir;
  }
  return std::nullopt;
}

bool profile_has_measure(const Profile& profile, Measure measure) {
  const std::optional<Metric> metric = required_metric(measure);
  return !metric || profile.metrics.recorded.contains(*metric);
}

std::string missing_measure_advice(const ProfileMetrics& metrics, Measure measure) {
  const std::optional<Metric> metric = required_metric(measure);
  if (!metric) return {};
  const std::string name(metric_name(*metric));
  for (const UnavailableMetric& u : metrics.unavailable) {
    if (u.metric != *metric) continue;
    std::string advice = "the machine that recorded it could not measure " + name + " (" +
                         u.reason + "), although it was asked to";
    if (*metric == Metric::instructions) {
      // The counter is a hardware perf event: no setting of passtiming's
      // brings it where the kernel or the hypervisor withholds it.
      advice +=
          "; record again where hardware performance counters work: allow perf events "
          "(sysctl kernel.perf_event_paranoid=2 or lower, or CAP_PERFMON) on a machine whose "
          "counters are not hidden, as most virtual machines' are";
    }
    return advice;
  }
  return "record it with PASSTIMING_METRICS=" + name;
}

bool is_change_measure(Measure measure) {
  return measure == Measure::rss || measure == Measure::ir;
}

std::optional<double> record_measure(const Section& section, std::size_t index, Measure measure) {
  if (measure == Measure::wall) return static_cast<double>(section.records[index].self_ns);
  const RecordMetrics* m = metrics_of(section, index);
  if (m == nullptr) return std::nullopt;
  switch (measure) {
    case Measure::wall: break;
    case Measure::cpu: return value(m->cpu_self_ns);
    case Measure::instructions: return value(m->instructions_self);
    case Measure::rss: return difference(m->rss_start_bytes, m->rss_end_bytes);
    case Measure::ir: return difference(m->ir_before, m->ir_after);
  }
  return std::nullopt;
}

std::optional<double> record_measure_inclusive(const Section& section, std::size_t index,
                                               Measure measure) {
  if (measure == Measure::wall) return static_cast<double>(section.records[index].inclusive_ns);
  const RecordMetrics* m = metrics_of(section, index);
  if (m == nullptr) return std::nullopt;
  switch (measure) {
    case Measure::cpu: return value(m->cpu_ns);
    case Measure::instructions: return value(m->instructions);
    default: return record_measure(section, index, measure);
  }
}

std::vector<std::optional<double>> section_self_measures(const Section& section, Measure measure) {
  const std::size_t n = section.records.size();
  std::vector<std::optional<double>> self(n);
  for (std::size_t i = 0; i < n; ++i) self[i] = record_measure(section, i, measure);
  if (!is_change_measure(measure)) return self;
  // Each measured change leaves its parent's self; parents by sequence.
  constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t max_sequence = 0;
  for (const Record& r : section.records) max_sequence = std::max(max_sequence, r.sequence);
  std::vector<std::uint32_t> by_sequence(n ? std::size_t{max_sequence} + 1 : 0, kAbsent);
  for (std::uint32_t i = 0; i < n; ++i) by_sequence[section.records[i].sequence] = i;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t parent = section.records[i].parent;
    if (parent == kNoParent || parent > max_sequence || by_sequence[parent] == kAbsent) continue;
    std::optional<double>& parent_self = self[by_sequence[parent]];
    const std::optional<double> change = record_measure(section, i, measure);
    if (parent_self && change) *parent_self -= *change;
  }
  return self;
}

}  // namespace passtiming
