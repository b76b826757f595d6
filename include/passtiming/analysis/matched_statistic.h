#pragma once
/// \file
/// The gate's matched statistic and its permutation test. A pass runs many
/// times in one compile (once per function, loop or kernel), and a compile
/// of the same input runs the same executions each time, so each execution
/// can be matched across runs. The matched total of a side is, over the
/// executions, the sum of each execution's median over the side's runs.
/// A preemption, or a cache refilled after another process ran, lands in
/// one execution of one run: the median over runs of that execution leaves
/// it out, where the run's total (whose median over runs the Mann-Whitney
/// path compares) keeps it. On clang's GVNPass this narrowed the spread of
/// the two sides' ratio in an A/A gate from 2.0 % to 0.8 % (docs/gate.md).
///
/// The test is a permutation test of the runs on their executions' ranks.
/// Each execution's pooled values (both sides' runs) are ranked; a run's
/// score is the mean of its executions' ranks; the statistic is the sum of
/// the new runs' scores. Every execution counts alike, as in van Elteren's
/// test of strata: weighted by their size, the executions of one large
/// function's noise outvoted the many small ones that a change of a few
/// microseconds per execution made slower (zlib's inflate.c, GVNPass, +10 %
/// in 0 of 20 gates weighted, 20 of 20 alike, docs/gate.md). The other way
/// round, a change in a few large executions is outvoted by many small
/// unchanged ones (LCSSAPass, +10 %: 0 of 20), so the test has a second
/// lens, the executions by size: a run's second score is the sum of its
/// executions' ranks, each weighed by the execution's pooled median (a
/// weight of the pooled values, the same for every split). It sees what
/// the runs' totals would, the few large executions deciding, but each
/// still counts one rank, not its milliseconds: a preempted large
/// execution does not outvote the rest (LCSSAPass +10 %, the same draws of
/// 30 runs per side: 19 of 20 by size, 15 of 20 by the totals). Each
/// lens's sum of the new runs' scores is standardised by its mean and
/// standard deviation over the splits, and the test's statistic is the
/// larger of the two: one distribution over the splits for both keeps the
/// p-value exact, at the price of the larger of two (about a halved
/// level). The gate also requires the matched
/// totals to grow beyond the threshold and the floor.
/// Ranks leave a preempted execution one rank too high, not its 3 ms too
/// long; the ranks are those of the pooled values, so under the null
/// hypothesis (the runs of both sides exchangeable) the p-value, the share
/// of the splits of the pooled runs into sides of these sizes whose
/// statistic is at least the observed one, is exact. With one execution
/// per run (a module pass, a phase) it is the Mann-Whitney U test. One-sided,
/// each base run is first grown (the threshold and the floor:
/// regression_gate.h), so that the null hypothesis is "new at most base
/// grown by the threshold", as the shifted rank test's is. Every split is
/// enumerated when there are at most kExactSplitLimit (10 runs per side:
/// 184,756); else kRandomSplits splits drawn by a fixed generator (the same
/// p-value for the same runs on every machine), the p-value then (1 +
/// splits at least as far) / (1 + kRandomSplits), valid at every level
/// (Phipson and Smyth, 2010).
///
///     MatchedRuns runs{2, {{10, 11, 13, 14}, {20, 21, 26, 27}}};
///     matched_totals(runs);                      // {base 31, next 40}
///     matched_rank_test(runs, {1, 1}, Alternative::greater).p_value;  // 1/6

#include <cstddef>
#include <cstdint>
#include <vector>

#include "passtiming/analysis/rank_test.h"

namespace passtiming {

/// One group's executions matched across runs.
struct MatchedRuns {
  /// The first `base_runs` columns of every row are the base side's runs,
  /// the others the new side's; each side needs at least one run.
  std::size_t base_runs = 0;
  /// values[k][r]: execution k's value in run r (0 where run r lacks it);
  /// every row has one value per run of both sides.
  std::vector<std::vector<double>> values;
};

/// The matched totals of both sides: over the executions, the sum of each
/// execution's median over the side's runs (median_of: the mean of the two
/// middle values for an even count).
struct MatchedTotals {
  double base = 0;
  double next = 0;
};

MatchedTotals matched_totals(const MatchedRuns& runs);

/// An execution's size: the magnitude of the median of its values over
/// every run of both sides (median_of). The matched test's second lens
/// weighs each execution's rank by it; the power estimate weighs that
/// lens's typical ratios by it.
double execution_size(std::vector<double> values);

/// Over every split of the pooled runs into sides of these sizes, bounds on
/// what the matched totals could show: each execution's median over its
/// `next` largest pooled values less its median over its `base` smallest,
/// summed (no split can make the new total exceed the base total by more),
/// and the sum of those smallest medians (no split's base total is lower).
/// It depends on the pooled values only, not on which side each came from.
struct MatchedGrowth {
  double growth = 0;      ///< new total less base total, at most
  double base_total = 0;  ///< the base total, at least
};

MatchedGrowth largest_matched_growth(const MatchedRuns& runs);

/// Every split is enumerated when C(runs, base runs) is at most this (12
/// runs per side are 2,704,156 splits).
inline constexpr std::size_t kExactSplitLimit = 1000000;
/// Splits drawn when there are more.
inline constexpr std::size_t kRandomSplits = 99999;

struct MatchedTestResult {
  MatchedTotals totals;  ///< of the runs as given, the base not grown
  /// Each run's score, the base runs first: the mean of its executions'
  /// ranks among the pooled runs (1 to the number of runs, ties sharing the
  /// mean rank).
  std::vector<double> scores;
  double p_value = 1;  ///< in (0, 1]
  bool exact = false;  ///< every split enumerated (else kRandomSplits drawn)
};

/// The permutation test of the runs' scores, by both lenses (above).
/// One-sided (greater): the statistic is the larger of the two
/// standardised sums of the new runs' scores, the values of base run r
/// first multiplied by base_growth[r] (one factor per base run, each at
/// least 1: the threshold and the floor); two-sided: the larger of their
/// distances from their means over the splits, the base not grown
/// (`base_growth` unused).
MatchedTestResult matched_rank_test(const MatchedRuns& runs, const std::vector<double>& base_growth,
                                    Alternative alternative);

/// The smallest p-value matched_rank_test can give with these run counts:
/// 1 / C(n_base + n_new, n_base) (two-sided, twice that, capped at 1) when
/// every split is enumerated, else 1 / (1 + kRandomSplits).
double smallest_matched_rank_p(std::size_t n_base, std::size_t n_new, Alternative alternative);

}  // namespace passtiming
