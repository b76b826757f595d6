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
///     RunSpeeds speeds(base_executions, new_executions);
///     std::vector<double> s = speeds.without("GVNPass");  // 1.02 = 2 % slower

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace passtiming {

/// One run's executions of each group: group → execution → value, an
/// execution named alike in every run of the same compile
/// (gate_measure.h's measure_by_execution).
using RunExecutions = std::unordered_map<std::string, std::unordered_map<std::string, double>>;

/// The fewest executions a speed is the median of: over fewer, one pass's
/// own noise would move it.
inline constexpr std::size_t kMinSpeedExecutions = 30;
/// The fewest executions on one IR unit a unit's speed is the median of;
/// with fewer, the run's speed stands for it.
inline constexpr std::size_t kMinUnitExecutions = 10;

/// Each execution's value in each run over its pooled median (its median
/// over the runs of both sides), for the executions of some time in every
/// run whose pooled median is at least the median of all pooled medians:
/// the smaller half, near the clock's granularity and the noise of the
/// smallest passes, is left out. It depends on the pooled runs alone, not
/// on their sides.
class RunSpeeds {
 public:
  RunSpeeds(const std::vector<RunExecutions>& base, const std::vector<RunExecutions>& next);

  /// Each run's speed, the base runs first, leaving out the executions of
  /// `group` (so that a pass's own change does not move its runs' speeds):
  /// the median over the other executions of their value over their pooled
  /// median in that run. 1.02 is a run 2 % slower than the typical one.
  /// Empty when fewer than kMinSpeedExecutions other executions count.
  std::vector<double> without(const std::string& group) const;

  /// Each run's speed where `execution` of `group` ran, the base runs
  /// first: the median, over the counted executions of the other groups on
  /// the same IR unit of the same section (run just before and after it:
  /// a function's passes run one after another), of their value over their
  /// pooled median, when at least kMinUnitExecutions count; else
  /// without(group). The machine's moment moves within a run: on clang's
  /// GVNPass, the unit's speed narrowed the spread of the sides' matched
  /// totals from 1.2 % (the run's) to 0.9 %.
  std::vector<double> of(const std::string& group, std::string_view execution) const;

  /// The section and IR unit of an execution's name (measure_by_execution:
  /// section, pass, unit, occurrence, joined by U+001F); "" for a name of
  /// another form.
  static std::string unit_of(std::string_view execution);

 private:
  std::vector<double> medians_over(const std::vector<std::size_t>& counted) const;

  std::size_t runs_ = 0;
  std::vector<std::string> groups_;  ///< each counted execution's group
  /// ratios_[e][r]: counted execution e's value in run r over its pooled median.
  std::vector<std::vector<double>> ratios_;
  /// The counted executions of each unit (unit_of), by index.
  std::unordered_map<std::string, std::vector<std::size_t>> by_unit_;
  mutable std::unordered_map<std::string, std::vector<double>> without_;  ///< a cache
};

}  // namespace passtiming
