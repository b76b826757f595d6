#include "passtiming/analysis/run_speed.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {

RunSpeeds::RunSpeeds(const std::vector<RunExecutions>& base,
                     const std::vector<RunExecutions>& next) {
  std::vector<const RunExecutions*> runs;
  for (const RunExecutions& run : base) runs.push_back(&run);
  for (const RunExecutions& run : next) runs.push_back(&run);
  runs_ = runs.size();
  // Every execution of every group, in the order of their names, so that
  // the same runs give the same speeds; 0 where a run lacks it.
  std::map<std::pair<std::string, std::string>, std::vector<double>> table;
  std::map<std::pair<std::string, std::string>, std::size_t> present;
  for (std::size_t r = 0; r < runs_; ++r) {
    for (const auto& [group, executions] : *runs[r]) {
      for (const auto& [name, value] : executions) {
        std::vector<double>& values = table[{group, name}];
        values.resize(runs_, 0.0);
        values[r] = value;
        if (value > 0) ++present[{group, name}];
      }
    }
  }
  // An execution missing from a run, or of no time there, says nothing of
  // that run's speed (a pass that appeared, or ran otherwise): only those
  // in every run count.
  for (auto it = table.begin(); it != table.end();) {
    it = present[it->first] == runs_ ? std::next(it) : table.erase(it);
  }
  std::vector<double> medians;
  medians.reserve(table.size());
  for (const auto& entry : table) {
    std::vector<double> values = entry.second;
    medians.push_back(median_of(values));
  }
  std::vector<double> sorted = medians;
  const double least = median_of(sorted);
  std::size_t e = 0;
  for (const auto& [id, values] : table) {
    const double median = medians[e++];
    if (!(median > 0) || median < least) continue;
    by_unit_[unit_of(id.second)].push_back(groups_.size());
    groups_.push_back(id.first);
    std::vector<double>& ratios = ratios_.emplace_back();
    for (const double value : values) ratios.push_back(value / median);
  }
}

std::string RunSpeeds::unit_of(std::string_view execution) {
  // section, pass, unit, occurrence (gate_measure.h's measure_by_execution)
  const std::size_t first = execution.find('\x1f');
  if (first == std::string_view::npos) return {};
  const std::size_t second = execution.find('\x1f', first + 1);
  if (second == std::string_view::npos) return {};
  const std::size_t last = execution.rfind('\x1f');
  if (last <= second) return {};
  std::string unit(execution.substr(0, first + 1));
  unit += execution.substr(second + 1, last - second - 1);
  return unit;
}

std::vector<double> RunSpeeds::medians_over(const std::vector<std::size_t>& counted) const {
  std::vector<double> speeds;
  std::vector<double> ratios;
  for (std::size_t r = 0; r < runs_; ++r) {
    ratios.clear();
    for (const std::size_t e : counted) ratios.push_back(ratios_[e][r]);
    speeds.push_back(median_of(ratios));
  }
  return speeds;
}

std::vector<double> RunSpeeds::of(const std::string& group, std::string_view execution) const {
  const std::string unit = unit_of(execution);
  if (!unit.empty()) {
    if (const auto it = by_unit_.find(unit); it != by_unit_.end()) {
      std::vector<std::size_t> counted;
      for (const std::size_t e : it->second) {
        if (groups_[e] != group) counted.push_back(e);
      }
      if (counted.size() >= kMinUnitExecutions) return medians_over(counted);
    }
  }
  auto [cached, added] = without_.try_emplace(group);
  if (added) cached->second = without(group);
  return cached->second;
}

std::vector<double> RunSpeeds::without(const std::string& group) const {
  std::vector<std::size_t> counted;
  for (std::size_t e = 0; e < ratios_.size(); ++e) {
    if (groups_[e] != group) counted.push_back(e);
  }
  if (counted.size() < kMinSpeedExecutions) return {};
  return medians_over(counted);
}

}  // namespace passtiming
