#include "passtiming/analysis/rank_test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace passtiming {
namespace {

/// The exact null distribution of U_new for n_base and n_new distinct
/// values: probabilities of U = 0..n_base*n_new. Built from the recurrence
/// on the largest of the pooled values: it belongs to the new sample with
/// probability n/(m+n), and then beats all m base values (U = m + U of the
/// rest), or to the base sample with probability m/(m+n) (U = U of the
/// rest). Probabilities rather than counts, so nothing overflows.
std::vector<double> exact_distribution(std::size_t m, std::size_t n) {
  // row[j] is the distribution for (i base, j new) values, for the current i.
  std::vector<std::vector<double>> previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j) previous[j] = {1.0};  // i = 0: U is always 0
  for (std::size_t i = 1; i <= m; ++i) {
    current[0] = {1.0};  // j = 0: U is always 0
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double>& out = current[j];
      out.assign(i * j + 1, 0.0);
      const double p_new = static_cast<double>(j) / static_cast<double>(i + j);
      const std::vector<double>& largest_new = current[j - 1];  // (i, j - 1), shifted by i
      const std::vector<double>& largest_base = previous[j];    // (i - 1, j)
      for (std::size_t u = 0; u < largest_new.size(); ++u) out[u + i] += p_new * largest_new[u];
      for (std::size_t u = 0; u < largest_base.size(); ++u) out[u] += (1 - p_new) * largest_base[u];
    }
    std::swap(previous, current);
  }
  return previous[n];
}

double standard_normal_upper_tail(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

}  // namespace

std::string_view alternative_name(Alternative alternative) {
  return alternative == Alternative::greater ? "greater" : "two-sided";
}

double exact_upper_tail(std::size_t n_base, std::size_t n_new, double u) {
  const std::vector<double> distribution = exact_distribution(n_base, n_new);
  // U takes whole values only: P(U >= u) starts at the first whole value >= u.
  const double first = std::max(0.0, std::ceil(u - 1e-9));
  double tail = 0;
  for (auto k = static_cast<std::size_t>(first); k < distribution.size(); ++k) {
    tail += distribution[k];
  }
  return std::min(1.0, tail);
}

RankTestResult mann_whitney_u(std::span<const double> base, std::span<const double> next,
                              Alternative alternative) {
  RankTestResult result;
  const std::size_t m = base.size(), n = next.size();
  if (m == 0 || n == 0) return result;

  // Mid-ranks of the pooled values; ties share the mean of their ranks.
  std::vector<std::pair<double, bool>> pooled;  // value, is-new
  pooled.reserve(m + n);
  for (double v : base) pooled.emplace_back(v, false);
  for (double v : next) pooled.emplace_back(v, true);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_new = 0;
  double tie_term = 0;  // sum over groups of tied values of t^3 - t
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) ++end;
    const double t = static_cast<double>(end - start);
    const double mid_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    for (std::size_t k = start; k < end; ++k) {
      if (pooled[k].second) rank_sum_new += mid_rank;
    }
    tie_term += t * t * t - t;
    start = end;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  result.u_new = rank_sum_new - dn * (dn + 1) / 2;
  const double mean = dm * dn / 2;

  if (tie_term == 0 && m * n <= kExactRankTestLimit) {
    result.exact = true;
    const double upper = exact_upper_tail(m, n, result.u_new);
    if (alternative == Alternative::greater) {
      result.p_value = upper;
    } else {
      // The distribution is symmetric about mean: P(U <= u) = P(U >= m*n - u).
      const double lower = exact_upper_tail(m, n, dm * dn - result.u_new);
      result.p_value = std::min(1.0, 2 * std::min(upper, lower));
    }
    return result;
  }

  const double total = dm + dn;
  const double variance = dm * dn / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (!(variance > 0)) return result;  // every value tied: no evidence either way
  const double sd = std::sqrt(variance);
  // The continuity correction moves U half a step towards the mean, as the
  // discrete U sits at whole (or half, with ties) values.
  if (alternative == Alternative::greater) {
    result.p_value = standard_normal_upper_tail((result.u_new - mean - 0.5) / sd);
  } else {
    const double distance = std::max(0.0, std::abs(result.u_new - mean) - 0.5);
    result.p_value = std::min(1.0, 2 * standard_normal_upper_tail(distance / sd));
  }
  return result;
}

double smallest_p_value(std::size_t n_base, std::size_t n_new, Alternative alternative) {
  if (n_base == 0 || n_new == 0) return 1;
  // C(m + n, m) as a product of ratios, exact enough in a double.
  double arrangements = 1;
  for (std::size_t k = 1; k <= n_base; ++k) {
    arrangements *= static_cast<double>(n_new + k) / static_cast<double>(k);
  }
  const double one_sided = 1 / arrangements;
  return alternative == Alternative::greater ? one_sided : std::min(1.0, 2 * one_sided);
}

std::size_t min_runs_per_side(double alpha, Alternative alternative) {
  if (!(alpha > 0)) return 0;
  for (std::size_t n = 1; n <= 1000; ++n) {
    if (smallest_p_value(n, n, alternative) <= alpha) return n;
  }
  return 0;
}

}  // namespace passtiming
