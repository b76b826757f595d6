#include "passtiming/analysis/measure.h"

#include <array>
#include <cstdint>

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

}  // namespace passtiming
