#include "passtiming/gate_measure.h"

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

/// The record's value of a metric measure, or nullopt when not measured.
std::optional<double> metric_value(const RecordMetrics& m, Measure measure) {
  auto difference = [](std::int64_t before, std::int64_t after) -> std::optional<double> {
    if (before == kNotMeasured || after == kNotMeasured) return std::nullopt;
    return static_cast<double>(after) - static_cast<double>(before);
  };
  auto value = [](std::int64_t v) -> std::optional<double> {
    if (v == kNotMeasured) return std::nullopt;
    return static_cast<double>(v);
  };
  switch (measure) {
    case Measure::wall: return std::nullopt;
    case Measure::cpu: return value(m.cpu_self_ns);
    case Measure::instructions: return value(m.instructions_self);
    case Measure::rss: return difference(m.rss_start_bytes, m.rss_end_bytes);
    case Measure::ir: return difference(m.ir_before, m.ir_after);
  }
  return std::nullopt;
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

std::string describe_metrics(MetricSet set) {
  // The words of metrics.h, in Metric order.
  constexpr std::array<std::pair<Metric, std::string_view>, 4> kWords{{
      {Metric::cpu, "cpu"},
      {Metric::rss, "rss"},
      {Metric::ir, "ir"},
      {Metric::instructions, "instructions"},
  }};
  std::string text;
  for (const auto& [metric, word] : kWords) {
    if (!set.contains(metric)) continue;
    if (!text.empty()) text += ',';
    text += word;
  }
  return text.empty() ? "none" : text;
}

std::unordered_map<std::string, double> measure_by_group(const Profile& profile, GroupBy by,
                                                         Measure measure) {
  std::unordered_map<std::string, double> sums;
  for (const Section& s : profile.sections) {
    const bool has_metrics = s.metrics.size() == s.records.size();
    for (std::size_t i = 0; i < s.records.size(); ++i) {
      const Record& r = s.records[i];
      const std::string_view key = by == GroupBy::pass     ? s.name_of(r)
                                   : by == GroupBy::kernel ? s.kernel_of(r)
                                                           : std::string_view(s.context);
      double& sum = sums[std::string(key)];
      if (measure == Measure::wall) {
        sum += static_cast<double>(r.self_ns);
      } else if (has_metrics) {
        if (const std::optional<double> v = metric_value(s.metrics[i], measure)) sum += *v;
      }
    }
  }
  return sums;
}

}  // namespace passtiming
