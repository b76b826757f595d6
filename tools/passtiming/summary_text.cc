#include "summary_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "passtiming/formats/report.h"

namespace passtiming::cli {
namespace {

/// How a measure's values are printed: divided by `divisor`, in `unit`.
struct Scale {
  double divisor;
  std::string_view unit;
};

Scale scale_of(Measure measure) {
  switch (measure) {
    case Measure::wall:
    case Measure::cpu: return {1e6, "ms"};
    case Measure::instructions: return {1e6, "M instr"};
    case Measure::rss: return {1024.0 * 1024.0, "MiB"};
    case Measure::ir: return {1, "IR units"};
  }
  return {1, ""};
}

std::string display_key(std::string_view key, GroupBy by) {
  if (!key.empty()) return escape_for_terminal(key);
  return by == GroupBy::kernel    ? "<no kernel>"
         : by == GroupBy::context ? "<no context>"
                                  : "<unnamed>";
}

}  // namespace

std::string render_summary_text(const std::vector<AggregateRow>& rows, const Aggregator& agg,
                                std::size_t hidden, double threshold_ms) {
  const GroupBy by = agg.group_by();
  const Measure measure = agg.measure();
  const Scale scale = scale_of(measure);
  auto ms = [&](double value) { return value / scale.divisor; };
  std::vector<std::string> keys;
  std::size_t width = 24;
  for (const AggregateRow& row : rows) {
    keys.push_back(display_key(row.key, by));
    width = std::max(width, keys.back().size());
  }
  std::string out;
  auto it = std::back_inserter(out);
  const std::size_t rule = width + 99;
  fmt::format_to(it, "{}\nPass Timing Summary by {}", std::string(rule, '='), group_by_name(by));
  // Wall time keeps the summary's original text; another measure says so.
  if (measure != Measure::wall) fmt::format_to(it, ", measure: {}", measure_name(measure));
  fmt::format_to(it, "\n{}\n", std::string(rule, '='));
  if (measure == Measure::wall || measure == Measure::cpu) {
    fmt::format_to(it, "Profiles: {}  Total self: {:.4f}s", agg.profiles(),
                   static_cast<double>(agg.total_self_ns()) / 1e9);
  } else {
    fmt::format_to(it, "Profiles: {}  Total self: {:.3f} {}", agg.profiles(),
                   ms(static_cast<double>(agg.total_self_ns())), scale.unit);
  }
  if (threshold_ms > 0) fmt::format_to(it, "  (total inclusive threshold: {:.1f}ms)", threshold_ms);
  fmt::format_to(it, "\n{}\n", std::string(rule, '-'));
  const std::string incl_heading = fmt::format("Incl ({})", scale.unit);
  const std::string self_heading = fmt::format("Self ({})", scale.unit);
  fmt::format_to(it, "{:>3}  {:<{}} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>7}\n", "#",
                 group_by_name(by), width, "Runs", incl_heading, self_heading, "Mean", "P50", "P95",
                 "Max", "Self %");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AggregateRow& r = rows[i];
    fmt::format_to(it,
                   "{:>3}  {:<{}} {:>6} {:>12.3f} {:>12.3f} {:>10.3f} {:>10.3f} {:>10.3f} "
                   "{:>10.3f} {:>6.1f}%\n",
                   i + 1, keys[i], width, r.executions,
                   ms(static_cast<double>(r.total_inclusive_ns)),
                   ms(static_cast<double>(r.total_self_ns)), ms(r.mean_self_ns),
                   ms(static_cast<double>(r.p50_self_ns)), ms(static_cast<double>(r.p95_self_ns)),
                   ms(static_cast<double>(r.max_self_ns)), r.self_share * 100);
  }
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  if (measure == Measure::wall) {
    fmt::format_to(it, "Mean, P50, P95 and Max are self times per run, in ms.\n");
  } else {
    fmt::format_to(it, "Mean, P50, P95 and Max are self {} per run, in {}.\n",
                   measure_name(measure), scale.unit);
  }
  if (hidden) fmt::format_to(it, "({} {} rows not shown)\n", hidden, group_by_name(by));
  fmt::format_to(it, "{}\n", std::string(rule, '='));
  return out;
}

}  // namespace passtiming::cli
