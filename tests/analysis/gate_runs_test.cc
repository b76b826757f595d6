// How many runs a gate should extend to: the groups that need more runs
// than it has, within the budget, decide; the others are named; the test's
// outcome plays no part.

#include "passtiming/analysis/gate_runs.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace passtiming {
namespace {

GateRow row(std::string key, bool tested, std::optional<std::size_t> runs,
            GateStatus status = GateStatus::ok) {
  GateRow r;
  r.key = std::move(key);
  r.tested = tested;
  r.runs_for_twice_threshold = runs;
  r.status = status;
  return r;
}

GateResult result_of(std::size_t base_runs, std::size_t new_runs, std::vector<GateRow> rows) {
  GateResult r;
  r.base_runs = base_runs;
  r.new_runs = new_runs;
  r.rows = std::move(rows);
  return r;
}

TEST(GateRunsTest, TheMostNeededWithinTheBudgetDecides) {
  const RunsWanted wanted = runs_wanted(
      result_of(10, 10,
                {row("LICMPass", true, 18), row("GVNPass", true, 25), row("SROAPass", true, 9),
                 row("IPSCCPPass", true, 140), row("InstCombinePass", true, 31)}),
      30);
  EXPECT_EQ(wanted.runs, 25u);
  ASSERT_EQ(wanted.within.size(), 2u);
  EXPECT_EQ(wanted.within[0].key, "GVNPass");
  EXPECT_EQ(wanted.within[0].runs, 25u);
  EXPECT_EQ(wanted.within[1].key, "LICMPass");
  EXPECT_EQ(wanted.within[1].runs, 18u);
  // Beyond the budget: named, the most needed first, and not chased.
  ASSERT_EQ(wanted.beyond.size(), 2u);
  EXPECT_EQ(wanted.beyond[0].key, "IPSCCPPass");
  EXPECT_EQ(wanted.beyond[1].key, "InstCombinePass");
  EXPECT_EQ(wanted.beyond[1].runs, 31u);
}

TEST(GateRunsTest, NothingNeedsMoreThanTheGateHas) {
  const RunsWanted wanted =
      runs_wanted(result_of(12, 12, {row("GVNPass", true, 12), row("SROAPass", true, 3)}), 36);
  EXPECT_EQ(wanted.runs, 12u);
  EXPECT_TRUE(wanted.within.empty());
  EXPECT_TRUE(wanted.beyond.empty());
}

TEST(GateRunsTest, UntestedGroupsAndGroupsWithoutAnEstimateDoNotCount) {
  const RunsWanted wanted = runs_wanted(
      result_of(10, 10, {row("untested", false, 20), row("no estimate", true, std::nullopt)}), 30);
  EXPECT_EQ(wanted.runs, 10u);
  EXPECT_TRUE(wanted.within.empty());
  EXPECT_TRUE(wanted.beyond.empty());
}

TEST(GateRunsTest, AFlaggedGroupCountsAsAnUnflaggedOne) {
  // The decision must not look at the outcome: the same spread asks for
  // the same runs whether the group was flagged or not.
  const RunsWanted flagged =
      runs_wanted(result_of(10, 10, {row("GVNPass", true, 22, GateStatus::regression)}), 30);
  const RunsWanted not_flagged = runs_wanted(result_of(10, 10, {row("GVNPass", true, 22)}), 30);
  EXPECT_EQ(flagged.runs, 22u);
  EXPECT_EQ(not_flagged.runs, 22u);
}

TEST(GateRunsTest, TheGateHasItsSmallerSide) {
  // 8 base and 12 new runs: a group needing 10 asks for more.
  const RunsWanted wanted = runs_wanted(result_of(8, 12, {row("GVNPass", true, 10)}), 30);
  EXPECT_EQ(wanted.runs, 10u);
  ASSERT_EQ(wanted.within.size(), 1u);
}

}  // namespace
}  // namespace passtiming
