// The statistics of the regression gate: the Mann-Whitney U test against
// values worked out by hand, Holm's adjustment, and the gate's verdict on
// per-run values built here.

#include "passtiming/analysis/regression_gate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "passtiming/analysis/rank_test.h"

namespace passtiming {
namespace {

using Runs = std::vector<std::unordered_map<std::string, double>>;

TEST(RankTest, FullySeparatedFiveAgainstFive) {
  // Every new value beats every base value: U = 25, the largest of the
  // C(10, 5) = 252 equally likely arrangements; only one reaches it.
  const std::vector<double> base{1, 2, 3, 4, 5}, next{6, 7, 8, 9, 10};
  const RankTestResult greater = mann_whitney_u(base, next, Alternative::greater);
  EXPECT_EQ(greater.u_new, 25);
  EXPECT_TRUE(greater.exact);
  EXPECT_DOUBLE_EQ(greater.p_value, 1.0 / 252);
  EXPECT_DOUBLE_EQ(mann_whitney_u(base, next, Alternative::two_sided).p_value, 2.0 / 252);
  // The other way round: nothing suggests the new side is larger.
  const RankTestResult reversed = mann_whitney_u(next, base, Alternative::greater);
  EXPECT_EQ(reversed.u_new, 0);
  EXPECT_DOUBLE_EQ(reversed.p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(next, base, Alternative::two_sided).p_value, 2.0 / 252);
}

TEST(RankTest, ExactTailOfThreeAgainstThree) {
  // base {1, 2, 4}, new {3, 5, 6}: 3 beats 1 and 2, 5 and 6 beat all three,
  // U = 8. Of the 20 arrangements, the numbers with U = 0..9 are
  // 1 1 2 3 3 3 3 2 1 1 (by listing), so P(U >= 8) = 2/20.
  const std::vector<double> base{1, 2, 4}, next{3, 5, 6};
  const RankTestResult r = mann_whitney_u(base, next, Alternative::greater);
  EXPECT_EQ(r.u_new, 8);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.p_value, 0.1);
  EXPECT_DOUBLE_EQ(mann_whitney_u(base, next, Alternative::two_sided).p_value, 0.2);
  EXPECT_DOUBLE_EQ(exact_upper_tail(3, 3, 5), 10.0 / 20);  // 3+3+2+1+1
  EXPECT_DOUBLE_EQ(exact_upper_tail(3, 3, 0), 1.0);
  EXPECT_DOUBLE_EQ(exact_upper_tail(3, 3, 9.5), 0.0);
}

TEST(RankTest, TiesTakeTheNormalApproximation) {
  // base {1, 1, 2, 2}, new {2, 3, 3, 3}. Mid-ranks: 1s 1.5, 2s 4, 3s 7; the
  // new ranks sum to 4 + 3 * 7 = 25, U = 25 - 4 * 5 / 2 = 15, mean 8.
  // Ties t = 2, 3, 3 give sum(t^3 - t) = 6 + 24 + 24 = 54, so
  // var = 16 / 12 * (9 - 54 / 56) = 10.7143, sd = 3.27327;
  // z = (15 - 8 - 0.5) / 3.27327 = 1.98579 and 1 - Phi(z) = 0.02353.
  const std::vector<double> base{1, 1, 2, 2}, next{2, 3, 3, 3};
  const RankTestResult r = mann_whitney_u(base, next, Alternative::greater);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u_new, 15);
  EXPECT_NEAR(r.p_value, 0.02353, 1e-4);
  // Two-sided: twice the tail of the same corrected distance.
  EXPECT_NEAR(mann_whitney_u(base, next, Alternative::two_sided).p_value, 0.04706, 2e-4);
  // All values equal: no evidence at all.
  const std::vector<double> same{5, 5, 5};
  EXPECT_EQ(mann_whitney_u(same, same, Alternative::greater).p_value, 1.0);
}

TEST(RankTest, LargeSamplesTakeTheNormalApproximation) {
  std::vector<double> base, next;
  for (int i = 0; i < 60; ++i) {
    base.push_back(2 * i);
    next.push_back(2 * i + 1);
  }
  const RankTestResult r = mann_whitney_u(base, next, Alternative::greater);
  EXPECT_FALSE(r.exact);  // 60 * 60 > kExactRankTestLimit
  // U = sum over new value 2i+1 of the i+1 base values below it = 1830;
  // mean 1800, sd = sqrt(3600 * 121 / 12) = 190.526; z = 29.5 / 190.526.
  EXPECT_EQ(r.u_new, 1830);
  EXPECT_NEAR(r.p_value, 0.43848, 1e-4);
}

TEST(RankTest, SmallestPValueAndRunsNeeded) {
  EXPECT_DOUBLE_EQ(smallest_p_value(2, 2, Alternative::greater), 1.0 / 6);
  EXPECT_DOUBLE_EQ(smallest_p_value(2, 2, Alternative::two_sided), 1.0 / 3);
  EXPECT_DOUBLE_EQ(smallest_p_value(5, 5, Alternative::two_sided), 2.0 / 252);
  EXPECT_DOUBLE_EQ(smallest_p_value(3, 7, Alternative::greater), 1.0 / 120);
  // One-sided, 3 per side reach 1/20 = 0.05; two-sided needs 4 (2/70).
  EXPECT_EQ(min_runs_per_side(0.05, Alternative::greater), 3u);
  EXPECT_EQ(min_runs_per_side(0.05, Alternative::two_sided), 4u);
  // Holm over 100 passes: 0.0005 needs C(2n, n) >= 2000: C(12,6) = 924,
  // C(14,7) = 3432.
  EXPECT_EQ(min_runs_per_side(0.05 / 100, Alternative::greater), 7u);
  EXPECT_EQ(min_runs_per_side(0, Alternative::greater), 0u);
}

TEST(HolmTest, StepDownInTheOrderOfThePValues) {
  // Sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 =
  // 0.04 raised to 0.06 to keep the order. Bonferroni would give 0.16 and
  // 0.12 to the middle two and 0.04 to the first: Holm rejects no fewer.
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const std::vector<double> adjusted = holm_adjust(p);
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_DOUBLE_EQ(adjusted[0], 0.03);
  EXPECT_DOUBLE_EQ(adjusted[1], 0.06);
  EXPECT_DOUBLE_EQ(adjusted[2], 0.06);
  EXPECT_DOUBLE_EQ(adjusted[3], 0.02);
  const std::vector<double> capped = holm_adjust(std::vector<double>{0.6, 0.9});
  EXPECT_EQ(capped, (std::vector<double>{1.0, 1.0}));
  EXPECT_TRUE(holm_adjust(std::vector<double>{}).empty());
}

/// Five runs per side, values in ms (the gate takes ns).
Runs runs(std::initializer_list<std::pair<std::string, std::vector<double>>> groups) {
  Runs out(5);
  for (const auto& [key, ms] : groups) {
    for (std::size_t i = 0; i < ms.size(); ++i) {
      if (ms[i] >= 0) out[i][key] = ms[i] * 1e6;  // a negative value: absent from that run
    }
  }
  return out;
}

TEST(RegressionGateTest, SignificantAboveThresholdAndFloor) {
  const Runs base = runs({{"slow", {10, 11, 12, 13, 14}},
                          {"noisy", {50, 60, 55, 52, 58}},
                          {"tiny", {0.1, 0.1, 0.1, 0.1, 0.1}},
                          {"steady", {100, 100.2, 100.4, 100.6, 100.8}},
                          {"gone", {3, 3, 3, 3, 3}},
                          {"sometimes", {2, -1, -1, -1, -1}}});
  const Runs next = runs({{"slow", {20, 21, 22, 23, 24}},
                          {"noisy", {51, 59, 56, 53, 57}},
                          {"tiny", {0.5, 0.5, 0.5, 0.5, 0.5}},
                          {"steady", {103, 103.2, 103.4, 103.6, 103.8}},
                          {"new", {4, 4, 4, 4, 4}},
                          {"sometimes", {-1, -1, -1, -1, 2}}});
  const GateResult r = evaluate_gate(base, next, GateSettings{});
  EXPECT_EQ(r.base_runs, 5u);
  EXPECT_DOUBLE_EQ(r.smallest_p, 1.0 / 252);
  // The typical pass grew 3 % (steady's 103.4 / 100.4 is the weighted
  // median of the ratios): no drift, nothing taken out.
  EXPECT_DOUBLE_EQ(r.drift.factor, 103.4 / 100.4);
  EXPECT_FALSE(r.drift.flagged);
  // Tested: slow and noisy (pooled 50..60 ms: the 5 smallest have the
  // median 53, the 5 largest 58, +9.4 %). Not tiny (+400 %, but no split of
  // its pooled runs moves the median 1 ms, the floor), not steady (+3.8 % at
  // most, under the 5 % threshold), not sometimes (eight of its ten pooled
  // runs lack it, 0: every split has the median 0 on both sides).
  EXPECT_EQ(r.tested, 2u);
  ASSERT_EQ(r.regressions, 1u);
  const GateRow& slow = r.rows[0];
  EXPECT_EQ(slow.key, "slow");
  EXPECT_EQ(slow.status, GateStatus::regression);
  EXPECT_DOUBLE_EQ(*slow.p_value, 1.0 / 252);
  EXPECT_DOUBLE_EQ(*slow.p_holm, 2.0 / 252);
  EXPECT_DOUBLE_EQ(slow.delta(), 10e6);
  auto find = [&](const std::string& key) -> const GateRow& {
    for (const GateRow& row : r.rows) {
      if (row.key == key) return row;
    }
    ADD_FAILURE() << key;
    return r.rows[0];
  };
  EXPECT_EQ(find("noisy").status, GateStatus::ok);
  EXPECT_TRUE(find("noisy").tested);
  EXPECT_EQ(find("tiny").status, GateStatus::ok);
  EXPECT_FALSE(find("tiny").tested);
  EXPECT_TRUE(find("tiny").above_threshold);
  EXPECT_FALSE(find("tiny").above_floor);
  EXPECT_FALSE(find("steady").tested);
  EXPECT_FALSE(find("sometimes").tested);
  EXPECT_EQ(find("sometimes").base_median, 0);
  EXPECT_EQ(find("gone").status, GateStatus::vanished);
  EXPECT_EQ(find("new").status, GateStatus::appeared);
  EXPECT_FALSE(find("new").tested);
  // Geometric mean of the median ratios of slow (22/12), noisy (56/55),
  // tiny (5) and steady (103.4/100.4); sometimes has medians of 0 and is
  // left out; gone and new are not on both sides.
  EXPECT_EQ(r.geomean_groups, 4u);
  EXPECT_EQ(r.geomean_excluded, 1u);
  const double expected = std::pow(22.0 / 12 * 56.0 / 55 * 5 * 103.4 / 100.4, 0.25);
  EXPECT_NEAR(*r.geomean_ratio, expected, 1e-12);
}

TEST(RegressionGateTest, LargestMedianGrowthOfAnySplit) {
  // Pooled 10 11 12 13 20 30: the 3 smallest have the median 11, the 3
  // largest 20, whichever side each value came from.
  const std::vector<double> a{10, 20, 30}, b{11, 12, 13};
  const MedianGrowth ab = largest_median_growth(a, b), ba = largest_median_growth(b, a);
  EXPECT_DOUBLE_EQ(ab.growth, 9);
  EXPECT_DOUBLE_EQ(ab.base_median, 11);
  EXPECT_DOUBLE_EQ(ba.growth, 9);
  // Sides of other sizes: the 2 smallest (10, 11: median 10.5) against the
  // 4 largest (12 13 20 30: median 16.5).
  const std::vector<double> two{30, 10}, four{11, 12, 13, 20};
  const MedianGrowth uneven = largest_median_growth(two, four);
  EXPECT_DOUBLE_EQ(uneven.growth, 6);
  EXPECT_DOUBLE_EQ(uneven.base_median, 10.5);
}

TEST(RegressionGateTest, AGroupNoSplitCouldMoveFarEnoughIsNotTested) {
  // One slow run in ten: the pooled runs span 10 ms, but every split of
  // them has the median 20 ms on both sides, so the group could never be a
  // regression and is not tested (it would cost every other group power
  // under Holm's correction).
  const Runs base = runs({{"spiky", {20, 20, 20, 20, 30}}, {"slow", {10, 11, 12, 13, 14}}});
  const Runs next = runs({{"spiky", {20, 20, 20, 20, 20}}, {"slow", {20, 21, 22, 23, 24}}});
  const GateResult r = evaluate_gate(base, next, GateSettings{});
  EXPECT_EQ(r.tested, 1u);
  ASSERT_EQ(r.regressions, 1u);
  EXPECT_EQ(r.rows[0].key, "slow");
  EXPECT_DOUBLE_EQ(*r.rows[0].p_holm, 1.0 / 252);  // Holm over one group, not two
  EXPECT_FALSE(r.rows[1].tested);
  EXPECT_FALSE(r.rows[1].p_value.has_value());
}

TEST(RegressionGateTest, ThresholdAndFloorEachVeto) {
  const Runs base = runs({{"slow", {10, 11, 12, 13, 14}}});
  const Runs next = runs({{"slow", {20, 21, 22, 23, 24}}});
  GateSettings settings;
  settings.threshold_pct = 90;  // +83 % is not enough
  EXPECT_EQ(evaluate_gate(base, next, settings).regressions, 0u);
  settings = {};
  settings.floor = 10e6;  // a delta of exactly 10 ms does not exceed it
  EXPECT_EQ(evaluate_gate(base, next, settings).regressions, 0u);
  settings = {};
  settings.alpha = 0.003;  // 1/252 = 0.00397 is not significant at 0.003
  EXPECT_EQ(evaluate_gate(base, next, settings).regressions, 0u);
  EXPECT_EQ(evaluate_gate(base, next, GateSettings{}).regressions, 1u);
  // Faster is never a regression, two-sided or not.
  settings = {};
  settings.alternative = Alternative::two_sided;
  EXPECT_EQ(evaluate_gate(next, base, settings).regressions, 0u);
  EXPECT_EQ(evaluate_gate(base, next, settings).regressions, 1u);
}

/// Ten runs per side of one group, ms; each side's values as given.
Runs ten(const std::string& key, const std::vector<double>& ms) {
  Runs out(ms.size());
  for (std::size_t i = 0; i < ms.size(); ++i) out[i][key] = ms[i] * 1e6;
  return out;
}

TEST(RegressionGateTest, TheThresholdIsTestedNotOnlyTheDirection) {
  std::vector<double> base_ms, plus6, plus15;
  for (int i = 0; i < 10; ++i) {
    base_ms.push_back(100 + i);
    plus6.push_back((100 + i) * 1.06);
    plus15.push_back((100 + i) * 1.15);
  }
  // +6 % everywhere: new is larger than base in 93.5 of 100 pairs, which the
  // plain test finds significant; but against the base grown by 5 % (b +
  // max(5 % of b, 1 ms)) it is larger in 59 pairs: no evidence that the
  // change exceeds the threshold.
  const GateResult six = evaluate_gate(ten("p", base_ms), ten("p", plus6), GateSettings{});
  ASSERT_EQ(six.rows.size(), 1u);
  EXPECT_TRUE(six.rows[0].tested);
  EXPECT_TRUE(six.rows[0].above_threshold);  // the medians alone say +6 %
  EXPECT_EQ(six.rows[0].u_new, 59);
  EXPECT_GT(*six.rows[0].p_value, 0.2);
  EXPECT_EQ(six.regressions, 0u);
  EXPECT_LT(mann_whitney_u(base_ms, plus6, Alternative::greater).p_value, 0.05);
  // +15 %: larger than the grown base in every pair.
  const GateResult fifteen = evaluate_gate(ten("p", base_ms), ten("p", plus15), GateSettings{});
  EXPECT_EQ(fifteen.regressions, 1u);
  EXPECT_DOUBLE_EQ(*fifteen.rows[0].p_value, exact_upper_tail(10, 10, 100));
  // The floor grows the base too: +15 % of about 100 ms is under a 20 ms floor.
  GateSettings high_floor;
  high_floor.floor = 20e6;
  EXPECT_EQ(evaluate_gate(ten("p", base_ms), ten("p", plus15), high_floor).regressions, 0u);
  EXPECT_DOUBLE_EQ(grown_by_threshold(100e6, GateSettings{}), 105e6);
  EXPECT_DOUBLE_EQ(grown_by_threshold(10e6, GateSettings{}), 11e6);  // the floor is larger
  EXPECT_DOUBLE_EQ(grown_by_threshold(-100e6, GateSettings{}), -95e6);
}

TEST(RegressionGateTest, ADriftOfEveryPassIsReportedApartAndEachPassWeighedByTheRest) {
  // Twelve passes of 2..13 ms; the new runs 11 % slower in every pass, and
  // one pass (p5) 40 % slower: a machine 11 % slower, and p5's own change.
  Runs base(10), next(10);
  for (std::size_t run = 0; run < 10; ++run) {
    const double jitter = 1 + 0.001 * static_cast<double>(run);
    for (int pass = 0; pass < 12; ++pass) {
      const std::string key = "p" + std::to_string(pass);
      const double ms = (2 + pass) * jitter;
      base[run][key] = ms * 1e6;
      next[run][key] = ms * 1.11 * (pass == 5 ? 1.4 : 1.0) * 1e6;
    }
  }
  const GateResult r = evaluate_gate(base, next, GateSettings{});
  EXPECT_TRUE(r.drift.tested);
  EXPECT_TRUE(r.drift.flagged);
  EXPECT_NEAR(r.drift.factor, 1.11, 1e-9);
  EXPECT_DOUBLE_EQ(*r.drift.p_value, exact_upper_tail(10, 10, 100));
  // Only p5 grew more than the rest of its runs: compared with the rest
  // (which spreads its pooled runs less than the 11 % between the sides),
  // it grew 40 %.
  ASSERT_EQ(r.regressions, 1u);
  EXPECT_EQ(r.rows[0].key, "p5");
  EXPECT_TRUE(r.rows[0].relative);
  EXPECT_NEAR(r.rows[0].new_compared / r.rows[0].base_compared, 1.4, 1e-9);
  // The same runs without p5's change: the drift alone, no pass flagged.
  for (auto& run : next) run["p5"] /= 1.4;
  const GateResult drift_only = evaluate_gate(base, next, GateSettings{});
  EXPECT_TRUE(drift_only.drift.flagged);
  EXPECT_EQ(drift_only.regressions, 0u);
  // One pass alone: its change is its own, never a drift.
  const GateResult one = evaluate_gate(ten("p", std::vector<double>(10, 10.0)),
                                       ten("p", std::vector<double>(10, 20.0)), GateSettings{});
  EXPECT_FALSE(one.drift.flagged);
  EXPECT_DOUBLE_EQ(one.drift.factor, 2.0);
}

TEST(RegressionGateTest, PowerDependsOnRunsAndTestedGroups) {
  GateResult r;
  GateSettings settings;
  r.smallest_p = smallest_p_value(5, 5, Alternative::greater);  // 1/252
  r.tested = 12;                                                // 12/252 = 0.0476
  EXPECT_TRUE(gate_has_power(r, settings));
  r.tested = 13;  // 13/252 = 0.0516
  EXPECT_FALSE(gate_has_power(r, settings));
  EXPECT_EQ(runs_needed_per_side(13, settings), 6u);  // 1/924
  r.tested = 0;
  EXPECT_TRUE(gate_has_power(r, settings));
}

}  // namespace
}  // namespace passtiming
