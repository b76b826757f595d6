#pragma once
/// \file
/// What the regression gate can see with the runs it has: the smallest
/// change of a group that its test would flag with 95 % chance, from the
/// spread of the group's runs. A gate that flags nothing says "no
/// regression" of every group, but for a group whose runs spread by 13 %
/// (a 3 ms pass of one execution on a shared machine), ten runs per side
/// cannot show even a change of twice the threshold: the verdict names such
/// groups instead of passing them in silence, with the runs they would need.
///
/// A change is flagged when two things hold (regression_gate.h): the test
/// is significant, and the statistic (medians) grew past the threshold and
/// the floor; each has its estimate (PowerOf), from the spread of the
/// values it looks at, and the gate takes the larger. The test's is the
/// normal approximation of the shifted one-sided test:
/// the group's log values spread by s (a robust standard deviation, pooled
/// over the two sides), the rank test as efficient as a t test on 3/pi of
/// the runs (its efficiency on normal data), at Holm's strictest level
/// alpha / tested. A change by the ratio R is flagged with probability 1 -
/// beta when ln(R / boundary) >= (z(1 - level) + z(1 - beta)) * s *
/// sqrt((1/n_base + 1/n_new) * pi / 3), where the boundary is the growth of
/// the null hypothesis (1 + threshold, or the floor's where it is larger).
/// An estimate, not a guarantee: it assumes the runs independent and their
/// log values about normal.
///
///     // runs spreading by 13 %, 10 a side, 40 groups tested: about +38.6 %
///     const auto pct = detectable_change_pct(0.13, 10, 10, 0.05 / 40, 1.05);

#include <cstddef>
#include <optional>
#include <span>

namespace passtiming {

/// The power the estimates are made for: a change flagged 19 times in 20.
inline constexpr double kGatePower = 0.95;

/// Which of the gate's two conditions an estimate is of: a group is flagged
/// when its test is significant and its statistic grew past the threshold
/// and the floor.
enum class PowerOf {
  /// The shifted rank test, significant at `level`: as a t test on 3/pi of
  /// the runs.
  rank_test,
  /// The statistic's growth past the boundary, a comparison of medians (no
  /// level): the median of n runs varies as the mean of 2n/pi of them.
  median_growth,
};

/// The standard normal quantile: z with P(Z <= z) = p, for 0 < p < 1.
double normal_quantile(double p);

/// The spread of `values` on a log scale: 1.4826 times the median absolute
/// deviation of their logarithms from their median, a standard deviation
/// that a few outlying runs do not move. Nullopt when a value is not
/// positive or there are fewer than 3.
std::optional<double> log_spread(std::span<const double> values);

/// The two sides' log spreads pooled: the root of their mean square.
/// Nullopt when either has none.
std::optional<double> pooled_log_spread(std::span<const double> base, std::span<const double> next);

/// The smallest change, in percent, that condition `of` holds for with
/// probability kGatePower: runs spread by `spread` (log_spread), `n_base`
/// and `n_new` runs, tested at `level` (rank_test), against the null
/// hypothesis's growth ratio `boundary` (> 0). Nullopt when a side has no
/// run or, for the test, level is not in (0, 1).
std::optional<double> detectable_change_pct(double spread, std::size_t n_base, std::size_t n_new,
                                            double level, double boundary,
                                            PowerOf of = PowerOf::rank_test);

/// The fewest runs per side (the same on both) with which condition `of`
/// holds for a change by `ratio` with probability kGatePower; nullopt when
/// `ratio` is not beyond `boundary`, for the test the level is not in
/// (0, 1), or more than `limit` runs would be needed.
std::optional<std::size_t> runs_to_detect(double ratio, double spread, double level,
                                          double boundary, PowerOf of = PowerOf::rank_test,
                                          std::size_t limit = 100000);

}  // namespace passtiming
