// The gate's matched statistic (each execution's median over a side's runs,
// summed) and its permutation test, against values worked out by hand or by
// enumerating the splits, and the gate's verdict with it on runs built here.

#include "passtiming/analysis/matched_statistic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "passtiming/analysis/gate_measure.h"
#include "passtiming/analysis/rank_test.h"
#include "passtiming/analysis/regression_gate.h"
#include "passtiming/analysis/run_speed.h"

namespace passtiming {
namespace {

// Two executions, three runs per side; base run 3 was preempted during
// execution a (+20) and base run 2 during execution b (+20).
const MatchedRuns kPreempted{3, {{10, 10, 30, 11, 11, 11}, {20, 40, 20, 22, 22, 22}}};

TEST(MatchedStatisticTest, EachExecutionsMedianOverTheRunsSummed) {
  // Base: median(10, 10, 30) + median(20, 40, 20) = 10 + 20; new: 11 + 22.
  const MatchedTotals totals = matched_totals(kPreempted);
  EXPECT_DOUBLE_EQ(totals.base, 30);
  EXPECT_DOUBLE_EQ(totals.next, 33);
  // The runs' sums (30, 50, 50 against 33, 33, 33) have medians 50 and 33:
  // the preemptions make a +10 % change read as -34 %. An even count takes
  // the mean of the two middle values.
  const MatchedRuns even{2, {{10, 11, 13, 14}, {20, 21, 26, 27}}};
  EXPECT_DOUBLE_EQ(matched_totals(even).base, 10.5 + 20.5);
  EXPECT_DOUBLE_EQ(matched_totals(even).next, 13.5 + 26.5);
}

TEST(MatchedStatisticTest, TheLargestGrowthAnySplitCouldShow) {
  // a pooled: 10 10 11 11 11 30, smallest three's median 10, largest
  // three's 11; b: 20 20 22 22 22 40, 20 and 22. Growth at most 1 + 2,
  // from a base total of at least 10 + 20.
  const MatchedGrowth most = largest_matched_growth(kPreempted);
  EXPECT_DOUBLE_EQ(most.growth, 3);
  EXPECT_DOUBLE_EQ(most.base_total, 30);
}

TEST(MatchedStatisticTest, RunScoresAndExactPValues) {
  // Ranks of a: 10 10 -> 1.5, 30 -> 6, 11 11 11 -> 4; of b: 20 20 -> 1.5,
  // 40 -> 6, 22 22 22 -> 4. Scores, the mean over the two executions: base
  // 1.5, 3.75, 3.75; new 4, 4, 4. The preempted runs are a rank too high,
  // not 20 too slow.
  MatchedTestResult r = matched_rank_test(kPreempted, {1, 1, 1}, Alternative::greater);
  ASSERT_EQ(r.scores.size(), 6u);
  const std::vector<double> scores{1.5, 3.75, 3.75, 4, 4, 4};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(r.scores[i], scores[i]) << i;
  // The new runs' scores sum to 12, the most any 3 of them can: 1.24
  // standard deviations above the splits' mean, 10.5 (their variance
  // 3 * 3 / (6 * 5) * 4.875). By size, b (pooled median 22) weighs twice
  // a (11): the scores 1.5, 4.5, 3, 4, 4, 4, the new runs again 12, 1.12
  // above the mean. The statistic is the larger of the two, 1.24; of the
  // C(6, 3) = 20 splits, the observed one and the 3 that put base run 2
  // (b's preempted 40) with two new runs (12.5 by size, 1.49 above) reach
  // it: p = 4/20. The second lens costs this small a case power; it sees a
  // change that sits in one large execution (OneLargeExecutionSlower
  // below).
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.p_value, 4.0 / 20);
  EXPECT_DOUBLE_EQ(r.totals.base, 30);  // the totals of the runs as given
  EXPECT_DOUBLE_EQ(r.totals.next, 33);
  // Two-sided, the distances: those 4, the base runs' own split (scores 9,
  // as far below), and the 3 that put base runs 1 and 3 with a new run (8.5
  // by size, 1.49 below): 8/20.
  EXPECT_DOUBLE_EQ(matched_rank_test(kPreempted, {1, 1, 1}, Alternative::two_sided).p_value,
                   8.0 / 20);

  // Sides of 4, overlapping: base totals 11.5 + 5.5 = 17, new 13.5 + 6.5 =
  // 20. Of the C(8, 4) = 70 splits, 4 are as far (by enumeration).
  const MatchedRuns overlap{4, {{10, 12, 11, 13, 12, 14, 13, 15}, {5, 6, 7, 5, 6, 7, 8, 6}}};
  r = matched_rank_test(overlap, {1, 1, 1, 1}, Alternative::greater);
  EXPECT_DOUBLE_EQ(r.totals.base, 17);
  EXPECT_DOUBLE_EQ(r.totals.next, 20);
  EXPECT_DOUBLE_EQ(r.p_value, 4.0 / 70);
  // The base grown by 5 %: 4 splits as high (by enumeration).
  EXPECT_DOUBLE_EQ(
      matched_rank_test(overlap, {1.05, 1.05, 1.05, 1.05}, Alternative::greater).p_value, 4.0 / 70);
  EXPECT_DOUBLE_EQ(matched_rank_test(overlap, {1, 1, 1, 1}, Alternative::two_sided).p_value,
                   8.0 / 70);
}

TEST(MatchedStatisticTest, OneExecutionPerRunIsTheMannWhitneyTest) {
  // A module pass, or a phase: the scores are the runs' ranks, and the
  // p-value that of the exact rank test.
  const MatchedRuns one{5, {{3, 9, 1, 7, 4, 10, 2, 8, 6, 5}}};
  const std::vector<double> base{3, 9, 1, 7, 4}, next{10, 2, 8, 6, 5};
  EXPECT_DOUBLE_EQ(
      matched_rank_test(one, std::vector<double>(5, 1.0), Alternative::greater).p_value,
      mann_whitney_u(base, next, Alternative::greater).p_value);
  EXPECT_DOUBLE_EQ(
      matched_rank_test(one, std::vector<double>(5, 1.0), Alternative::two_sided).p_value,
      mann_whitney_u(base, next, Alternative::two_sided).p_value);
}

TEST(MatchedStatisticTest, SmallestPValue) {
  EXPECT_DOUBLE_EQ(smallest_matched_rank_p(3, 3, Alternative::greater), 1.0 / 20);
  EXPECT_DOUBLE_EQ(smallest_matched_rank_p(10, 10, Alternative::greater), 1.0 / 184756);
  // 13 runs per side, 10,400,600 splits: drawn, so 1 / (1 + 99,999).
  EXPECT_DOUBLE_EQ(smallest_matched_rank_p(13, 13, Alternative::greater), 1.0 / 100000);
}

TEST(MatchedStatisticTest, OneLargeExecutionSlower) {
  // A pass of one 10 ms execution and 20 of 10 to 14 us, six runs per side;
  // the new side's large execution 12 % slower, the small ones as they
  // were: the pass's total grew 11.7 %. Every execution counting alike,
  // the 20 unchanged ones outvote the one that changed: with each base run
  // grown by 5 %, no split scores lower than the observed one (p = 1). By
  // size, the large execution weighs about a thousand times a small one,
  // and in it (10.1 to 10.3 ms grown to 10.6 to 10.9, against 11.1 to
  // 11.3) every new run is above every base run. The statistic, the
  // larger of the two standardised, reaches the observed one in 2 of the
  // C(12, 6) = 924 splits (by enumeration): p = 2/924.
  MatchedRuns runs{6, {{10.0, 10.1, 9.9, 10.05, 9.95, 10.02}}};
  for (const double base : {10.03, 9.97, 10.08, 9.92, 10.0, 10.06}) {
    runs.values[0].push_back(base * 1.12);
  }
  for (int k = 0; k < 20; ++k) {
    std::vector<double> row;
    for (int r = 0; r < 12; ++r) row.push_back(0.010 + 0.001 * ((k * 7 + r * 3) % 5));
    runs.values.push_back(row);
  }
  const MatchedTestResult r =
      matched_rank_test(runs, std::vector<double>(6, 1.05), Alternative::greater);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 924);
}

/// One pass "p" of five executions of about 4 ms, ten runs per side, in ms;
/// in run r, execution r % 5 was preempted by preempted[r] ms. The new runs
/// are `factor` times slower.
std::vector<RunExecutions> preempted_runs(const std::vector<double>& preempted, double factor) {
  std::vector<RunExecutions> runs(10);
  for (std::size_t r = 0; r < 10; ++r) {
    for (std::size_t k = 0; k < 5; ++k) {
      const double ms =
          (4 + 0.01 * static_cast<double>(k) + 0.002 * static_cast<double>(r)) * factor +
          (r % 5 == k ? preempted[r] : 0.0);
      runs[r]["p"]["f" + std::to_string(k)] = ms * 1e6;
    }
  }
  return runs;
}

TEST(MatchedStatisticTest, TheGateSeesTheChangeThroughThePreemptions) {
  const std::vector<double> base_preempted{0.0, 5.0, 1.0, 4.0, 0.5, 3.0, 6.0, 2.0, 0.2, 4.5};
  const std::vector<double> new_preempted{4.0, 0.3, 5.5, 1.0, 3.5, 0.0, 2.5, 6.0, 1.5, 5.0};
  const std::vector<RunExecutions> base = preempted_runs(base_preempted, 1.0);
  // +10 %: matched totals 20.155 and 22.1716 ms (+10.0 %, +2.02 ms). The
  // test grows each base run by 5 % (above 1 ms: the runs are 20.1 to 26.1
  // ms); then every new run scores above every base run, and of the
  // 184,756 splits only the observed one is that far (by enumeration: each
  // preemption is one execution's rank, by either lens, where the runs'
  // totals it moves let 4 other splits rank as high).
  GateResult r = evaluate_matched_gate(base, preempted_runs(new_preempted, 1.10), GateSettings{});
  EXPECT_EQ(r.statistic, GateStatistic::matched);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_FALSE(r.rows[0].relative);  // one pass: no rest to weigh it by
  EXPECT_NEAR(r.rows[0].base_compared, 20.155e6, 1e-3);
  EXPECT_NEAR(r.rows[0].new_compared, 22.1716e6, 1e-3);
  EXPECT_TRUE(r.rows[0].tested);
  EXPECT_TRUE(r.rows[0].exact);
  EXPECT_DOUBLE_EQ(*r.rows[0].p_value, 1.0 / 184756);
  EXPECT_EQ(r.regressions, 1u);
  // The runs' sums, spread by the preemptions (up to 6 ms), hide it
  // from the rank test of the runs.
  std::vector<std::unordered_map<std::string, double>> base_sums, new_sums;
  for (const RunExecutions& run : base) {
    double sum = 0;
    for (const auto& entry : run.at("p")) sum += entry.second;
    base_sums.push_back({{"p", sum}});
  }
  for (const RunExecutions& run : preempted_runs(new_preempted, 1.10)) {
    double sum = 0;
    for (const auto& entry : run.at("p")) sum += entry.second;
    new_sums.push_back({{"p", sum}});
  }
  EXPECT_EQ(evaluate_gate(base_sums, new_sums, GateSettings{}).regressions, 0u);

  // +4 %, under the threshold: matched totals +4.0 % (+0.81 ms). No split
  // of the pooled runs could make them differ by more than 5 % (nor by
  // more than the 1 ms floor), so the pass is not tested at all.
  r = evaluate_matched_gate(base, preempted_runs(new_preempted, 1.04), GateSettings{});
  EXPECT_NEAR(r.rows[0].new_compared - r.rows[0].base_compared, 0.80724e6, 1e-3);
  EXPECT_FALSE(r.rows[0].tested);
  EXPECT_FALSE(r.rows[0].p_value.has_value());
  EXPECT_EQ(r.regressions, 0u);
  // Against a threshold of 2 % and no floor, it is a regression: the base
  // grown by 2 %, every new run still scores above every base run (only
  // the observed split as far, as above).
  GateSettings low;
  low.threshold_pct = 2;
  low.floor = 0;
  r = evaluate_matched_gate(base, preempted_runs(new_preempted, 1.04), low);
  EXPECT_TRUE(r.rows[0].tested);
  EXPECT_DOUBLE_EQ(*r.rows[0].p_value, 1.0 / 184756);
  EXPECT_EQ(r.regressions, 1u);
}

TEST(MatchedStatisticTest, EachRunIsDividedByItsSpeed) {
  // Four runs per side, each at a speed f of the machine: p's five
  // executions of about 4 ms, 10 % slower on the new side; q's 60 of 1..60
  // ms, unchanged. Of the pooled medians (q's 1.05 k, p's 4.4), the larger
  // half counts q28..q60, 33 executions: each run's speed without p is
  // f / 1.05, and p's executions divided by it are 1.05 (4 + 0.001 k) on
  // the base side, 1.1 times that on the new: every new run above every
  // base run grown by 5 %.
  const std::vector<double> f{1.0, 1.2, 0.9, 1.1, 1.1, 0.9, 1.2, 1.0};
  std::vector<RunExecutions> base(4), next(4);
  for (std::size_t r = 0; r < 8; ++r) {
    RunExecutions& run = r < 4 ? base[r] : next[r - 4];
    for (int k = 1; k <= 5; ++k) {
      run["p"]["p" + std::to_string(k)] = (4 + 0.001 * k) * f[r] * (r < 4 ? 1.0 : 1.1) * 1e6;
    }
    for (int k = 1; k <= 60; ++k) run["q"]["q" + std::to_string(k)] = k * f[r] * 1e6;
  }
  const GateResult r = evaluate_matched_gate(base, next, GateSettings{});
  const auto row =
      std::find_if(r.rows.begin(), r.rows.end(), [](const GateRow& g) { return g.key == "p"; });
  ASSERT_NE(row, r.rows.end());
  EXPECT_TRUE(row->relative);
  EXPECT_NEAR(row->base_compared, 1.05 * 20.015e6, 1e-3);
  EXPECT_NEAR(row->new_compared, 1.1 * 1.05 * 20.015e6, 1e-3);
  EXPECT_DOUBLE_EQ(*row->p_value, 1.0 / 70);  // C(8, 4) = 70 splits
  // q has no speed without itself (p's executions are too few and too
  // small): as measured, tested, and Holm's family is two.
  EXPECT_EQ(r.tested, 2u);
  EXPECT_DOUBLE_EQ(*row->p_holm, 2.0 / 70);
  EXPECT_EQ(row->status, GateStatus::regression);
  EXPECT_EQ(r.regressions, 1u);
}

TEST(MatchedStatisticTest, AnExecutionAbsentFromARunCountsZero) {
  // Execution g ran in the second base run only: 0, 3 against 0, 0.
  const std::vector<RunExecutions> base{{{"p", {{"f", 10}}}}, {{"p", {{"f", 12}, {"g", 3}}}}};
  const std::vector<RunExecutions> next{{{"p", {{"f", 20}}}}, {{"p", {{"f", 22}}}}};
  GateSettings settings;
  settings.floor = 0;
  const GateResult r = evaluate_matched_gate(base, next, settings);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(r.rows[0].base_compared, 11 + 1.5);
  EXPECT_DOUBLE_EQ(r.rows[0].new_compared, 21);
  EXPECT_DOUBLE_EQ(r.rows[0].base_median, 12.5);  // the runs' sums: 10 and 15
}

TEST(MatchedStatisticTest, RunSpeedsFromTheOtherGroupsLargerExecutions) {
  // q's 60 executions of 1..60, run 1 10 % slower and run 3 10 % faster
  // than runs 0 and 2; p's one execution, 1 in every run; a's, 5 in the
  // new runs only, is not counted. Pooled medians: q's 1..60 (runs 1 and 3
  // cancel), p's 1; their median is 30, which leaves q30..q60 counted: 31,
  // more than the 30 a speed needs.
  const auto run = [](double factor, bool with_a) {
    RunExecutions out{{"p", {{"p1", 1}}}};
    for (int k = 1; k <= 60; ++k) out["q"]["q" + std::to_string(k)] = k * factor;
    if (with_a) out["a"]["a1"] = 5;
    return out;
  };
  const std::vector<RunExecutions> base{run(1, false), run(1.1, false)};
  const std::vector<RunExecutions> next{run(1, true), run(0.9, true)};
  const RunSpeeds speeds(base, next);
  const std::vector<double> without_p = speeds.without("p");
  ASSERT_EQ(without_p.size(), 4u);
  EXPECT_DOUBLE_EQ(without_p[0], 1);
  EXPECT_DOUBLE_EQ(without_p[1], 1.1);
  EXPECT_DOUBLE_EQ(without_p[2], 1);
  EXPECT_DOUBLE_EQ(without_p[3], 0.9);
  // Without q, no execution is counted (a is not in every run): no speeds.
  EXPECT_TRUE(speeds.without("q").empty());
}

TEST(MatchedStatisticTest, AnExecutionsSpeedIsThatOfTheExecutionsNearestInTime) {
  // q's executions of k = 1..80 ms: the odd ones early in the run (starting
  // at k / 2), the even ones late (at 100 + k), each part of the run at its
  // own speed: fu early, fv late. p's one execution of 1 starts at 30.
  // Pooled medians: k, and p's 1; their median is 40, so k = 40..80 count:
  // 20 early, 21 late.
  const std::vector<double> fu{1, 1.2, 1, 0.8}, fv{1, 0.9, 1.1, 1};
  std::vector<RunExecutions> runs(4);
  std::vector<RunStarts> starts(4);
  for (std::size_t r = 0; r < 4; ++r) {
    for (int k = 1; k <= 80; ++k) {
      const bool early = k % 2 == 1;
      const std::string name = "q" + std::to_string(k);
      runs[r]["q"][name] = k * (early ? fu[r] : fv[r]);
      starts[r][name] = early ? k / 2.0 : 100.0 + k;
    }
    runs[r]["p"]["p0"] = 1;
    starts[r]["p0"] = 30;
  }
  const RunSpeeds speeds({runs[0], runs[1]}, {runs[2], runs[3]}, {starts[0], starts[1]},
                         {starts[2], starts[3]});
  // The 30 nearest p's start: the 20 early ones and the first 10 late ones;
  // their median is the early part's speed.
  const std::vector<double> at_p = speeds.of("p", "p0");
  ASSERT_EQ(at_p.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_DOUBLE_EQ(at_p[r], fu[r]) << r;
  // The run's speed: the median of 20 ratios fu and 21 fv, the 21st: fv.
  const std::vector<double> run = speeds.without("p");
  ASSERT_EQ(run.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_DOUBLE_EQ(run[r], fv[r]) << r;
  // An execution with no start in the runs, or runs given without starts:
  // the run's speed.
  EXPECT_EQ(speeds.of("p", "p1"), run);
  EXPECT_EQ(RunSpeeds({runs[0], runs[1]}, {runs[2], runs[3]}).of("p", "p0"), run);
  // Starts for some runs only are a mistake of the caller.
  EXPECT_THROW(RunSpeeds({runs[0], runs[1]}, {runs[2], runs[3]}, {starts[0]}, {}),
               std::invalid_argument);
}

TEST(MatchedStatisticTest, ExecutionsAreNamedAlikeInEveryRun) {
  // GVNPass twice on f and once on g, SROAPass on f: each execution named
  // by its section's position, pass, unit and how many of the same came
  // before it.
  Profile profile;
  Section& s = profile.sections.emplace_back();
  s.context = "a.c";
  const std::vector<std::tuple<std::string, std::string, Nanoseconds>> records{
      {"GVNPass", "f", 5}, {"SROAPass", "f", 1}, {"GVNPass", "g", 7}, {"GVNPass", "f", 3}};
  for (const auto& [pass, unit, self] : records) {
    Record r;
    r.name = s.names.intern(pass);
    r.kernel = s.names.intern(unit);
    r.sequence = static_cast<std::uint32_t>(s.records.size());
    r.start_ns = 100 * (r.sequence + 1);
    r.inclusive_ns = r.self_ns = self;
    s.records.push_back(r);
  }
  std::unordered_map<std::string, double> starts;
  const auto executions = measure_by_execution(profile, GroupBy::pass, Measure::wall, &starts);
  ASSERT_EQ(executions.size(), 2u);
  const auto name = [](const std::string& unit, const std::string& before) {
    const std::string separator(1, '\x1f');
    return "0" + separator + "GVNPass" + separator + unit + separator + before;
  };
  const std::unordered_map<std::string, double> gvn{
      {name("f", "0"), 5}, {name("g", "0"), 7}, {name("f", "1"), 3}};
  EXPECT_EQ(executions.at("GVNPass"), gvn);
  // Their starts, by the same names.
  EXPECT_EQ(starts.size(), 4u);
  EXPECT_EQ(starts.at(name("f", "0")), 100);
  EXPECT_EQ(starts.at(name("g", "0")), 300);
  EXPECT_EQ(starts.at(name("f", "1")), 400);
  EXPECT_EQ(executions.at("SROAPass").size(), 1u);
  // Their sums are the runs' values the runs statistic compares.
  EXPECT_DOUBLE_EQ(measure_by_group(profile, GroupBy::pass, Measure::wall).at("GVNPass"), 15);
}

}  // namespace
}  // namespace passtiming
