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

std::string display_key(std::string_view value, GroupKey key) {
  if (!value.empty()) return escape_for_terminal(value);
  switch (key) {
    case GroupKey::kernel: return "<no kernel>";
    case GroupKey::context: return "<no context>";
    case GroupKey::file: return "<no file>";
    case GroupKey::pass: break;
  }
  return "<unnamed>";
}

/// The key columns of a summary: one per key of the grouping, each as wide
/// as its widest value (the one column of a single key at least 24).
struct KeyColumns {
  std::vector<std::size_t> widths;
  std::vector<std::vector<std::string>> cells;  ///< per row, per key

  KeyColumns(const std::vector<AggregateRow>& rows, GroupBy by) {
    const std::span<const GroupKey> keys = by.keys();
    for (GroupKey key : keys) {
      widths.push_back(keys.size() == 1 ? 24 : group_key_name(key).size());
    }
    for (const AggregateRow& row : rows) {
      std::vector<std::string>& line = cells.emplace_back();
      for (std::size_t k = 0; k < keys.size(); ++k) {
        line.push_back(display_key(k < row.keys.size() ? row.keys[k] : row.key, keys[k]));
        widths[k] = std::max(widths[k], line.back().size());
      }
    }
  }

  /// All key columns with the spaces between them.
  std::size_t total_width() const {
    std::size_t total = widths.size() - 1;
    for (std::size_t w : widths) total += w;
    return total;
  }

  /// `values` left-aligned in the columns, separated by one space.
  template <typename Values>
  std::string line(const Values& values) const {
    std::string text;
    for (std::size_t k = 0; k < widths.size(); ++k) {
      if (k) text += ' ';
      text += fmt::format("{:<{}}", values[k], widths[k]);
    }
    return text;
  }
};

}  // namespace

std::string render_summary_text(const std::vector<AggregateRow>& rows, const Aggregator& agg,
                                std::size_t hidden, double threshold_ms) {
  const GroupBy by = agg.group_by();
  const Measure measure = agg.measure();
  const Scale scale = scale_of(measure);
  auto ms = [&](double value) { return value / scale.divisor; };
  const KeyColumns columns(rows, by);
  const std::size_t width = columns.total_width();
  std::vector<std::string_view> headings;
  for (GroupKey key : by.keys()) headings.push_back(group_key_name(key));
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
  } else if (is_change_measure(measure)) {
    // The self figures sum to the outermost passes' changes: the net change.
    fmt::format_to(it, "Profiles: {}  Net change: {:+.3f} {}", agg.profiles(),
                   ms(static_cast<double>(agg.total_self_ns())), scale.unit);
  } else {
    fmt::format_to(it, "Profiles: {}  Total self: {:.3f} {}", agg.profiles(),
                   ms(static_cast<double>(agg.total_self_ns())), scale.unit);
  }
  if (threshold_ms > 0) fmt::format_to(it, "  (total inclusive threshold: {:.1f}ms)", threshold_ms);
  fmt::format_to(it, "\n{}\n", std::string(rule, '-'));
  const std::string incl_heading = fmt::format("Incl ({})", scale.unit);
  const std::string self_heading = fmt::format("Self ({})", scale.unit);
  fmt::format_to(it, "{:>3}  {} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>7}\n", "#",
                 columns.line(headings), "Runs", incl_heading, self_heading, "Mean", "P50", "P95",
                 "Max", "Self %");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AggregateRow& r = rows[i];
    fmt::format_to(it,
                   "{:>3}  {} {:>6} {:>12.3f} {:>12.3f} {:>10.3f} {:>10.3f} {:>10.3f} "
                   "{:>10.3f} {:>6.1f}%\n",
                   i + 1, columns.line(columns.cells[i]), r.executions,
                   ms(static_cast<double>(r.total_inclusive_ns)),
                   ms(static_cast<double>(r.total_self_ns)), ms(r.mean_self_ns),
                   ms(static_cast<double>(r.p50_self_ns)), ms(static_cast<double>(r.p95_self_ns)),
                   ms(static_cast<double>(r.max_self_ns)), r.self_share * 100);
  }
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  if (measure == Measure::wall) {
    fmt::format_to(it, "Mean, P50, P95 and Max are self times per run, in ms.\n");
  } else if (is_change_measure(measure)) {
    fmt::format_to(it,
                   "Incl is a run's change of {}, Self the change outside its nested passes.\n"
                   "Mean, P50, P95 and Max are self per run, in {}; Self % is the share of all "
                   "rows' changes, negative for shrinking.\n",
                   measure == Measure::ir ? "its IR unit's size" : "the resident set", scale.unit);
  } else {
    fmt::format_to(it, "Mean, P50, P95 and Max are self {} per run, in {}.\n",
                   measure_name(measure), scale.unit);
  }
  if (hidden) fmt::format_to(it, "({} {} rows not shown)\n", hidden, group_by_name(by));
  fmt::format_to(it, "{}\n", std::string(rule, '='));
  return out;
}

}  // namespace passtiming::cli
