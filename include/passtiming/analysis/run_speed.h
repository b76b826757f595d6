#pragma once
/// \file
/// How fast each run of a gate ran, from its executions of every pass: the
/// factor the matched statistic divides a pass's executions by, so that what
/// a run's moment on the machine did to all of it (a neighbour taking memory
/// bandwidth, a slower core, a busier second) cancels and what the pass did
/// alone stays. On 30 compiles of the calibration's file at nice -20 (two
/// sides of 10 drawn from them 40 times), the spread (standard deviation)
/// of the new/base ratio of the matched totals was, as measured, scaled by
/// the rest of the run's total (the runs statistic's way) and divided by
/// the speed: IndVarSimplifyPass 2.9 %, 1.5 %, 0.7 %; InstCombinePass 2.1 %,
/// 2.2 %, 0.9 %; GVNPass 3.9 %, 0.8 %, 1.4 % (docs/gate.md).
///
///     RunSpeeds speeds(base_executions, new_executions, base_starts, new_starts);
///     std::vector<double> s = speeds.without("GVNPass");  // 1.02 = 2 % slower

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace passtiming {

/// One run's executions of each group: group → execution → value, an
/// execution named alike in every run of the same compile
/// (gate_measure.h's measure_by_execution).
using RunExecutions = std::unordered_map<std::string, std::unordered_map<std::string, double>>;

/// When each execution of one run began, by the names of RunExecutions: the
/// clock value of its record's start (gate_measure.h's measure_by_execution), in
/// any unit, the same for every execution of the run.
using RunStarts = std::unordered_map<std::string, double>;

/// How many executions a speed is the median of: the fewest a run's speed
/// needs (over fewer, one pass's own noise would move it), and how many of
/// the nearest in time an execution's speed takes.
inline constexpr std::size_t kMinSpeedExecutions = 30;

/// Each execution's value in each run over its pooled median (its median
/// over the runs of both sides), for the executions of some time in every
/// run whose pooled median is at least the median of all pooled medians:
/// the smaller half, near the clock's granularity and the noise of the
/// smallest passes, is left out. It depends on the pooled runs alone, not
/// on their sides.
class RunSpeeds {
 public:
  /// `base_starts` and `next_starts` are empty, or hold one RunStarts per
  /// run of their side (else std::invalid_argument).
  RunSpeeds(const std::vector<RunExecutions>& base, const std::vector<RunExecutions>& next,
            const std::vector<RunStarts>& base_starts = {},
            const std::vector<RunStarts>& next_starts = {});

  /// Each run's speed, the base runs first, leaving out the executions of
  /// `group` (so that a pass's own change does not move its runs' speeds):
  /// the median over the other executions of their value over their pooled
  /// median in that run. 1.02 is a run 2 % slower than the typical one.
  /// Empty when fewer than kMinSpeedExecutions other executions count.
  std::vector<double> without(const std::string& group) const;

  /// Each run's speed when `execution` of `group` began, the base runs
  /// first: the median, over the kMinSpeedExecutions counted executions of
  /// the other groups whose starts in that run are nearest its start there,
  /// of their value over their pooled median. The run's speed (without())
  /// where the runs' starts were not given or the execution has none in a
  /// run; empty when without() is. The machine's moment moves within a run
  /// (a neighbour's burst, a core shared for a while): on 16 compiles of
  /// the calibration's file during such bursts, the spread of the single
  /// IPSCCPPass execution fell from 26 % divided by the run's speed (23 %
  /// by its IR unit's, the module) to 7 % by the nearest executions'.
  std::vector<double> of(const std::string& group, std::string_view execution) const;

 private:
  std::vector<double> medians_over(const std::vector<std::size_t>& counted) const;

  std::size_t runs_ = 0;
  std::vector<std::size_t> groups_;  ///< each counted execution's group, by group_ids_
  std::unordered_map<std::string, std::size_t> group_ids_;
  /// ratios_[e][r]: counted execution e's value in run r over its pooled median.
  std::vector<std::vector<double>> ratios_;
  /// Each run's starts (empty when not given), and its counted executions
  /// by start: (start, e).
  std::vector<RunStarts> starts_;
  std::vector<std::vector<std::pair<double, std::size_t>>> timelines_;
  mutable std::unordered_map<std::string, std::vector<double>> without_;  ///< a cache
};

}  // namespace passtiming
