#pragma once
/// \file
/// The statistical regression gate of `passtiming diff --gate`: several runs
/// per side, and per group (pass, kernel or context) one value per run. A
/// group is a regression when three things hold at once:
///
/// 1. its new runs are significantly larger than its base runs grown by the
///    threshold and the floor, each base run b grown to b + max(|b| *
///    threshold_pct / 100, floor), so the null hypothesis is "new <= base
///    grown by the threshold and the floor", not "new <= base"; after
///    Holm's correction for testing every group at once, at family-wise
///    level `alpha`;
/// 2. its statistic grew by more than `threshold_pct` percent;
/// 3. and by more than `floor` (in the measure's unit).
///
/// What is compared of a group (GateStatistic), and by which test: by
/// default (evaluate_matched_gate) its executions matched across runs, each
/// execution's median over a side's runs summed, and the rank test of the
/// matched executions by permutations of the runs (matched_statistic.h);
/// or (evaluate_gate) the median of its runs' values, and the one-sided
/// Mann-Whitney U test (rank_test.h). Conditions 2 and 3 hold for the
/// statistic compared (GateRow::base_compared, new_compared).
///
/// A group's values are compared as measured or, when that spreads its
/// pooled runs less, each scaled by the rest of its run: value × (the pooled
/// median of the rests) / (the run's total less the value), so that what a
/// busy machine does to a whole run cancels and what the group does alone
/// stays; it is then flagged when it grew more than the rest of its runs.
/// (rss and ir, which may be negative, are compared as measured.)
///
/// The drift is the groups' common factor: the median of their ratios new
/// median / base median, weighted by the base median. It is flagged when
/// that factor is beyond the threshold, the runs' totals grew significantly
/// by the shifted test (its own test at `alpha`, which the shift makes
/// conservative) and by more than the floor, and no one group holds half
/// the weight (the factor would be that group's own change). A flagged
/// drift is reported apart, "every pass slower by 11%": the machine or a
/// global change, never hidden, never spread over the passes.
///
///     GateResult r = evaluate_gate(base_runs, new_runs, GateSettings{});
///     if (r.regressions > 0) return 1;

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "passtiming/analysis/gate_power.h"
#include "passtiming/analysis/matched_statistic.h"
#include "passtiming/analysis/rank_test.h"
#include "passtiming/analysis/run_speed.h"

namespace passtiming {

/// What the gate compares of each group, and how it tests it.
enum class GateStatistic {
  /// The matched totals of its executions (matched_statistic.h): each
  /// execution's median over a side's runs, summed; the rank test of the
  /// matched executions by permutations of the runs, the base grown by the
  /// threshold and the floor.
  matched,
  /// Its runs' values (each run's sum over the group's executions): the
  /// medians, and the Mann-Whitney U test of the new runs against the base
  /// runs grown by the threshold and the floor.
  runs,
};

/// "matched" or "runs".
std::string_view gate_statistic_name(GateStatistic statistic);

struct GateSettings {
  double alpha = 0.05;  ///< family-wise error rate over the tested groups
  Alternative alternative = Alternative::greater;
  double threshold_pct = 5;  ///< the new median must exceed the base median by more than this
  double floor = 1e6;        ///< ... and by more than this, in the measure's unit (1 ms in ns)
};

/// The speed of whole runs: a run's total is the sum of its groups' values.
struct GateDrift {
  double base_median = 0;  ///< median of the base runs' totals
  double new_median = 0;   ///< median of the new runs' totals
  /// The groups' common factor: the weighted median of their median
  /// ratios; 1 when no group is above 0 on both sides.
  double factor = 1;
  bool tested = false;  ///< whether the totals were tested (both medians above 0)
  double u_new = 0;
  std::optional<double> p_value;  ///< the shifted test of the totals, at alpha
  bool exact = false;
  /// Every group slower alike (see above).
  bool flagged = false;
};

enum class GateStatus {
  regression,  ///< significant, above the threshold and the floor
  ok,          ///< on both sides, not a regression
  appeared,    ///< in no base run, in some new run
  vanished,    ///< in some base run, in no new run
};

/// "regression", "ok", "appeared", "vanished".
std::string_view gate_status_name(GateStatus status);

/// One group's verdict.
struct GateRow {
  std::string key;
  GateStatus status = GateStatus::ok;
  double base_median = 0;  ///< over the base runs, a run without the group counting 0
  double new_median = 0;
  double delta() const { return new_median - base_median; }
  /// new_median / base_median; nullopt unless both are above 0.
  std::optional<double> ratio() const;
  /// Whether the group was tested: it is on both sides and its pooled runs
  /// leave room for a change above the threshold and the floor (see
  /// evaluate_gate). Untested groups have no p-value and are never
  /// regressions.
  bool tested = false;
  double u_new = 0;               ///< the rank test's U of the new runs (runs statistic)
  std::optional<double> p_value;  ///< the shifted test's p-value
  std::optional<double> p_holm;   ///< Holm-adjusted p-value, compared with alpha
  /// The p-value is exact: from the exact distribution of U, or every
  /// split of the runs enumerated (matched).
  bool exact = false;
  /// Whether the values compared are scaled by the rest of their runs (see
  /// evaluate_gate; with the matched statistic, divided by their runs'
  /// speeds: evaluate_matched_gate), or as measured.
  bool relative = false;
  /// The statistic compared, to which the threshold and the floor apply:
  /// the matched totals (matched), or the medians of the runs' values
  /// (runs); scaled by the rest of the runs when `relative`.
  double base_compared = 0;
  double new_compared = 0;
  bool above_threshold = false;  ///< new_compared exceeds base_compared by more than threshold_pct
  bool above_floor = false;      ///< ... and by more than floor
  /// For a tested group: the log spread of the values compared, pooled over
  /// the sides (pooled_log_spread; the runs' sums of the executions divided
  /// by their speeds with the matched statistic); nullopt when a value is
  /// not positive or a side has fewer than 3 runs.
  std::optional<double> spread;
  /// For a tested group: the log spread of the values whose medians the
  /// statistic compares (base_compared, new_compared), pooled over the
  /// sides: the runs' sums (with the matched statistic, of the executions
  /// divided by their speeds), which the few largest executions move; the
  /// same values as `spread` with the runs statistic.
  std::optional<double> compared_spread;
  /// With the matched statistic, for a tested group: the log spread of the
  /// runs' typical ratios weighed by the executions' sizes, the values the
  /// test's second lens compares (matched_statistic.h); nullopt otherwise.
  std::optional<double> size_spread;
  /// The smallest change, in percent of base_compared, that the gate flags
  /// with 95 % chance with these runs: the larger of the test's (at Holm's
  /// strictest level alpha / tested, from `spread`) and the statistic's
  /// growth past the threshold and the floor (from `compared_spread`)
  /// (detectable_change_pct); nullopt without a spread.
  std::optional<double> detectable_pct;
  /// The runs per side with which a change of twice the threshold would be
  /// flagged with 95 % chance, the larger of the two (runs_to_detect);
  /// nullopt without a spread, or when the floor is above twice the
  /// threshold of base_compared.
  std::optional<std::size_t> runs_for_twice_threshold;
};

/// Whether `row` is a tested group, not flagged, whose runs spread too much
/// for the gate to see a change of twice the threshold (its detectable
/// change is larger): its "ok" is not evidence that it did not regress, and
/// the verdict says so.
bool too_noisy_to_judge(const GateRow& row, const GateSettings& settings);

struct GateResult {
  /// Regressions first, then every other group; each part by delta, largest
  /// first, ties by key.
  std::vector<GateRow> rows;
  GateStatistic statistic = GateStatistic::runs;
  std::size_t base_runs = 0;
  std::size_t new_runs = 0;
  std::size_t tested = 0;  ///< groups tested (the size of the family Holm corrects for)
  std::size_t regressions = 0;
  GateDrift drift;
  /// The geometric mean of new_median / base_median over the groups on both
  /// sides whose medians are above 0 on both; nullopt when there is none.
  std::optional<double> geomean_ratio;
  std::size_t geomean_groups = 0;    ///< groups in the geometric mean
  std::size_t geomean_excluded = 0;  ///< groups on both sides left out: a median of 0 or less
  /// The smallest p-value the test can give with these run counts
  /// (smallest_p_value(), or smallest_matched_rank_p() for the matched
  /// statistic); with `tested` groups, Holm needs a p-value of at
  /// most alpha / tested for anything to be flagged.
  double smallest_p = 1;
};

/// Holm's step-down adjustment of `p_values`, in their order: the k-th
/// smallest p (from 0) is multiplied by (m - k), the results made
/// non-decreasing in that order and capped at 1. A hypothesis is rejected at
/// family-wise level alpha when its adjusted p is at most alpha.
std::vector<double> holm_adjust(std::span<const double> p_values);

/// The gate with the runs statistic over per-run values: base[i] maps each
/// group present in base run i to its value there, next likewise. Both
/// sides need at least one run. (The phases are gated so: one value per
/// path and run.)
GateResult evaluate_gate(const std::vector<std::unordered_map<std::string, double>>& base,
                         const std::vector<std::unordered_map<std::string, double>>& next,
                         const GateSettings& settings);

/// The gate with the matched statistic: base[i] holds base run i's
/// executions of each group. A group's value in a run (its medians, the
/// drift) is the sum of its executions there; what is tested is its
/// executions matched across the runs, an execution absent from a run
/// counting 0 there. Each of a group's executions in a run is divided by
/// the run's speed without the group when it ran (RunSpeeds::of: the
/// nearest executions' in time, given the runs' starts; else the whole
/// run's), wherever there is one (GateRow::relative), instead of being
/// scaled by the rest of the run's total as the runs statistic does: a
/// speed, a median over many executions, is not moved by the few large
/// noisy passes that move a run's total. A group is tested when
/// some split of its pooled runs could make its matched totals grow past
/// the threshold and the floor (largest_matched_growth): a choice made
/// without the sides, as for the runs statistic. Its one-sided test grows
/// each base run's value b of the group to grown_by_threshold(b), as the
/// rank test does, spread over the run's executions in proportion.
GateResult evaluate_matched_gate(const std::vector<RunExecutions>& base,
                                 const std::vector<RunExecutions>& next,
                                 const GateSettings& settings,
                                 const std::vector<RunStarts>& base_starts = {},
                                 const std::vector<RunStarts>& next_starts = {});

/// The base value a new value must exceed for a change beyond the
/// threshold and the floor: b + max(|b| * threshold_pct / 100, floor).
double grown_by_threshold(double base, const GateSettings& settings);

/// The largest growth of the median that the pooled runs could show.
struct MedianGrowth {
  double growth = 0;       ///< new median less base median, at most
  double base_median = 0;  ///< the base median of the split that shows it
};

/// Over every split of the pooled values of `base` and `next` into sides of
/// their sizes, the largest new median less base median: the median of the
/// next.size() largest values less the median of the base.size() smallest
/// (the median is monotone, so one split maximises both at once), with that
/// split's base median, against which the threshold is relative. It depends
/// on the pooled values only, not on which side each came from. Both sides
/// need at least one value.
///
///     largest_median_growth({10, 20, 30}, {11, 12, 13})  // {growth 9, base_median 11}
MedianGrowth largest_median_growth(std::span<const double> base, std::span<const double> next);

/// Whether the gate could flag anything at all with `result`'s run counts
/// and number of tested groups: smallest_p * tested <= alpha (for no tested
/// group, with one). When it is false, every verdict of
/// "no regression" would be silent, whatever the data.
bool gate_has_power(const GateResult& result, const GateSettings& settings);

/// The fewest runs per side with which gate_has_power() holds for `tested`
/// groups (at least 1); 0 when more than 1000 would be needed.
std::size_t runs_needed_per_side(std::size_t tested, const GateSettings& settings);

}  // namespace passtiming
