// Phases added up by their path of names over profiles: what summary, diff
// and the gate read of phases.

#include "passtiming/analysis/phase_totals.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "phase_fixtures.h"

namespace passtiming {
namespace {

using testing::kSecond;
using testing::phased_profile;

TEST(PhaseTotalsTest, PathsInTreeOrderWithTheUntimedRest) {
  PhaseTotals totals;
  totals.add(phased_profile());
  totals.add(phased_profile());
  totals.add(testing::sample_session_profile());  // no phases: counted, adds none
  EXPECT_EQ(totals.profiles(), 3u);
  EXPECT_EQ(totals.profiles_with_phases(), 2u);
  EXPECT_EQ(totals.root_ns(), 24 * kSecond);
  const std::vector<PhaseTotal> rows = totals.rows();
  ASSERT_EQ(rows.size(), 5u);
  auto row = [&](std::size_t i) {
    return fmt::format("{} d{} {} n{} {:.6f}{}{}", rows[i].path, rows[i].depth, rows[i].total_ns,
                       rows[i].count, rows[i].share, rows[i].untimed ? " untimed" : "",
                       rows[i].failed ? " failed" : "");
  };
  EXPECT_EQ(row(0), "compile d0 24000000000 n2 1.000000");
  EXPECT_EQ(row(1), "compile/lower d1 12000000000 n2 0.500000");
  EXPECT_EQ(row(2), "compile/codegen d1 2000000000 n2 0.083333");
  EXPECT_EQ(row(3), "compile/nvcc d1 1000000000 n2 0.041667 failed");
  EXPECT_EQ(row(4), "compile/(untimed) d1 9000000000 n0 0.375000 untimed");
}

TEST(PhaseTotalsTest, DeeperPhasesThanTheDepthStayInTheirAncestors) {
  Profile p;
  p.phases = {{"compile", "", kNoPhase, 1, 0, 100, -1, 0},
              {"back end", "", 0, 1, 0, 100, -1, 0},
              {"function", "f", 1, 1, 0, 60, -1, 0},
              {"isel", "", 2, 1, 0, 50, -1, 0}};
  PhaseTotals shallow(1);
  shallow.add(p);
  std::vector<std::string> paths;
  for (const PhaseTotal& row : shallow.rows()) paths.push_back(row.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"compile", "compile/back end"}));
  PhaseTotals deep;
  deep.add(p);
  paths.clear();
  for (const PhaseTotal& row : deep.rows()) paths.push_back(row.path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "compile", "compile/back end", "compile/back end/function",
                       "compile/back end/function/isel", "compile/back end/function/(untimed)",
                       "compile/back end/(untimed)"}));
  EXPECT_EQ(phase_path(p.phases, 3), "compile/back end/function/isel");
}

TEST(PhaseTotalsTest, UntimedIsAPathsTimeLessItsChildrensAsInThePhaseTable) {
  // Two declarations, one with a function inside: the path's untimed time
  // is both declarations' less the function's, leaves included.
  Profile p;
  p.phases = {{"compile", "", kNoPhase, 1, 0, 100, -1, 0},
              {"parse declaration", "a", 0, 1, 0, 30, -1, 0},
              {"parse function", "", 1, 1, 5, 10, -1, 0},
              {"parse declaration", "b", 0, 1, 30, 20, -1, 0}};
  PhaseTotals totals;
  totals.add(p);
  std::vector<std::string> rows;
  for (const PhaseTotal& row : totals.rows()) {
    rows.push_back(fmt::format("{} {} n{}", row.path, row.total_ns, row.count));
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"compile 100 n1", "compile/parse declaration 50 n2",
                                            "compile/parse declaration/parse function 10 n1",
                                            "compile/parse declaration/(untimed) 40 n0",
                                            "compile/(untimed) 50 n0"}));
  const std::vector<PhaseRow> table = phase_table(p.phases);
  ASSERT_EQ(table.size(), 5u);
  EXPECT_TRUE(table[3].untimed);
  EXPECT_EQ(table[3].duration_ns, 40);
}

TEST(PhaseTotalsTest, DiffGroupsAreThePathsOfOneProfile) {
  const auto groups = phase_totals_by_path(phased_profile());
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups.at("compile/lower").self_ns, 6 * kSecond);
  EXPECT_EQ(groups.at("compile/lower").executions, 1u);
  EXPECT_EQ(groups.at("compile/(untimed)").self_ns, 4 * kSecond + kSecond / 2);
  EXPECT_EQ(groups.at("compile/(untimed)").executions, 0u);
  EXPECT_TRUE(phase_totals_by_path(testing::sample_session_profile()).empty());
}

}  // namespace
}  // namespace passtiming
