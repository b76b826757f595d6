#pragma once
/// \file
/// How many runs a gate should have: `passtiming gate` starts with a few
/// runs per side, looks at how much each tested group's runs spread, and
/// extends the series until every group can be judged, within a budget.
///
/// A group can be judged when a change of twice the threshold would be
/// flagged with 95 % chance (GateRow::runs_for_twice_threshold, from the
/// spread of its runs: gate_power.h). A group that needs more runs than the
/// gate has, but no more than the budget, asks for them; one that needs
/// more than the budget does not (the budget would be spent and it would
/// still be too noisy to judge), and the verdict names it too noisy.
///
/// The decision reads the spreads only, never the test's outcome: it is
/// the same whether a group's new runs are larger than its base runs or
/// not, flagged or not. So extending does not raise the chance of a false
/// alarm, as looking at the p-value and extending until it is small would:
/// the test is made once, on all the runs (an internal pilot: the spread
/// within each side says nothing of the difference between them).
///
///     const RunsWanted wanted = runs_wanted(result, 30);
///     if (wanted.runs > 10) /* run 10 .. wanted.runs, then judge again */;

#include <cstddef>
#include <string>
#include <vector>

#include "passtiming/analysis/regression_gate.h"

namespace passtiming {

/// A group's runs per side for a change of twice the threshold.
struct RunsNeeded {
  std::string key;
  std::size_t runs = 0;
};

struct RunsWanted {
  /// The runs per side the gate should have: the most that a group within
  /// the budget needs; the runs it has when none needs more.
  std::size_t runs = 0;
  /// The groups that need more runs than the gate has, within the budget,
  /// the most needed first (ties by key).
  std::vector<RunsNeeded> within;
  /// The groups that need more than the budget, the most needed first.
  std::vector<RunsNeeded> beyond;
};

/// The runs per side that `result`'s tested groups need, within `max_runs`
/// per side (see above). The gate has the smaller of its sides' runs.
RunsWanted runs_wanted(const GateResult& result, std::size_t max_runs);

}  // namespace passtiming
