#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "passtiming/formats/report.h"

namespace passtiming {
namespace {

/// One column of the table: its heading and the cell of a record's metrics.
struct MetricColumn {
  std::string_view heading;
  std::size_t width;
  std::string (*cell)(const Record&, const RecordMetrics&);
};

std::string seconds_cell(std::int64_t ns) {
  if (ns == kNotMeasured) return "-";
  return fmt::format("{:.4f}s", to_seconds(ns));
}
std::string mebibytes_cell(std::int64_t bytes) {
  if (bytes == kNotMeasured) return "-";
  return fmt::format("{:.1f}M", static_cast<double>(bytes) / (1024.0 * 1024.0));
}
std::string count_cell(std::int64_t n) {
  return n == kNotMeasured ? "-" : fmt::format("{}", n);
}

std::vector<MetricColumn> columns_for(MetricSet recorded) {
  std::vector<MetricColumn> columns;
  if (recorded.contains(Metric::cpu)) {
    columns.push_back({"CPU Incl", 10, [](const Record&, const RecordMetrics& m) {
                         return seconds_cell(m.cpu_ns);
                       }});
    columns.push_back({"CPU Self", 10, [](const Record&, const RecordMetrics& m) {
                         return seconds_cell(m.cpu_self_ns);
                       }});
    // CPU time over wall time: a pass well under 100% waited or was
    // descheduled; one over 100% ran threads of its own.
    columns.push_back({"CPU/Wall", 8, [](const Record& r, const RecordMetrics& m) {
                         if (m.cpu_ns == kNotMeasured || r.inclusive_ns <= 0) {
                           return std::string("-");
                         }
                         return fmt::format("{:.1f}%", 100.0 * static_cast<double>(m.cpu_ns) /
                                                           static_cast<double>(r.inclusive_ns));
                       }});
  }
  if (recorded.contains(Metric::rss)) {
    columns.push_back({"RSS Start", 10, [](const Record&, const RecordMetrics& m) {
                         return mebibytes_cell(m.rss_start_bytes);
                       }});
    columns.push_back({"RSS End", 10, [](const Record&, const RecordMetrics& m) {
                         return mebibytes_cell(m.rss_end_bytes);
                       }});
    columns.push_back({"RSS Peak", 10, [](const Record&, const RecordMetrics& m) {
                         return mebibytes_cell(m.rss_peak_bytes);
                       }});
  }
  if (recorded.contains(Metric::ir)) {
    columns.push_back({"IR Before", 10, [](const Record&, const RecordMetrics& m) {
                         return count_cell(m.ir_before);
                       }});
    columns.push_back({"IR After", 10, [](const Record&, const RecordMetrics& m) {
                         return count_cell(m.ir_after);
                       }});
    columns.push_back({"Changed", 7, [](const Record&, const RecordMetrics& m) {
                         if (!(m.ir_flags & kIrChangeKnown)) return std::string("-");
                         return std::string(m.ir_flags & kIrChanged ? "yes" : "no");
                       }});
  }
  if (recorded.contains(Metric::instructions)) {
    columns.push_back({"Instr Incl", 14, [](const Record&, const RecordMetrics& m) {
                         return count_cell(m.instructions);
                       }});
    columns.push_back({"Instr Self", 14, [](const Record&, const RecordMetrics& m) {
                         return count_cell(m.instructions_self);
                       }});
  }
  return columns;
}

/// `name` or `name(kernel)`, as the seed report shows a record.
std::string display(const Section& s, const Record& r) {
  std::string text = escape_for_terminal(s.name_of(r));
  if (r.kernel != 0) text += "(" + escape_for_terminal(s.kernel_of(r)) + ")";
  return text;
}

}  // namespace

std::string render_metrics_table(const Section& section, const ProfileMetrics& metrics,
                                 double threshold_ms) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::vector<MetricColumn> columns = columns_for(metrics.recorded);
  const bool with_values = section.metrics.size() == section.records.size();
  const double threshold_s = threshold_ms / 1000.0;
  const std::vector<std::uint32_t> order = section.order_by_sequence();

  std::size_t width = 43;
  for (std::uint32_t i : order) {
    const Record& r = section.records[i];
    if (to_seconds(r.inclusive_ns) < threshold_s) continue;
    width = std::max(width, 2 * std::size_t{r.depth} + display(section, r).size());
  }
  std::size_t rule = width + 5;
  for (const MetricColumn& c : columns) rule += c.width + 1;

  fmt::format_to(it, "{}\nPass Metrics: {}\n", std::string(rule, '='),
                 metrics.recorded.empty() ? "none recorded" : format_metrics(metrics.recorded));
  for (const UnavailableMetric& u : metrics.unavailable) {
    fmt::format_to(it, "({} unavailable: {})\n", metric_name(u.metric), u.reason);
  }
  fmt::format_to(it, "{}\n{:>3}  {:<{}}", std::string(rule, '-'), "#", "Pass Name", width);
  for (const MetricColumn& c : columns) fmt::format_to(it, " {:>{}}", c.heading, c.width);
  fmt::format_to(it, "\n{}\n", std::string(rule, '-'));
  const RecordMetrics unmeasured;
  for (std::size_t index = 0; index < order.size(); ++index) {
    const Record& r = section.records[order[index]];
    if (to_seconds(r.inclusive_ns) < threshold_s) continue;
    const std::string name = std::string(2 * std::size_t{r.depth}, ' ') + display(section, r);
    fmt::format_to(it, "{:>3}  {:<{}}", index + 1, name, width);
    const RecordMetrics& m = with_values ? section.metrics[order[index]] : unmeasured;
    for (const MetricColumn& c : columns) fmt::format_to(it, " {:>{}}", c.cell(r, m), c.width);
    out += '\n';
  }
  fmt::format_to(it, "{}", std::string(rule, '='));
  return out;
}

}  // namespace passtiming
