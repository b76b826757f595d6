// What the gate can detect with its runs: the normal quantile, the spread of
// runs on a log scale, the detectable change and the runs a change needs,
// against values worked out by hand; and the gate naming the groups too
// noisy to judge.

#include "passtiming/analysis/gate_power.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "passtiming/analysis/regression_gate.h"

namespace passtiming {
namespace {

TEST(GatePowerTest, NormalQuantileMatchesTheTables) {
  EXPECT_DOUBLE_EQ(normal_quantile(0.5), 0.0);
  EXPECT_NEAR(normal_quantile(0.975), 1.9599639845400536, 1e-12);
  EXPECT_NEAR(normal_quantile(0.05), -1.6448536269514729, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-6), -4.753424308822899, 1e-10);
  EXPECT_NEAR(normal_quantile(1 - 1e-6), 4.753424308822899, 1e-8);
}

TEST(GatePowerTest, LogSpreadIsTheScaledMedianAbsoluteDeviationOfTheLogs) {
  // Logs 0, 0.1, ..., 0.4: median 0.2, absolute deviations 0.2 0.1 0 0.1
  // 0.2, their median 0.1; times 1.4826.
  std::vector<double> values;
  for (int k = 0; k < 5; ++k) values.push_back(std::exp(0.1 * k));
  ASSERT_TRUE(log_spread(values));
  EXPECT_NEAR(*log_spread(values), 0.14826, 1e-12);
  // One run ten times slower moves it no more than any other outlier.
  values.back() = 10 * values.back();
  EXPECT_NEAR(*log_spread(values), 0.14826, 1e-12);
  EXPECT_FALSE(log_spread(std::vector<double>{1, 2}));
  EXPECT_FALSE(log_spread(std::vector<double>{1, 0, 2}));
  // Pooled: the root of the mean square of the sides'.
  const std::vector<double> constant(5, 3.0);
  EXPECT_NEAR(*pooled_log_spread(values, constant), 0.14826 / std::sqrt(2.0), 1e-12);
  EXPECT_FALSE(pooled_log_spread(values, std::vector<double>{1, 2}));
}

TEST(GatePowerTest, DetectableChangeAndRunsToDetectAgree) {
  // spread 0.07413, 5 + 5 runs, level 0.05, boundary 1.05:
  // (1.6449 + 1.6449) * 0.07413 * sqrt(0.4 * pi / 3) = 0.15783, and
  // 1.05 * e^0.15783 - 1 = 22.95 %.
  const auto pct = detectable_change_pct(0.07413, 5, 5, 0.05, 1.05);
  ASSERT_TRUE(pct);
  EXPECT_NEAR(*pct, 22.951815, 1e-5);
  // A change of +10 % needs 2 * pi / 3 * (0.07413 / (ln(1.10 / 1.05) /
  // 3.2897))^2 = 57.55 runs per side: 58.
  const auto runs = runs_to_detect(1.10, 0.07413, 0.05, 1.05);
  ASSERT_TRUE(runs);
  EXPECT_EQ(*runs, 58u);
  EXPECT_LE(*detectable_change_pct(0.07413, 58, 58, 0.05, 1.05), 10.0);
  EXPECT_GT(*detectable_change_pct(0.07413, 57, 57, 0.05, 1.05), 10.0);
  // The statistic's growth past the boundary, a comparison of medians:
  // 1.645 * 0.07413 * sqrt(0.4 * pi / 2) = 0.09666, 1.05 * e^0.09666 - 1 =
  // 15.66 %, whatever the level.
  EXPECT_NEAR(*detectable_change_pct(0.07413, 5, 5, 0.05, 1.05, PowerOf::median_growth), 15.655093,
              1e-5);
  EXPECT_NEAR(*detectable_change_pct(0.07413, 5, 5, 0.0, 1.05, PowerOf::median_growth), 15.655093,
              1e-5);
  // No spread: the boundary itself.
  EXPECT_NEAR(*detectable_change_pct(0, 5, 5, 0.05, 1.05), 5.0, 1e-12);
  // Nothing to detect within the boundary; no run on a side; a level outside (0, 1).
  EXPECT_FALSE(runs_to_detect(1.05, 0.07413, 0.05, 1.05));
  EXPECT_FALSE(runs_to_detect(1.10, 0.07413, 1.0, 1.05));
  EXPECT_FALSE(runs_to_detect(1.10, 10.0, 0.05, 1.05, PowerOf::rank_test, 1000));
  EXPECT_FALSE(detectable_change_pct(0.07413, 0, 5, 0.05, 1.05));
  EXPECT_FALSE(detectable_change_pct(0.07413, 5, 5, 0.0, 1.05));
}

using Runs = std::vector<std::unordered_map<std::string, double>>;
constexpr double kMs = 1e6;

TEST(GatePowerTest, TheGateNamesTheGroupsTooNoisyToJudge) {
  // Noisy: 5 runs a side of 100 * e^(0.1 k) ms, log spread 0.14826. At
  // level 0.05 (one group tested), (1.05 * e^(3.2897 * 0.14826 *
  // sqrt(0.4 * pi / 3)) - 1) = +45.9 %: a change of +10 % would be missed.
  Runs base(5), next(5);
  for (int k = 0; k < 5; ++k) {
    base[k] = {{"Noisy", 100 * kMs * std::exp(0.1 * k)}};
    next[k] = {{"Noisy", 100 * kMs * std::exp(0.1 * (4 - k))}};
  }
  const GateSettings settings;
  const GateResult r = evaluate_gate(base, next, settings);
  ASSERT_EQ(r.tested, 1u);
  const GateRow& noisy = r.rows.front();
  ASSERT_TRUE(noisy.spread);
  EXPECT_NEAR(*noisy.spread, 0.14826, 1e-9);
  EXPECT_NEAR(*noisy.detectable_pct,
              (1.05 * std::exp(3.289707253902945 * 0.14826 * std::sqrt(0.4 * M_PI / 3)) - 1) * 100,
              1e-6);
  EXPECT_TRUE(too_noisy_to_judge(noisy, settings));
  EXPECT_EQ(*noisy.runs_for_twice_threshold, 231u);  // 4 * 57.55, rounded up

  // Quiet: 20 runs a side of 100 * e^(0.0055 k) ms, log spread 0.0407715:
  // +9.66 % detectable, within twice the threshold; 17.4 runs for +10 %.
  Runs quiet_base(20), quiet_next(20);
  for (int k = 0; k < 20; ++k) {
    quiet_base[k] = {{"Quiet", 100 * kMs * std::exp(0.0055 * k)}};
    quiet_next[k] = {{"Quiet", 100 * kMs * std::exp(0.0055 * (19 - k))}};
  }
  const GateResult q = evaluate_gate(quiet_base, quiet_next, settings);
  ASSERT_EQ(q.tested, 1u);
  const GateRow& quiet = q.rows.front();
  EXPECT_NEAR(*quiet.spread, 0.0407715, 1e-9);
  EXPECT_NEAR(*quiet.detectable_pct, 9.657755, 1e-5);
  EXPECT_FALSE(too_noisy_to_judge(quiet, settings));
  EXPECT_EQ(*quiet.runs_for_twice_threshold, 18u);

  // A regression, however noisy, is flagged, not "too noisy".
  for (auto& run : next) run["Noisy"] *= 3;
  const GateResult flagged = evaluate_gate(base, next, settings);
  EXPECT_EQ(flagged.rows.front().status, GateStatus::regression);
  EXPECT_FALSE(too_noisy_to_judge(flagged.rows.front(), settings));
}

TEST(GatePowerTest, TheMatchedSpreadIsThatOfTheRunsTypicalRatio) {
  // Two executions: one spread as e^(0.1 k), one the same in every run. A
  // run's typical ratio is the geometric mean of the two, whose logs spread
  // half as much: 0.07413. (Fewer than 30 other executions: no speeds, the
  // values as measured.)
  std::vector<RunExecutions> base(5), next(5);
  for (int k = 0; k < 5; ++k) {
    base[k]["A"] = {{"A#1", 10 * kMs * std::exp(0.1 * k)}, {"A#2", 10 * kMs}};
    next[k]["A"] = {{"A#1", 10 * kMs * std::exp(0.1 * (4 - k))}, {"A#2", 10 * kMs}};
  }
  const GateResult r = evaluate_matched_gate(base, next, GateSettings{});
  ASSERT_EQ(r.rows.size(), 1u);
  const GateRow& row = r.rows.front();
  ASSERT_TRUE(row.tested);
  EXPECT_FALSE(row.relative);
  ASSERT_TRUE(row.spread);
  EXPECT_NEAR(*row.spread, 0.07413, 1e-9);
  ASSERT_TRUE(row.size_spread);
  EXPECT_NEAR(*row.size_spread, 0.0815183884, 1e-9);
  // The matched test looks through two lenses, the executions alike and
  // by size, whose typical ratio weighs A#1 by its pooled median, 10 e^0.2
  // ms, against A#2's 10: its logs spread by 0.14826 * e^0.2 / (e^0.2 + 1)
  // = 0.081518. At half the level each, the better one, at 0.025, sees
  // 1.05 * e^((1.95996 + 1.644854) * 0.07413 * sqrt(0.4 * pi / 3)) - 1 =
  // +24.82 %, and +10 % needs 70 runs per side (at 0.05, one lens: +22.95 %
  // and 58, as in DetectableChangeAndRunsToDetectAgree).
  EXPECT_NEAR(*row.detectable_pct, 24.824751, 1e-5);
  EXPECT_EQ(*row.runs_for_twice_threshold, 70u);
}

TEST(GatePowerTest, OneLargeNoisyExecutionMakesTheGrowthTheLimit) {
  // One execution of 100 * e^(0.1 k) ms and eight of 1 ms in every run:
  // the runs' typical ratios spread by 0.14826 / 9 = 0.016473 (the test
  // would see +8.7 %), but their sums, whose medians the statistic
  // compares, by 0.139562: the growth past the threshold is then what a
  // change must overcome, 1.05 * e^(1.645 * 0.139562 * sqrt(0.4 * pi / 2))
  // - 1 = +25.95 %, and +10 % needs 77 runs per side.
  std::vector<RunExecutions> base(5), next(5);
  for (int k = 0; k < 5; ++k) {
    for (auto* run : {&base[k], &next[4 - k]}) {
      auto& executions = (*run)["G"];
      executions["G#big"] = 100 * kMs * std::exp(0.1 * k);
      for (int small = 0; small < 8; ++small) executions["G#" + std::to_string(small)] = kMs;
    }
  }
  const GateSettings settings;
  const GateResult r = evaluate_matched_gate(base, next, settings);
  ASSERT_EQ(r.rows.size(), 1u);
  const GateRow& row = r.rows.front();
  ASSERT_TRUE(row.tested);
  EXPECT_NEAR(*row.spread, 0.016473333, 1e-8);
  EXPECT_NEAR(*row.compared_spread, 0.13956155, 1e-7);
  // By size, the large execution weighs 100 e^0.2 / (100 e^0.2 + 8): its
  // logs' spread 0.14826 times that; the executions alike still see more.
  EXPECT_NEAR(*row.size_spread, 0.1391461420, 1e-9);
  EXPECT_NEAR(*row.detectable_pct, 25.954824, 1e-4);
  EXPECT_EQ(*row.runs_for_twice_threshold, 77u);
  EXPECT_TRUE(too_noisy_to_judge(row, settings));
}

}  // namespace
}  // namespace passtiming
