#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "commands.h"
#include "diff_gate.h"
#include "passtiming/analysis/aggregate.h"
#include "passtiming/analysis/phase_totals.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

using Totals = std::unordered_map<std::string, GroupTotals>;

struct DiffOptions {
  std::optional<std::string> base_file, new_file;  ///< BASE NEW
  std::vector<std::string> base;
  std::vector<std::string> next;
  std::optional<std::string> fail_above;
  std::string min_ms = "0";
  std::string by = "pass";
  std::string format = "text";
  std::string output = "-";
  bool gate = false;
  GateOptions gate_options;
};

std::string_view status_of(const DiffRow& row, bool regression) {
  if (!row.in_base) return "added";
  if (!row.in_new) return "removed";
  return regression ? "regression" : "ok";
}

std::string render_text(const std::vector<DiffRow>& rows, const std::vector<bool>& regressions,
                        const DiffOptions& o, std::size_t base_n, std::size_t new_n,
                        std::optional<double> fail_above, double min_ms) {
  std::size_t width = 24;
  std::vector<std::string> keys;
  for (const DiffRow& row : rows) {
    keys.push_back(row.key.empty() ? "<none>" : escape_for_terminal(row.key));
    width = std::max(width, keys.back().size());
  }
  const std::size_t rule = width + 84;
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "{}\nPass Timing Diff by {}: {} base, {} new profile(s), medians of self time\n",
                 std::string(rule, '='), o.by, base_n, new_n);
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>18}  {}\n", "Pass", width, "Base (ms)",
                 "New (ms)", "Delta (ms)", "Delta %", "Runs base -> new", "Status");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  double base_total = 0, new_total = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DiffRow& r = rows[i];
    base_total += r.base_self_ns;
    new_total += r.new_self_ns;
    const std::optional<double> pct = r.delta_percent();
    const std::string pct_text = pct ? fmt::format("{:+.1f}%", *pct) : std::string("-");
    const std::string runs = fmt::format("{:g} -> {:g}", r.base_executions, r.new_executions);
    fmt::format_to(it, "{:<{}} {:>12.3f} {:>12.3f} {:>+12.3f} {:>9} {:>18}  {}\n", keys[i], width,
                   r.base_self_ns / 1e6, r.new_self_ns / 1e6, r.delta_ns() / 1e6, pct_text, runs,
                   status_of(r, regressions[i]));
    if (regressions[i]) ++count;
  }
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  fmt::format_to(it, "{:<{}} {:>12.3f} {:>12.3f} {:>+12.3f}\n", "Total self", width,
                 base_total / 1e6, new_total / 1e6, (new_total - base_total) / 1e6);
  if (fail_above) {
    fmt::format_to(
        it, "{} regression(s): passes of at least {:.3f} ms that got more than {:.1f}% slower\n",
        count, min_ms, *fail_above);
  }
  fmt::format_to(it, "{}\n", std::string(rule, '='));
  return out;
}

/// The phases of both sides, compared like the passes: each phase path's
/// median time per side (docs/cli.md#diff). Empty when no profile of either
/// side has phases.
struct PhaseDiff {
  std::vector<DiffRow> rows;
  std::vector<bool> regressions;
  bool empty() const { return rows.empty(); }
};

/// The table of `phases` after the passes' (same columns, times of the
/// phases rather than self times).
std::string render_phase_text(const PhaseDiff& phases, std::optional<double> fail_above,
                              double min_ms) {
  if (phases.empty()) return {};
  std::size_t width = 24;
  std::vector<std::string> keys;
  for (const DiffRow& row : phases.rows) {
    keys.push_back(escape_for_terminal(row.key));
    width = std::max(width, keys.back().size());
  }
  const std::size_t rule = width + 84;
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Phases: medians of each phase path's time\n{}\n", std::string(rule, '-'));
  fmt::format_to(it, "{:<{}} {:>12} {:>12} {:>12} {:>9} {:>18}  {}\n", "Phase", width, "Base (ms)",
                 "New (ms)", "Delta (ms)", "Delta %", "Count base -> new", "Status");
  fmt::format_to(it, "{}\n", std::string(rule, '-'));
  std::size_t count = 0;
  for (std::size_t i = 0; i < phases.rows.size(); ++i) {
    const DiffRow& r = phases.rows[i];
    const std::optional<double> pct = r.delta_percent();
    const std::string pct_text = pct ? fmt::format("{:+.1f}%", *pct) : std::string("-");
    const std::string runs = fmt::format("{:g} -> {:g}", r.base_executions, r.new_executions);
    fmt::format_to(it, "{:<{}} {:>12.3f} {:>12.3f} {:>+12.3f} {:>9} {:>18}  {}\n", keys[i], width,
                   r.base_self_ns / 1e6, r.new_self_ns / 1e6, r.delta_ns() / 1e6, pct_text, runs,
                   status_of(r, phases.regressions[i]));
    if (phases.regressions[i]) ++count;
  }
  if (fail_above) {
    fmt::format_to(it,
                   "{} phase regression(s): phases of at least {:.3f} ms that got more than "
                   "{:.1f}% slower\n",
                   count, min_ms, *fail_above);
  }
  fmt::format_to(it, "{}\n", std::string(rule, '='));
  return out;
}

/// One diff row as JSON, with its status.
void append_json_row(std::string& out, const DiffRow& r, bool regression) {
  out += "{\"key\":";
  append_json_string(out, r.key);
  const std::optional<double> pct = r.delta_percent();
  fmt::format_to(std::back_inserter(out),
                 ",\"status\":\"{}\",\"base_self_ns\":{},\"new_self_ns\":{},\"delta_ns\":{},"
                 "\"delta_percent\":{},\"base_executions\":{},\"new_executions\":{}}}",
                 status_of(r, regression), r.base_self_ns, r.new_self_ns, r.delta_ns(),
                 pct ? fmt::format("{}", *pct) : "null", r.base_executions, r.new_executions);
}

std::string render_json(const std::vector<DiffRow>& rows, const std::vector<bool>& regressions,
                        const DiffOptions& o, std::size_t base_n, std::size_t new_n,
                        std::optional<double> fail_above, double min_ms, const PhaseDiff& phases) {
  std::string out;
  auto it = std::back_inserter(out);
  const auto count = std::count(regressions.begin(), regressions.end(), true);
  fmt::format_to(it,
                 "{{\"by\":\"{}\",\"base_profiles\":{},\"new_profiles\":{},\"fail_above_pct\":{},"
                 "\"min_ms\":{},\"regressions\":{},\"rows\":[",
                 o.by, base_n, new_n, fail_above ? fmt::format("{}", *fail_above) : "null", min_ms,
                 count);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += i ? ",\n" : "\n";
    append_json_row(out, rows[i], regressions[i]);
  }
  out += "\n]";
  // Absent when no profile has phases: such a diff reads as before. A
  // phase row's "self" members hold the phase path's time.
  if (!phases.empty()) {
    fmt::format_to(it, ",\"phase_regressions\":{},\"phases\":[",
                   std::count(phases.regressions.begin(), phases.regressions.end(), true));
    for (std::size_t i = 0; i < phases.rows.size(); ++i) {
      out += i ? ",\n" : "\n";
      append_json_row(out, phases.rows[i], phases.regressions[i]);
    }
    out += "\n]";
  }
  out += "}\n";
  return out;
}

/// Whether any option of the gate differs from its default.
bool gate_options_given(const GateOptions& given, const GateOptions& defaults) {
  return given.measure || given.floor_ms || given.floor || given.strict ||
         given.alpha != defaults.alpha || given.alternative != defaults.alternative ||
         given.threshold_pct != defaults.threshold_pct;
}

void add_diff_options(CLI::App& sub, DiffOptions& options) {
  sub.add_option("BASE", options.base_file,
                 "the base profile or event log (or several with --base)");
  sub.add_option("NEW", options.new_file, "the new profile or event log (or several with --new)");
  sub.add_option("--base", options.base, "base profiles (several: compare medians)");
  sub.add_option("--new", options.next, "new profiles (several: compare medians)");
  sub.add_option("--fail-above", options.fail_above,
                 "exit 1 when a pass got slower by more than this many percent")
      ->type_name("PCT")
      ->check(non_negative_number());
  sub.add_option("--min-ms", options.min_ms,
                 "only passes whose new median self time is at least this many ms can fail")
      ->type_name("MS")
      ->check(non_negative_number());
  sub.add_option("--by", options.by, "compare by pass (default), kernel or context")
      ->check(CLI::IsMember({"pass", "kernel", "context"}));
  sub.add_option("--format", options.format, "text (default) or json; markdown with --gate")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  sub.add_option("-o,--output", options.output, "output file (default '-': stdout)");
}

/// The statistical gate's options (docs/gate.md).
void add_gate_options(CLI::App& sub, DiffOptions& options) {
  GateOptions& g = options.gate_options;
  sub.add_flag("--gate", options.gate,
               "statistical gate over several runs per side: Mann-Whitney U per pass, Holm's "
               "correction, a threshold and a floor; exit 1 on a regression");
  add_gate_settings(sub, g, "with --gate: ");
}

/// The statistical gate over o's sides, with its own options.
int run_gate(const DiffOptions& o) {
  if (o.fail_above || o.min_ms != "0") {
    return input_failure(
        "passtiming diff: --fail-above and --min-ms are the median gate; --gate takes "
        "--threshold-pct and --floor-ms");
  }
  GateOptions gate = o.gate_options;
  gate.base = o.base;
  gate.next = o.next;
  gate.by = o.by;
  gate.format = o.format;
  gate.output = o.output;
  return run_diff_gate(gate);
}

/// The median diff: each group's median self time per side, flagged when
/// --fail-above is given and it grew by more than that (and is at least
/// --min-ms); written in --format to --output.
int run_median_diff(const DiffOptions& o) {
  const GateOptions defaults;
  if (o.format == "markdown" || gate_options_given(o.gate_options, defaults)) {
    return input_failure(
        "passtiming diff: --format markdown, --measure, --alpha, --alternative, "
        "--threshold-pct, --floor-ms and --floor need --gate");
  }
  std::optional<double> fail_above;
  double min_ms = 0;
  if (o.fail_above) {
    double value = 0;
    if (!parse_number_option(*o.fail_above, "--fail-above", value)) return kExitUsage;
    fail_above = value;
  }
  if (!parse_number_option(o.min_ms, "--min-ms", min_ms)) return kExitUsage;
  const GroupBy by = *parse_group_by(o.by);

  std::vector<Totals> base, next, base_phases, new_phases;
  bool any_phases = false;
  try {
    for_each_profile(o.base, [&](Profile&& p) {
      base.push_back(totals_by_group(p, by));
      base_phases.push_back(phase_totals_by_path(p));
      any_phases = any_phases || !p.phases.empty();
    });
    for_each_profile(o.next, [&](Profile&& p) {
      next.push_back(totals_by_group(p, by));
      new_phases.push_back(phase_totals_by_path(p));
      any_phases = any_phases || !p.phases.empty();
    });
  } catch (const std::exception& e) {
    return input_failure(e.what());
  }
  const std::vector<DiffRow> rows = diff_profiles(base, next);
  std::vector<bool> regressions(rows.size(), false);
  bool regressed = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    regressions[i] = fail_above && is_regression(rows[i], *fail_above, min_ms);
    regressed = regressed || regressions[i];
  }
  PhaseDiff phases;
  if (any_phases) {
    // Phases regress by the same rule as passes: a compile slower in a
    // phase is slower.
    phases.rows = diff_profiles(base_phases, new_phases);
    for (const DiffRow& row : phases.rows) {
      phases.regressions.push_back(fail_above && is_regression(row, *fail_above, min_ms));
      regressed = regressed || phases.regressions.back();
    }
  }
  const std::string text =
      o.format == "json"
          ? render_json(rows, regressions, o, base.size(), next.size(), fail_above, min_ms, phases)
          : render_text(rows, regressions, o, base.size(), next.size(), fail_above, min_ms) +
                render_phase_text(phases, fail_above, min_ms);
  try {
    write_output(o.output, text);
  } catch (const std::exception& e) {
    return input_failure(e.what());
  }
  return regressed ? kExitRegression : kExitOk;
}

/// BASE NEW, or --base FILE... --new FILE...: the sides, as lists.
int run_diff(DiffOptions& o) {
  if (o.base_file && o.new_file && o.base.empty() && o.next.empty()) {
    o.base = {*o.base_file};
    o.next = {*o.new_file};
  } else if (o.base_file || o.new_file || o.base.empty() || o.next.empty()) {
    return input_failure(
        "passtiming diff: give BASE NEW, or --base FILE... --new FILE... (not both)");
  }
  return o.gate ? run_gate(o) : run_median_diff(o);
}

}  // namespace

Action add_diff_command(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* sub = app.add_subcommand(
      "diff",
      "Compare the self time of each pass between a base and a new run (medians when a side has "
      "several profiles); exit status 1 when --fail-above is given and a pass regressed");
  add_diff_options(*sub, *options);
  add_gate_options(*sub, *options);
  return [options]() -> int { return run_diff(*options); };
}

}  // namespace passtiming::cli
