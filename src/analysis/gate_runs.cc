#include "passtiming/analysis/gate_runs.h"

#include <algorithm>

namespace passtiming {

RunsWanted runs_wanted(const GateResult& result, std::size_t max_runs) {
  RunsWanted wanted;
  wanted.runs = std::min(result.base_runs, result.new_runs);
  const std::size_t has = wanted.runs;
  for (const GateRow& row : result.rows) {
    // Every tested group, flagged or not: the decision must not depend on
    // the test's outcome (see the header).
    if (!row.tested || !row.runs_for_twice_threshold) continue;
    const std::size_t needs = *row.runs_for_twice_threshold;
    if (needs <= has) continue;
    if (needs > max_runs) {
      wanted.beyond.push_back({row.key, needs});
      continue;
    }
    wanted.within.push_back({row.key, needs});
    wanted.runs = std::max(wanted.runs, needs);
  }
  for (std::vector<RunsNeeded>* groups : {&wanted.within, &wanted.beyond}) {
    std::sort(groups->begin(), groups->end(), [](const RunsNeeded& a, const RunsNeeded& b) {
      return a.runs != b.runs ? a.runs > b.runs : a.key < b.key;
    });
  }
  return wanted;
}

}  // namespace passtiming
