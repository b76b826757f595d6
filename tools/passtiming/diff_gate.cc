#include "diff_gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "commands.h"
#include "gate_report.h"
#include "passtiming/analysis/gate_measure.h"
#include "passtiming/analysis/measure.h"
#include "passtiming/analysis/phase_totals.h"
#include "passtiming/analysis/regression_gate.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

using GroupValues = std::unordered_map<std::string, double>;

/// What the gate keeps of one profile: its name, the metrics it recorded and
/// its per-group sums of every measure it has (at most five small maps, so
/// the profiles themselves need not stay in memory while the measure is
/// chosen).
struct LoadedRun {
  std::string path;
  MetricSet recorded;
  ProfileMetrics metrics;  ///< with what was asked for but unavailable
  ProfileMetadata metadata;
  /// The sections' contexts (translation units, stages), sorted: what was
  /// compiled.
  std::vector<std::string> contexts;
  std::array<std::optional<GroupValues>, 5> by_measure;
  /// Each phase path's wall time (ns), by the path's depth; empty without
  /// phases.
  std::vector<GroupValues> phases;
};

constexpr std::array<Measure, 5> kMeasures{Measure::wall, Measure::cpu, Measure::instructions,
                                           Measure::rss, Measure::ir};

/// The floor when none is given: 1 ms for times; for counts, a figure of
/// about the same weight (a million instructions, a MiB, one IR unit).
double default_floor(Measure measure) {
  switch (measure) {
    case Measure::wall:
    case Measure::cpu: return 1e6;
    case Measure::instructions: return 1e6;
    case Measure::rss: return 1024.0 * 1024.0;
    case Measure::ir: return 1;
  }
  return 1e6;
}

std::vector<LoadedRun> load_side(const std::vector<std::string>& paths, GroupBy by) {
  std::vector<LoadedRun> runs;
  std::size_t index = 0;
  for_each_profile(paths, [&](Profile&& profile) {
    LoadedRun run;
    run.path = paths[index++];
    run.recorded = profile.metrics.recorded;
    run.metrics = profile.metrics;
    run.metadata = profile.metadata;
    for (const Section& section : profile.sections) run.contexts.push_back(section.context);
    std::sort(run.contexts.begin(), run.contexts.end());
    for (std::size_t m = 0; m < kMeasures.size(); ++m) {
      if (profile_has_measure(profile, kMeasures[m])) {
        run.by_measure[m] = measure_by_group(profile, by, kMeasures[m]);
      }
    }
    PhaseTotals phases;
    phases.add(profile);
    for (const PhaseTotal& row : phases.rows()) {
      if (run.phases.size() <= row.depth) run.phases.resize(row.depth + 1);
      run.phases[row.depth][row.path] = static_cast<double>(row.total_ns);
    }
    runs.push_back(std::move(run));
  });
  return runs;
}

/// Each run's executions of each group in `measure`, and when each began,
/// for the matched statistic: the profiles read again, once the measure is
/// known, so that the executions of only that measure are held.
struct SideRuns {
  std::vector<RunExecutions> executions;
  std::vector<RunStarts> starts;
};

SideRuns executions_of(const std::vector<std::string>& paths, GroupBy by, Measure measure) {
  SideRuns side;
  side.executions.reserve(paths.size());
  side.starts.reserve(paths.size());
  for_each_profile(paths, [&](Profile&& profile) {
    side.executions.push_back(
        measure_by_execution(profile, by, measure, &side.starts.emplace_back()));
  });
  return side;
}

std::vector<GroupValues> values_of(std::vector<LoadedRun>& runs, Measure measure) {
  std::vector<GroupValues> values;
  values.reserve(runs.size());
  for (LoadedRun& run : runs) {
    values.push_back(std::move(*run.by_measure[static_cast<std::size_t>(measure)]));
  }
  return values;
}

/// The most precise measure every run recorded: retired instructions (not
/// moved by the machine's load), then CPU time, then wall time.
Measure best_measure(const std::vector<LoadedRun>& base, const std::vector<LoadedRun>& next) {
  for (const Measure measure : {Measure::instructions, Measure::cpu}) {
    const auto has = [measure](const LoadedRun& run) {
      return run.by_measure[static_cast<std::size_t>(measure)].has_value();
    };
    if (std::all_of(base.begin(), base.end(), has) && std::all_of(next.begin(), next.end(), has)) {
      return measure;
    }
  }
  return Measure::wall;
}

/// The steps below return the exit status of a refusal (its message
/// printed), or nullopt to go on.
using Refusal = std::optional<int>;

/// The settings of the test itself: --alpha, --threshold-pct,
/// --alternative; and --floor-ms and --floor, not both (read once the
/// measure is known, by read_floor()).
Refusal read_test_settings(const GateOptions& o, GateSettings& settings) {
  if (!parse_number_option(o.alpha, "--alpha", settings.alpha)) return kExitUsage;
  if (!(settings.alpha > 0 && settings.alpha < 1)) {
    return input_failure(
        fmt::format("passtiming diff: --alpha must be above 0 and below 1, not '{}'", o.alpha));
  }
  if (!parse_number_option(o.threshold_pct, "--threshold-pct", settings.threshold_pct)) {
    return kExitUsage;
  }
  settings.alternative =
      o.alternative == "two-sided" ? Alternative::two_sided : Alternative::greater;
  if (o.floor && o.floor_ms) {
    return input_failure("passtiming diff: give --floor-ms or --floor, not both");
  }
  return std::nullopt;
}

/// A measure asked for must be in every profile; and every profile must
/// have recorded the same metrics, even for wall time: sampling a metric
/// costs time inside every pass, so wall times recorded with and without it
/// are not the same quantity.
Refusal check_recorded_metrics(const std::vector<LoadedRun>& base,
                               const std::vector<LoadedRun>& next, std::optional<Measure> asked) {
  if (asked) {
    for (const std::vector<LoadedRun>* side : {&base, &next}) {
      for (const LoadedRun& run : *side) {
        if (run.by_measure[static_cast<std::size_t>(*asked)]) continue;
        return input_failure(fmt::format(
            "passtiming diff: {} did not record the {} metric that --measure {} needs (it "
            "recorded: {}); {}",
            run.path, measure_name(*asked), measure_name(*asked), describe_metrics(run.recorded),
            missing_measure_advice(run.metrics, *asked)));
      }
    }
  }
  const LoadedRun& reference = base.front();
  for (const std::vector<LoadedRun>* side : {&base, &next}) {
    for (const LoadedRun& run : *side) {
      if (run.recorded == reference.recorded) continue;
      return input_failure(fmt::format(
          "passtiming diff: {} recorded the metrics {} but {} recorded {}: the profiles "
          "compared by --gate must all record the same metrics (PASSTIMING_METRICS)",
          reference.path, describe_metrics(reference.recorded), run.path,
          describe_metrics(run.recorded)));
    }
  }
  return std::nullopt;
}

/// settings.floor in the measure's unit: --floor-ms (time measures only),
/// --floor, or default_floor().
Refusal read_floor(const GateOptions& o, Measure measure, GateSettings& settings) {
  if (o.floor_ms) {
    if (measure != Measure::wall && measure != Measure::cpu) {
      return input_failure(fmt::format(
          "passtiming diff: --floor-ms is for the time measures (wall, cpu); give --floor in {} "
          "for --measure {}",
          measure_unit(measure), measure_name(measure)));
    }
    double ms = 0;
    if (!parse_number_option(*o.floor_ms, "--floor-ms", ms)) return kExitUsage;
    settings.floor = ms * 1e6;
  } else if (o.floor) {
    if (!parse_number_option(*o.floor, "--floor", settings.floor)) return kExitUsage;
  } else {
    settings.floor = default_floor(measure);
  }
  return std::nullopt;
}

/// Too few runs: the exact test has a smallest p-value, and when it is
/// above alpha no group can ever be flagged, which would be a silent pass.
Refusal check_enough_runs(std::size_t base_runs, std::size_t new_runs, const GateSettings& settings,
                          GateStatistic statistic) {
  const double smallest = statistic == GateStatistic::matched
                              ? smallest_matched_rank_p(base_runs, new_runs, settings.alternative)
                              : smallest_p_value(base_runs, new_runs, settings.alternative);
  if (smallest <= settings.alpha) return std::nullopt;
  return input_failure(fmt::format(
      "passtiming diff: --gate with {} --base and {} --new profile(s): the smallest p-value "
      "the {} {} test can give is {:.3g}, above --alpha {:g}, so no pass could ever "
      "be flagged; give at least {} profiles per side",
      base_runs, new_runs, alternative_name(settings.alternative),
      statistic == GateStatistic::matched ? "matched rank" : "Mann-Whitney", smallest,
      settings.alpha, min_runs_per_side(settings.alpha, settings.alternative)));
}

/// After Holm's correction over the groups tested, a gate whose runs cannot
/// reach the corrected level could flag nothing: refused likewise.
Refusal check_power(const GateResult& result, const GateSettings& settings, const GateOptions& o,
                    std::size_t base_runs, std::size_t new_runs) {
  if (gate_has_power(result, settings)) return std::nullopt;
  return input_failure(fmt::format(
      "passtiming diff: --gate with {} --base and {} --new profile(s) tested {} {}: after "
      "Holm's correction a p-value must be at most {:.3g} (--alpha {:g} / {}), and the "
      "smallest these runs can give is {:.3g}, so none could be flagged; give at least {} "
      "profiles per side",
      base_runs, new_runs, result.tested, o.by == "pass" ? "passes" : o.by + "s",
      settings.alpha / static_cast<double>(result.tested), settings.alpha, result.tested,
      result.smallest_p, runs_needed_per_side(result.tested, settings)));
}

/// Each run must be its own profile: a file given twice, or two files of one
/// recorded run (same process, host and start), would count one run as
/// several and make any difference look significant.
Refusal check_distinct_runs(const std::vector<LoadedRun>& base,
                            const std::vector<LoadedRun>& next) {
  std::vector<std::pair<std::string, const LoadedRun*>> seen;
  for (const std::vector<LoadedRun>* side : {&base, &next}) {
    for (const LoadedRun& run : *side) {
      std::error_code error;
      std::string canonical = std::filesystem::weakly_canonical(run.path, error).string();
      if (error) canonical = run.path;
      for (const auto& [other_path, other] : seen) {
        if (other_path == canonical) {
          return input_failure(fmt::format(
              "passtiming diff: {} is given more than once (--base and --new together): each "
              "run must be a profile of its own",
              run.path));
        }
        const ProfileMetadata& a = run.metadata;
        if (a.pid != 0 && a == other->metadata) {
          return input_failure(fmt::format(
              "passtiming diff: {} and {} are the same run (pid {} on {}, started {}): each run "
              "must be a profile of its own",
              other->path, run.path, a.pid, a.host, a.start_time));
        }
      }
      seen.emplace_back(std::move(canonical), &run);
    }
  }
  return std::nullopt;
}

/// A command line without its program: two compilers of one compile differ
/// in the program alone.
std::string_view arguments_of(std::string_view command) {
  const std::size_t space = command.find(' ');
  return space == std::string_view::npos ? std::string_view() : command.substr(space + 1);
}

/// What makes the sides not the same compile, as warnings (refusals with
/// --strict): other arguments or other inputs compiled (the program itself
/// may differ: that is the change).
std::vector<std::string> identity_warnings(const std::vector<LoadedRun>& base,
                                           const std::vector<LoadedRun>& next) {
  std::vector<std::string> warnings;
  const LoadedRun& a = base.front();
  for (const LoadedRun& b : next) {
    if (arguments_of(a.metadata.command) != arguments_of(b.metadata.command)) {
      warnings.push_back(fmt::format("the sides ran different commands: {} ran '{}', {} ran '{}'",
                                     a.path, a.metadata.command, b.path, b.metadata.command));
      break;
    }
  }
  for (const LoadedRun& b : next) {
    if (a.contexts != b.contexts) {
      warnings.push_back(
          fmt::format("the sides compiled different inputs: {} has the sections {}, {} has {}",
                      a.path, fmt::join(a.contexts, ", "), b.path, fmt::join(b.contexts, ", ")));
      break;
    }
  }
  return warnings;
}

/// The warning that the sides ran as two blocks rather than alternately,
/// from the profiles' start times; never a refusal, since only `passtiming
/// gate` can alternate them.
std::optional<std::string> interleaving_warning(const std::vector<LoadedRun>& base,
                                                const std::vector<LoadedRun>& next) {
  auto span = [](const std::vector<LoadedRun>& side) {
    std::string first = side.front().metadata.start_time, last = first;
    for (const LoadedRun& run : side) {
      first = std::min(first, run.metadata.start_time);
      last = std::max(last, run.metadata.start_time);
    }
    return std::pair{first, last};
  };
  const auto [base_first, base_last] = span(base);
  const auto [new_first, new_last] = span(next);
  // Start times are whole seconds: only sides that cannot have alternated
  // are named.
  if (base_first.empty() || new_first.empty() ||
      !(base_last < new_first || new_last < base_first)) {
    return std::nullopt;
  }
  return fmt::format(
      "the sides were not interleaved: every {} run started before every {} run, so a change "
      "of the machine between them reads as a change of the compiler; alternate them "
      "(passtiming gate does)",
      base_last < new_first ? "base" : "new", base_last < new_first ? "new" : "base");
}

/// The sides' warnings on stderr, one a line.
void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "passtiming diff: warning: %s\n", warning.c_str());
  }
}

/// Writes the verdict in --format to --output; the exit status says whether
/// a group regressed.
int write_verdict(const GateResult& result, const GateReportContext& context,
                  const GateOptions& o) {
  const std::string text = o.format == "json"       ? render_gate_json(result, context)
                           : o.format == "markdown" ? render_gate_markdown(result, context)
                                                    : render_gate_text(result, context);
  try {
    write_output(o.output, text);
  } catch (const std::exception& e) {
    return input_failure(e.what());
  }
  return gate_failed(result, context) ? kExitRegression : kExitOk;
}

/// The gate of the runs' phases, when any run has them: each phase path's
/// wall time per run, tested as the passes are (alpha, threshold,
/// alternative), with the floor in ns: --floor-ms, else 1 ms. A phase's
/// time holds its children's, so the paths are gated one depth at a time:
/// the rows of one depth ("(untimed)" rows included) share a run's time
/// without overlap, as the gate's scaling by the rest of a run needs; Holm
/// corrects within a depth. Rows: depth 0 first, then 1, ...
std::optional<GateResult> phase_gate(const std::vector<LoadedRun>& base,
                                     const std::vector<LoadedRun>& next, const GateOptions& o,
                                     GateSettings settings) {
  const auto has = [](const LoadedRun& run) { return !run.phases.empty(); };
  if (std::none_of(base.begin(), base.end(), has) && std::none_of(next.begin(), next.end(), has)) {
    return std::nullopt;
  }
  double floor_ms = 1;
  if (o.floor_ms) parse_number_option(*o.floor_ms, "--floor-ms", floor_ms);  // read before
  settings.floor = floor_ms * 1e6;
  std::size_t depths = 0;
  for (const std::vector<LoadedRun>* side : {&base, &next}) {
    for (const LoadedRun& run : *side) depths = std::max(depths, run.phases.size());
  }
  GateResult all;
  all.base_runs = base.size();
  all.new_runs = next.size();
  for (std::size_t depth = 0; depth < depths; ++depth) {
    auto at_depth = [depth](const std::vector<LoadedRun>& side) {
      std::vector<GroupValues> values;
      for (const LoadedRun& run : side) {
        values.push_back(depth < run.phases.size() ? run.phases[depth] : GroupValues{});
      }
      return values;
    };
    GateResult level = evaluate_gate(at_depth(base), at_depth(next), settings);
    all.tested += level.tested;
    all.regressions += level.regressions;
    all.smallest_p = level.smallest_p;
    all.rows.insert(all.rows.end(), std::make_move_iterator(level.rows.begin()),
                    std::make_move_iterator(level.rows.end()));
  }
  return all;
}

}  // namespace

std::variant<int, EvaluatedGate> evaluate_diff_gate(const GateOptions& o) {
  GateSettings settings;
  if (Refusal refused = read_test_settings(o, settings)) return *refused;
  std::optional<Measure> asked;
  if (o.measure) asked = parse_measure(*o.measure);  // CLI11 checked the word
  const GroupBy by = *parse_group_by(o.by);

  std::vector<LoadedRun> base, next;
  try {
    base = load_side(o.base, by);
    next = load_side(o.next, by);
  } catch (const std::exception& e) {
    return input_failure(e.what());
  }
  if (Refusal refused = check_recorded_metrics(base, next, asked)) return *refused;
  if (Refusal refused = check_distinct_runs(base, next)) return *refused;
  std::vector<std::string> warnings = identity_warnings(base, next);
  if (o.strict && !warnings.empty()) {
    return input_failure(fmt::format("passtiming diff: {} (--strict)", warnings.front()));
  }
  if (std::optional<std::string> warning = interleaving_warning(base, next)) {
    warnings.push_back(std::move(*warning));
  }
  // A refusal from here on is said after the warnings, which may explain it.
  const auto refuse = [&warnings](int status) {
    print_warnings(warnings);
    return status;
  };
  const Measure measure = asked ? *asked : best_measure(base, next);
  if (Refusal refused = read_floor(o, measure, settings)) return refuse(*refused);
  const GateStatistic statistic =
      o.statistic == "runs" ? GateStatistic::runs : GateStatistic::matched;
  if (Refusal refused = check_enough_runs(base.size(), next.size(), settings, statistic)) {
    return refuse(*refused);
  }

  GateResult result;
  if (statistic == GateStatistic::matched) {
    try {
      const SideRuns base_side = executions_of(o.base, by, measure);
      const SideRuns new_side = executions_of(o.next, by, measure);
      result = evaluate_matched_gate(base_side.executions, new_side.executions, settings,
                                     base_side.starts, new_side.starts);
    } catch (const std::exception& e) {
      return refuse(input_failure(e.what()));
    }
  } else {
    result = evaluate_gate(values_of(base, measure), values_of(next, measure), settings);
  }
  if (Refusal refused = check_power(result, settings, o, base.size(), next.size())) {
    return refuse(*refused);
  }
  EvaluatedGate gate{std::move(result),
                     GateReportContext{by, measure, settings, !asked, warnings, std::nullopt}};
  gate.context.phases = phase_gate(base, next, o, settings);
  return gate;
}

int write_diff_gate(const EvaluatedGate& gate, const GateOptions& o) {
  print_warnings(gate.context.warnings);
  return write_verdict(gate.result, gate.context, o);
}

int run_diff_gate(const GateOptions& o) {
  std::variant<int, EvaluatedGate> gate = evaluate_diff_gate(o);
  if (const int* refused = std::get_if<int>(&gate)) return *refused;
  return write_diff_gate(std::get<EvaluatedGate>(gate), o);
}

void add_gate_settings(CLI::App& sub, GateOptions& g, const std::string& prefix) {
  sub.add_option("--measure", g.measure,
                 prefix +
                     "wall, cpu, instructions, rss or ir (default: the best every "
                     "profile recorded: instructions, then cpu, then wall)")
      ->check(CLI::IsMember({"wall", "cpu", "instructions", "rss", "ir"}));
  sub.add_option("--statistic", g.statistic,
                 prefix +
                     "matched (default: each execution's median over a side's runs, summed; "
                     "its ranks tested by permutations of the runs) or runs (each run's sum; "
                     "Mann-Whitney U)")
      ->check(CLI::IsMember({"matched", "runs"}));
  sub.add_option("--alpha", g.alpha,
                 prefix + "family-wise error rate over the tested passes (default 0.05)")
      ->type_name("RATE")
      ->check(non_negative_number());
  sub.add_option("--alternative", g.alternative,
                 prefix + "greater (default: is the new side larger?) or two-sided")
      ->check(CLI::IsMember({"greater", "two-sided"}));
  sub.add_option("--threshold-pct", g.threshold_pct,
                 prefix +
                     "the new runs must exceed the base runs grown by more than this "
                     "many percent (default 5)")
      ->type_name("PCT")
      ->check(non_negative_number());
  sub.add_option("--floor-ms", g.floor_ms,
                 prefix + "... and by more than this many ms (default 1; wall and cpu)")
      ->type_name("MS")
      ->check(non_negative_number());
  sub.add_option("--floor", g.floor, prefix + "... and by more than this, in the measure's unit")
      ->type_name("NUMBER")
      ->check(non_negative_number());
  sub.add_flag("--strict", g.strict,
               prefix + "refuse sides whose commands or inputs differ (default: a warning)");
}

}  // namespace passtiming::cli
