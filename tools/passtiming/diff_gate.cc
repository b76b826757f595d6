#include "diff_gate.h"

#include <fmt/format.h>

#include <array>
#include <unordered_map>

#include "commands.h"
#include "gate_report.h"
#include "passtiming/analysis/gate_measure.h"
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
  std::array<std::optional<GroupValues>, 5> by_measure;
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
    for (std::size_t m = 0; m < kMeasures.size(); ++m) {
      if (profile_has_measure(profile, kMeasures[m])) {
        run.by_measure[m] = measure_by_group(profile, by, kMeasures[m]);
      }
    }
    runs.push_back(std::move(run));
  });
  return runs;
}

std::vector<GroupValues> values_of(std::vector<LoadedRun>& runs, Measure measure) {
  std::vector<GroupValues> values;
  values.reserve(runs.size());
  for (LoadedRun& run : runs) {
    values.push_back(std::move(*run.by_measure[static_cast<std::size_t>(measure)]));
  }
  return values;
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
            "recorded: {}); record it with PASSTIMING_METRICS={}",
            run.path, measure_name(*asked), measure_name(*asked), describe_metrics(run.recorded),
            measure_name(*asked)));
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
Refusal check_enough_runs(std::size_t base_runs, std::size_t new_runs,
                          const GateSettings& settings) {
  const double smallest = smallest_p_value(base_runs, new_runs, settings.alternative);
  if (smallest <= settings.alpha) return std::nullopt;
  return input_failure(fmt::format(
      "passtiming diff: --gate with {} --base and {} --new profile(s): the smallest p-value "
      "the {} Mann-Whitney test can give is {:.3g}, above --alpha {:g}, so no pass could ever "
      "be flagged; give at least {} profiles per side",
      base_runs, new_runs, alternative_name(settings.alternative), smallest, settings.alpha,
      min_runs_per_side(settings.alpha, settings.alternative)));
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
  return result.regressions > 0 ? kExitRegression : kExitOk;
}

}  // namespace

int run_diff_gate(const GateOptions& o) {
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
  const Measure measure =
      asked ? *asked : (base.front().recorded.contains(Metric::cpu) ? Measure::cpu : Measure::wall);
  if (Refusal refused = read_floor(o, measure, settings)) return *refused;
  if (Refusal refused = check_enough_runs(base.size(), next.size(), settings)) return *refused;

  const GateResult result =
      evaluate_gate(values_of(base, measure), values_of(next, measure), settings);
  if (Refusal refused = check_power(result, settings, o, base.size(), next.size())) {
    return *refused;
  }
  return write_verdict(result, GateReportContext{by, measure, settings}, o);
}

}  // namespace passtiming::cli
