#include "gate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "passtiming/analysis/aggregate.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace passtiming::cli {
namespace {

/// How many rows besides the regressions the Markdown table shows.
constexpr std::size_t kMarkdownOtherRows = 10;

bool is_time(Measure measure) {
  return measure == Measure::wall || measure == Measure::cpu;
}

/// The unit the text and Markdown tables print: milliseconds for times
/// (stored in ns), the measure's own unit otherwise.
std::string_view display_unit(Measure measure) {
  return is_time(measure) ? "ms" : measure_unit(measure);
}

std::string display_value(double value, Measure measure, bool sign = false) {
  if (is_time(measure)) {
    return sign ? fmt::format("{:+.3f}", value / 1e6) : fmt::format("{:.3f}", value / 1e6);
  }
  const bool whole = value == std::floor(value);
  if (sign) return whole ? fmt::format("{:+.0f}", value) : fmt::format("{:+.1f}", value);
  return whole ? fmt::format("{:.0f}", value) : fmt::format("{:.1f}", value);
}

/// The floor as a reader states it: "1 ms", "1048576 bytes".
std::string display_floor(const GateReportContext& c) {
  return fmt::format("{} {}",
                     is_time(c.measure) ? fmt::format("{:g}", c.settings.floor / 1e6)
                                        : fmt::format("{:g}", c.settings.floor),
                     display_unit(c.measure));
}

std::string percent_text(double base, double next) {
  if (base == 0) return next == 0 ? "0.0%" : "-";
  return fmt::format("{:+.1f}%", (next - base) / std::abs(base) * 100);
}

std::string percent_text(const GateRow& row) {
  return percent_text(row.base_median, row.new_median);
}

/// The change of the statistic compared, which the threshold applies to.
std::string compared_percent_text(const GateRow& row) {
  return percent_text(row.base_compared, row.new_compared);
}

std::string p_text(const std::optional<double>& p) {
  return p ? fmt::format("{:.2g}", *p) : std::string("-");
}

std::string plural(std::size_t n, std::string_view word) {
  if (n == 1) return fmt::format("1 {}", word);
  // "pass" -> "passes"; kernels and contexts take an s.
  return fmt::format("{} {}{}", n, word, word.ends_with("s") ? "es" : "s");
}

std::string geomean_text(const GateResult& r, GroupBy by) {
  if (!r.geomean_ratio) return fmt::format("no {} above 0 on both sides", group_by_name(by));
  std::string text =
      fmt::format("{:.4f} ({:+.2f}%) over {}", *r.geomean_ratio, (*r.geomean_ratio - 1) * 100,
                  plural(r.geomean_groups, group_by_name(by)));
  if (r.geomean_excluded) {
    text += fmt::format(", {} with a median of 0 left out", r.geomean_excluded);
  }
  return text;
}

std::string test_text(const GateResult& r, const GateReportContext& c) {
  const bool matched = r.statistic == GateStatistic::matched;
  return fmt::format("{} ({}), Holm at alpha {:g} over {} tested; threshold +{:g}%, floor {}",
                     matched ? "Rank test of the matched executions, by permutations of the runs"
                             : "Mann-Whitney U",
                     c.settings.alternative == Alternative::greater
                         ? "one-sided: new larger than base grown by the threshold and floor"
                         : "two-sided",
                     c.settings.alpha, plural(r.tested, group_by_name(c.by)),
                     c.settings.threshold_pct, display_floor(c));
}

/// What the Base and New columns hold: the statistic the test compared.
std::string columns_text(const GateResult& r) {
  return r.statistic == GateStatistic::matched
             ? "Base, New: matched executions, each execution's median over the side's runs, "
               "summed (each run's divided by the run's speed where the JSON's relative says "
               "so)"
             : "Base, New: the median of the side's runs (a pass weighed against the rest of "
               "its runs, as the JSON's relative says, so scaled)";
}

std::string verdict_text(const GateResult& r) {
  std::string text = r.regressions == 0 ? std::string("no regression")
                                        : fmt::format("{} regression{}", r.regressions,
                                                      r.regressions == 1 ? "" : "s");
  if (r.drift.flagged) text += ", and a drift of every pass";
  return text;
}

/// Why this measure, when the gate chose it: "Measure: cpu, the best
/// every run recorded (instructions, then cpu, then wall)."; "" when given.
std::string measure_text(const GateReportContext& c) {
  if (!c.measure_chosen) return "";
  return fmt::format(
      "Measure: {}, the best every run recorded (instructions, then cpu, then wall).",
      measure_name(c.measure));
}

/// The drift in one sentence: the common factor of the runs' totals,
/// whether it is a change of every pass, and that the groups were compared
/// with it taken out.
std::string drift_text(const GateResult& r, const GateReportContext& c) {
  const GateDrift& d = r.drift;
  if (!d.tested) return "Drift: not tested (a side's runs total 0)";
  const double pct = (d.factor - 1) * 100;
  std::string text = fmt::format(
      "Drift: the typical {} {} by {:.1f}% (the median ratio, weighted by base); the runs' "
      "totals {} -> {} {} (p {})",
      group_by_name(c.by), pct >= 0 ? "grew" : "shrank", std::abs(pct),
      display_value(d.base_median, c.measure), display_value(d.new_median, c.measure),
      display_unit(c.measure), p_text(d.p_value));
  if (d.flagged) {
    text += fmt::format(
        ": every {} slower by {:.1f}%, the machine or a global change; the {}s below are "
        "compared with the rest of their runs",
        group_by_name(c.by), pct, group_by_name(c.by));
  } else {
    text += ": not a change beyond the threshold";
  }
  return text;
}

std::vector<const GateRow*> rows_with(const GateResult& r, GateStatus status) {
  std::vector<const GateRow*> out;
  for (const GateRow& row : r.rows) {
    if (row.status == status) out.push_back(&row);
  }
  return out;
}

/// How many of the groups too noisy to judge the text and Markdown name.
constexpr std::size_t kNoisyShown = 10;

/// The groups too noisy to judge (too_noisy_to_judge), the largest first.
std::vector<const GateRow*> noisy_rows(const GateResult& r, const GateSettings& settings) {
  std::vector<const GateRow*> out;
  for (const GateRow& row : r.rows) {
    if (too_noisy_to_judge(row, settings)) out.push_back(&row);
  }
  std::stable_sort(out.begin(), out.end(), [](const GateRow* a, const GateRow* b) {
    return a->base_compared > b->base_compared;
  });
  return out;
}

/// One noisy group's figures: "detectable +38.6%, about 240 runs per side
/// for +10%".
std::string noisy_text(const GateRow& row, const GateSettings& settings) {
  std::string text = fmt::format("detectable {:+.1f}%", *row.detectable_pct);
  if (row.runs_for_twice_threshold) {
    text += fmt::format(", about {} runs per side for +{:g}%", *row.runs_for_twice_threshold,
                        2 * settings.threshold_pct);
  }
  return text;
}

/// The sentence before the noisy groups' list.
std::string noisy_heading(std::size_t count, const GateReportContext& c) {
  return fmt::format(
      "Too noisy to judge with these runs, {}: a change of +{:g}% (twice the threshold) "
      "would be flagged with less than 95% chance",
      plural(count, group_by_name(c.by)), 2 * c.settings.threshold_pct);
}

/// A Markdown code span of `key` that survives a table cell: a pipe is
/// escaped (GitHub splits cells on it even inside code), a backquote would
/// end the span and becomes a quote.
std::string markdown_key(std::string_view key) {
  if (key.empty()) return "*(none)*";
  std::string out = "`";
  for (char ch : key) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '`') {
      out += '\'';
    } else if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out + "`";
}

/// A phase row's key: its path, marked as a phase's.
std::string phase_key(std::string_view path) {
  return fmt::format("phase: {}", path);
}

std::string phase_verdict_text(const GateResult& p) {
  return p.regressions == 0
             ? std::string("no phase regression")
             : fmt::format("{} phase regression{}", p.regressions, p.regressions == 1 ? "" : "s");
}

/// The verdict of the passes, and the phases' when they regressed.
std::string full_verdict_text(const GateResult& r, const GateReportContext& c) {
  std::string text = verdict_text(r);
  if (c.phases && c.phases->regressions > 0) text += ", " + phase_verdict_text(*c.phases);
  return text;
}

/// The phases' block of the text verdict: their wall time per run, a row
/// per phase path, tested as the passes are.
std::string phase_text(const GateResult& p, const GateReportContext& c) {
  std::size_t width = 24;
  std::vector<std::string> keys;
  for (const GateRow& row : p.rows) {
    keys.push_back(escape_for_terminal(phase_key(row.key)));
    width = std::max(width, keys.back().size());
  }
  const std::size_t rule = width + 86;
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Phases: wall time (ms) per run, Holm at alpha {:g} over {} tested\n",
                 c.settings.alpha, plural(p.tested, "phase path"));
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}  {}\n", "Phase", width,
                 "Base (ms)", "New (ms)", "Delta (ms)", "Delta %", "p", "p Holm", "Status");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const GateRow& row = p.rows[i];
    fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}  {}\n", keys[i], width,
                   display_value(row.base_median, Measure::wall),
                   display_value(row.new_median, Measure::wall),
                   display_value(row.delta(), Measure::wall, true), percent_text(row),
                   p_text(row.p_value), p_text(row.p_holm), gate_status_name(row.status));
  }
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  fmt::format_to(it, "Phase verdict: {}\n{}\n", phase_verdict_text(p), std::string(rule, '='));
  return out;
}

/// The keys of `rows` as a JSON array of strings.
void append_keys_json(std::string& out, const std::vector<const GateRow*>& rows) {
  out += '[';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, rows[i]->key);
  }
  out += ']';
}

/// A JSON number, or null for none.
template <typename T>
std::string json_number(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string("null");
}

/// The JSON of `r`'s rows, one a line.
void append_rows_json(std::string& out, const GateResult& r) {
  auto it = std::back_inserter(out);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const GateRow& row = r.rows[i];
    out += i ? ",\n" : "\n";
    out += "{\"key\":";
    append_json_string(out, row.key);
    fmt::format_to(
        it,
        ",\"status\":\"{}\",\"base_median\":{},\"new_median\":{},\"delta\":{},"
        "\"ratio\":{},\"relative\":{},\"base_compared\":{},"
        "\"new_compared\":{},\"tested\":{},\"u\":{},"
        "\"p_value\":{},\"p_holm\":{},\"exact\":{},\"above_threshold\":{},"
        "\"above_floor\":{},\"spread\":{},\"compared_spread\":{},\"size_spread\":{},"
        "\"detectable_pct\":{},\"runs_for_twice_threshold\":{}}}",
        gate_status_name(row.status), row.base_median, row.new_median, row.delta(),
        json_number(row.ratio()), row.relative, row.base_compared, row.new_compared, row.tested,
        row.tested && r.statistic == GateStatistic::runs ? fmt::format("{}", row.u_new) : "null",
        json_number(row.p_value), json_number(row.p_holm), row.exact, row.above_threshold,
        row.above_floor, json_number(row.spread), json_number(row.compared_spread),
        json_number(row.size_spread), json_number(row.detectable_pct),
        json_number(row.runs_for_twice_threshold));
  }
}

/// The phases' part of the Markdown verdict.
std::string phase_markdown(const GateResult& p) {
  std::string out = fmt::format("\n**Phases: {}** (wall time per run, {} tested)\n\n",
                                phase_verdict_text(p), plural(p.tested, "phase path"));
  if (p.rows.empty()) return out;
  auto it = std::back_inserter(out);
  out +=
      "| Phase | Base (ms) | New (ms) | Delta (ms) | Delta | p | p Holm | Status |\n"
      "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const GateRow& row : p.rows) {
    fmt::format_to(
        it, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_key(phase_key(row.key)),
        display_value(row.base_median, Measure::wall), display_value(row.new_median, Measure::wall),
        display_value(row.delta(), Measure::wall, true), percent_text(row), p_text(row.p_value),
        p_text(row.p_holm),
        row.status == GateStatus::regression ? "**regression**" : gate_status_name(row.status));
  }
  return out;
}

}  // namespace

bool gate_failed(const GateResult& result, const GateReportContext& context) {
  return result.regressions > 0 || result.drift.flagged ||
         (context.phases && context.phases->regressions > 0);
}

std::string render_gate_text(const GateResult& r, const GateReportContext& c) {
  std::size_t width = 24;
  std::vector<std::string> keys;
  for (const GateRow& row : r.rows) {
    keys.push_back(row.key.empty() ? "<none>" : escape_for_terminal(row.key));
    width = std::max(width, keys.back().size());
  }
  const std::size_t rule = width + 86;
  const std::string_view unit = display_unit(c.measure);
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}\nPass Timing Gate by {}: {} self {} per run, {} base and {} new runs\n",
                 std::string(rule, '='), group_by_name(c.by), measure_name(c.measure), unit,
                 r.base_runs, r.new_runs);
  fmt::format_to(it, "{}\n{}\n", test_text(r, c), drift_text(r, c));
  if (c.measure_chosen) fmt::format_to(it, "{}\n", measure_text(c));
  fmt::format_to(it, "{}\n", columns_text(r));
  for (const std::string& warning : c.warnings) fmt::format_to(it, "Warning: {}\n", warning);
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}  {}\n", "Pass", width,
                 fmt::format("Base ({})", unit), fmt::format("New ({})", unit),
                 fmt::format("Delta ({})", unit), "Delta %", "p", "p Holm", "Status");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const GateRow& row = r.rows[i];
    fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}  {}\n", keys[i], width,
                   display_value(row.base_compared, c.measure),
                   display_value(row.new_compared, c.measure),
                   display_value(row.new_compared - row.base_compared, c.measure, true),
                   compared_percent_text(row), p_text(row.p_value), p_text(row.p_holm),
                   gate_status_name(row.status));
  }
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  const std::vector<const GateRow*> noisy = noisy_rows(r, c.settings);
  if (!noisy.empty()) fmt::format_to(it, "{}:\n", noisy_heading(noisy.size(), c));
  for (std::size_t i = 0; i < noisy.size() && i < kNoisyShown; ++i) {
    fmt::format_to(it, "  {}: {}\n",
                   noisy[i]->key.empty() ? "<none>" : escape_for_terminal(noisy[i]->key),
                   noisy_text(*noisy[i], c.settings));
  }
  if (noisy.size() > kNoisyShown) {
    fmt::format_to(it, "  and {} more (--format json lists them)\n", noisy.size() - kNoisyShown);
  }
  fmt::format_to(it, "Geometric mean of new/base: {}\n", geomean_text(r, c.by));
  fmt::format_to(it, "Verdict: {}\n{}\n", full_verdict_text(r, c), std::string(rule, '='));
  if (c.phases) out += phase_text(*c.phases, c);
  return out;
}

std::string render_gate_json(const GateResult& r, const GateReportContext& c) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "{{\"verdict\":\"{}\",\"regressions\":{},\"measure\":\"{}\",\"unit\":\"{}\","
                 "\"by\":\"{}\",\"statistic\":\"{}\",\"test\":\"{}\",\"alternative\":\"{}\","
                 "\"correction\":\"holm\",\"alpha\":{},\"threshold_pct\":{},\"floor\":{},"
                 "\"base_profiles\":{},\"new_profiles\":{},\"tested\":{},\"smallest_p\":{},"
                 "\"geomean_ratio\":{},\"geomean_groups\":{},\"geomean_excluded\":{},",
                 gate_failed(r, c) ? "regression" : "ok", r.regressions, measure_name(c.measure),
                 measure_unit(c.measure), group_by_name(c.by), gate_statistic_name(r.statistic),
                 r.statistic == GateStatistic::matched ? "matched-ranks" : "mann-whitney-u",
                 alternative_name(c.settings.alternative), c.settings.alpha,
                 c.settings.threshold_pct, c.settings.floor, r.base_runs, r.new_runs, r.tested,
                 r.smallest_p, json_number(r.geomean_ratio), r.geomean_groups, r.geomean_excluded);
  const GateDrift& d = r.drift;
  fmt::format_to(it,
                 "\"measure_chosen\":{},\"drift\":{{\"base_median\":{},\"new_median\":{},"
                 "\"factor\":{},\"tested\":{},\"u\":{},\"p_value\":{},\"exact\":{},"
                 "\"flagged\":{}}},\"warnings\":[",
                 c.measure_chosen, d.base_median, d.new_median, d.factor, d.tested,
                 d.tested ? fmt::format("{}", d.u_new) : "null", json_number(d.p_value), d.exact,
                 d.flagged);
  for (std::size_t i = 0; i < c.warnings.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, c.warnings[i]);
  }
  out += "],\"too_noisy\":";
  append_keys_json(out, noisy_rows(r, c.settings));
  out += ',';
  for (const GateStatus status : {GateStatus::appeared, GateStatus::vanished}) {
    fmt::format_to(it, "\"{}\":", gate_status_name(status));
    append_keys_json(out, rows_with(r, status));
    out += ',';
  }
  if (c.phases) {
    // Absent when no run has phases. A row's key is the phase's path; its
    // values are wall time in ns.
    fmt::format_to(it,
                   "\"phases\":{{\"measure\":\"wall\",\"unit\":\"ns\",\"tested\":{},"
                   "\"regressions\":{},\"rows\":[",
                   c.phases->tested, c.phases->regressions);
    append_rows_json(out, *c.phases);
    out += "\n]},";
  }
  out += "\"rows\":[";
  append_rows_json(out, r);
  out += "\n]}\n";
  return out;
}

std::string render_gate_markdown(const GateResult& r, const GateReportContext& c) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::string_view unit = display_unit(c.measure);
  fmt::format_to(it, "**passtiming gate: {}** ({} self {} by {}, {} base and {} new runs)\n\n",
                 full_verdict_text(r, c), measure_name(c.measure),
                 is_time(c.measure) ? "time" : "value", group_by_name(c.by), r.base_runs,
                 r.new_runs);
  fmt::format_to(it, "{}. Geometric mean of new/base: {}.\n\n{}.{}\n\n", test_text(r, c),
                 geomean_text(r, c.by), drift_text(r, c),
                 c.measure_chosen ? " " + measure_text(c) : std::string());
  fmt::format_to(it, "{}.\n\n", columns_text(r));
  for (const std::string& warning : c.warnings) fmt::format_to(it, "> Warning: {}\n\n", warning);

  std::vector<const GateRow*> shown = rows_with(r, GateStatus::regression);
  std::size_t others = 0;
  for (const GateRow& row : r.rows) {
    if (row.status != GateStatus::ok) continue;
    if (others++ < kMarkdownOtherRows) shown.push_back(&row);
  }
  if (!shown.empty()) {
    fmt::format_to(it,
                   "| {} | Base ({}) | New ({}) | Delta ({}) | Delta | p | p Holm | Status |\n"
                   "|---|---:|---:|---:|---:|---:|---:|---|\n",
                   c.by == GroupBy::pass     ? "Pass"
                   : c.by == GroupBy::kernel ? "Kernel"
                                             : "Context",
                   unit, unit, unit);
    for (const GateRow* row : shown) {
      const bool flagged = row->status == GateStatus::regression;
      fmt::format_to(it, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_key(row->key),
                     display_value(row->base_compared, c.measure),
                     display_value(row->new_compared, c.measure),
                     display_value(row->new_compared - row->base_compared, c.measure, true),
                     compared_percent_text(*row), p_text(row->p_value), p_text(row->p_holm),
                     flagged ? "**regression**" : "ok");
    }
    if (others > kMarkdownOtherRows) {
      fmt::format_to(it,
                     "\n{} more on both sides, none a regression (all in --format text or json).\n",
                     others - kMarkdownOtherRows);
    }
  }
  for (const GateStatus status : {GateStatus::appeared, GateStatus::vanished}) {
    const std::vector<const GateRow*> listed = rows_with(r, status);
    if (listed.empty()) continue;
    fmt::format_to(it, "\n{}: ", status == GateStatus::appeared ? "Appeared" : "Vanished");
    for (std::size_t i = 0; i < listed.size(); ++i) {
      const double value =
          status == GateStatus::appeared ? listed[i]->new_median : listed[i]->base_median;
      fmt::format_to(it, "{}{} ({} {})", i ? ", " : "", markdown_key(listed[i]->key),
                     display_value(value, c.measure), unit);
    }
    out += "\n";
  }
  const std::vector<const GateRow*> noisy = noisy_rows(r, c.settings);
  if (!noisy.empty()) fmt::format_to(it, "\n{}: ", noisy_heading(noisy.size(), c));
  for (std::size_t i = 0; i < noisy.size() && i < kNoisyShown; ++i) {
    fmt::format_to(it, "{}{} ({})", i ? ", " : "", markdown_key(noisy[i]->key),
                   noisy_text(*noisy[i], c.settings));
  }
  if (noisy.size() > kNoisyShown) {
    fmt::format_to(it, ", and {} more", noisy.size() - kNoisyShown);
  }
  if (!noisy.empty()) out += ".\n";
  if (c.phases) out += phase_markdown(*c.phases);
  return out;
}

}  // namespace passtiming::cli
