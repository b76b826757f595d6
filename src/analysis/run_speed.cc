#include "passtiming/analysis/run_speed.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <utility>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {

RunSpeeds::RunSpeeds(const std::vector<RunExecutions>& base, const std::vector<RunExecutions>& next,
                     const std::vector<RunStarts>& base_starts,
                     const std::vector<RunStarts>& next_starts) {
  if ((!base_starts.empty() || !next_starts.empty()) &&
      (base_starts.size() != base.size() || next_starts.size() != next.size())) {
    throw std::invalid_argument("RunSpeeds: the starts must be given for every run or none");
  }
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
  starts_ = base_starts;
  starts_.insert(starts_.end(), next_starts.begin(), next_starts.end());
  timelines_.resize(starts_.size());
  std::size_t e = 0;
  for (const auto& [id, values] : table) {
    const double median = medians[e++];
    if (!(median > 0) || median < least) continue;
    const std::size_t counted = groups_.size();
    groups_.push_back(group_ids_.try_emplace(id.first, group_ids_.size()).first->second);
    std::vector<double>& ratios = ratios_.emplace_back();
    for (const double value : values) ratios.push_back(value / median);
    for (std::size_t r = 0; r < starts_.size(); ++r) {
      if (const auto at = starts_[r].find(id.second); at != starts_[r].end()) {
        timelines_[r].emplace_back(at->second, counted);
      }
    }
  }
  for (auto& timeline : timelines_) std::sort(timeline.begin(), timeline.end());
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
  auto [cached, added] = without_.try_emplace(group);
  if (added) cached->second = without(group);
  const std::vector<double>& whole = cached->second;
  if (whole.empty() || starts_.empty()) return whole;
  const auto id = group_ids_.find(group);
  const std::size_t own = id == group_ids_.end() ? groups_.size() : id->second;
  std::vector<double> speeds = whole;
  std::vector<double> ratios;
  const std::string name(execution);
  for (std::size_t r = 0; r < runs_; ++r) {
    const auto start = starts_[r].find(name);
    if (start == starts_[r].end()) continue;
    // Outwards from the execution's start, the nearer side first (the
    // earlier on a tie), skipping the group's own executions.
    const auto& timeline = timelines_[r];
    const auto split = std::lower_bound(timeline.begin(), timeline.end(),
                                        std::pair{start->second, std::size_t{0}});
    auto before = std::make_reverse_iterator(split);
    auto after = split;
    ratios.clear();
    while (ratios.size() < kMinSpeedExecutions &&
           (before != timeline.rend() || after != timeline.end())) {
      const bool take_before = after == timeline.end() ||
                               (before != timeline.rend() &&
                                start->second - before->first <= after->first - start->second);
      const std::size_t e = take_before ? (before++)->second : (after++)->second;
      if (groups_[e] != own) ratios.push_back(ratios_[e][r]);
    }
    if (ratios.size() == kMinSpeedExecutions) speeds[r] = median_of(ratios);
  }
  return speeds;
}

std::vector<double> RunSpeeds::without(const std::string& group) const {
  const auto id = group_ids_.find(group);
  const std::size_t own = id == group_ids_.end() ? groups_.size() : id->second;
  std::vector<std::size_t> counted;
  for (std::size_t e = 0; e < ratios_.size(); ++e) {
    if (groups_[e] != own) counted.push_back(e);
  }
  if (counted.size() < kMinSpeedExecutions) return {};
  return medians_over(counted);
}

}  // namespace passtiming
