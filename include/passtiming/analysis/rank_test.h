#pragma once
/// \file
/// The Mann-Whitney U test (Wilcoxon rank-sum test) of two independent
/// samples: does one side tend to take larger values than the other? It
/// assumes nothing about the shape of the distributions, which suits compile
/// times: skewed, with a floor and a long tail of slow runs.
///
///     RankTestResult r = mann_whitney_u(base_ms, new_ms, Alternative::greater);
///     if (r.p_value <= 0.05) { ... }   // the new runs are slower, at the 5 % level

#include <cstddef>
#include <span>
#include <string_view>

namespace passtiming {

/// The alternative hypothesis: what the test is looking for.
enum class Alternative {
  greater,    ///< the new sample tends to be larger (slower): one-sided
  two_sided,  ///< the samples differ in either direction
};

/// "greater" or "two-sided".
std::string_view alternative_name(Alternative alternative);

/// Largest n_base * n_new for which the exact distribution of U is used when
/// there are no ties; beyond it the normal approximation is accurate.
inline constexpr std::size_t kExactRankTestLimit = 2500;

struct RankTestResult {
  /// U of the new sample: the number of (base, new) pairs in which the new
  /// value is the larger, a tie counting one half. 0..n_base*n_new.
  double u_new = 0;
  double p_value = 1;  ///< in (0, 1]
  /// True when the p-value is the exact one (no ties, n_base * n_new at most
  /// kExactRankTestLimit); false for the normal approximation with tie and
  /// continuity correction.
  bool exact = false;
};

/// The test of `base` against `next` (each needs at least one value, else
/// the p-value is 1). Values are compared as given; NaN is not allowed.
RankTestResult mann_whitney_u(std::span<const double> base, std::span<const double> next,
                              Alternative alternative);

/// P(U_new >= u) under the null hypothesis, from the exact distribution of U
/// for samples of n_base and n_new distinct values. `u` may be fractional.
double exact_upper_tail(std::size_t n_base, std::size_t n_new, double u);

/// The smallest p-value the exact test can give with n_base and n_new runs
/// (no ties): 1 / C(n_base + n_new, n_base) one-sided, twice that two-sided
/// (capped at 1). With 2 runs per side it is 1/6 one-sided: no pass can ever
/// be significant at 0.05, however slow it got.
double smallest_p_value(std::size_t n_base, std::size_t n_new, Alternative alternative);

/// The fewest runs per side (the same number on both) with which
/// smallest_p_value() is at most `alpha`; 0 when `alpha` is not positive or
/// more than 1000 runs would be needed.
std::size_t min_runs_per_side(double alpha, Alternative alternative);

}  // namespace passtiming
