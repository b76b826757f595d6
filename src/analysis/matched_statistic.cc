#include "passtiming/analysis/matched_statistic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {
namespace {

/// Each run's score: its executions' ranks among the pooled runs (ties
/// sharing the mean of their ranks), each weighed by `weights[k]` (the
/// weights summing to 1).
std::vector<double> rank_scores(const std::vector<std::vector<double>>& pooled,
                                const std::vector<double>& weights) {
  const std::size_t n_runs = pooled.front().size();
  std::vector<double> scores(n_runs, 0.0);
  std::vector<std::uint32_t> order(n_runs);
  for (std::size_t k = 0; k < pooled.size(); ++k) {
    const std::vector<double>& row = pooled[k];
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return row[a] < row[b]; });
    for (std::size_t i = 0; i < n_runs;) {
      std::size_t j = i;
      while (j + 1 < n_runs && row[order[j + 1]] == row[order[i]]) ++j;
      const double rank = static_cast<double>(i + j) / 2 + 1;  // the mean of ranks i+1..j+1
      for (std::size_t t = i; t <= j; ++t) scores[order[t]] += weights[k] * rank;
      i = j + 1;
    }
  }
  return scores;
}

/// Every execution alike.
std::vector<double> alike_weights(const std::vector<std::vector<double>>& pooled) {
  return std::vector<double>(pooled.size(), 1.0 / static_cast<double>(pooled.size()));
}

/// Each execution by its size (execution_size) in the pooled values, so
/// the same for every split: the test stays exact. All
/// 0 (no execution has a size) when every median is 0: the lens then sees
/// nothing.
std::vector<double> size_weights(const std::vector<std::vector<double>>& pooled) {
  std::vector<double> weights;
  weights.reserve(pooled.size());
  double sum = 0;
  for (const std::vector<double>& row : pooled) {
    weights.push_back(execution_size(row));
    sum += weights.back();
  }
  for (double& w : weights) w = sum > 0 ? w / sum : 0;
  return weights;
}

/// A linear permutation statistic, the sum of the new runs' scores,
/// standardised by its mean and standard deviation over every split of the
/// runs (those of sampling n_new of the N scores without replacement), so
/// that two such statistics can be compared on one scale.
class Standardised {
 public:
  Standardised(const std::vector<double>& scores, std::size_t n_new) {
    const auto n = static_cast<double>(scores.size());
    const auto k = static_cast<double>(n_new);
    const double mean = std::accumulate(scores.begin(), scores.end(), 0.0) / n;
    double squares = 0;
    for (double x : scores) squares += (x - mean) * (x - mean);
    mean_ = k * mean;
    const double variance = k * (n - k) / (n * (n - 1)) * squares;
    // Scores all alike (or nearly, by rounding) cannot tell the splits
    // apart: every split then stands at 0.
    scale_ = variance > 1e-18 * std::max(1.0, mean * mean) ? 1 / std::sqrt(variance) : 0;
  }
  double operator()(double new_sum) const { return (new_sum - mean_) * scale_; }

 private:
  double mean_ = 0;
  double scale_ = 0;
};

/// A fixed generator (splitmix64): the same splits on every machine and
/// standard library, so that the same runs give the same p-value.
class SplitGenerator {
 public:
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound), bound at most 2^32: the high bits of a product.
  std::size_t below(std::size_t bound) {
    return static_cast<std::size_t>(((next() >> 32) * static_cast<std::uint64_t>(bound)) >> 32);
  }

 private:
  std::uint64_t state_ = 0x70617373u;  // "pass"
};

/// C(n, k) as a double, exact for the sizes the gate sees.
double choose(std::size_t n, std::size_t k) {
  double out = 1;
  for (std::size_t i = 1; i <= k; ++i) {
    out *= static_cast<double>(n - k + i) / static_cast<double>(i);
  }
  return std::round(out);
}

}  // namespace

double execution_size(std::vector<double> values) {
  return std::abs(median_of(values));
}

MatchedTotals matched_totals(const MatchedRuns& runs) {
  MatchedTotals totals;
  for (const std::vector<double>& row : runs.values) {
    std::vector<double> base(row.begin(),
                             row.begin() + static_cast<std::ptrdiff_t>(runs.base_runs));
    std::vector<double> next(row.begin() + static_cast<std::ptrdiff_t>(runs.base_runs), row.end());
    totals.base += median_of(base);
    totals.next += median_of(next);
  }
  return totals;
}

MatchedGrowth largest_matched_growth(const MatchedRuns& runs) {
  MatchedGrowth out;
  for (const std::vector<double>& row : runs.values) {
    std::vector<double> pooled = row;
    std::sort(pooled.begin(), pooled.end());
    const std::size_t n_new = pooled.size() - runs.base_runs;
    std::vector<double> smallest(pooled.begin(),
                                 pooled.begin() + static_cast<std::ptrdiff_t>(runs.base_runs));
    std::vector<double> largest(pooled.end() - static_cast<std::ptrdiff_t>(n_new), pooled.end());
    const double low = median_of(smallest);
    out.base_total += low;
    out.growth += median_of(largest) - low;
  }
  return out;
}

MatchedTestResult matched_rank_test(const MatchedRuns& runs, const std::vector<double>& base_growth,
                                    Alternative alternative) {
  MatchedTestResult result;
  result.totals = matched_totals(runs);
  if (runs.values.empty()) return result;
  const std::size_t n_runs = runs.values.front().size();
  const std::size_t n_base = runs.base_runs;
  if (n_base == 0 || n_base >= n_runs) return result;

  // The pooled values the splits share: the base runs grown, one-sided.
  std::vector<std::vector<double>> pooled = runs.values;
  if (alternative == Alternative::greater) {
    for (std::vector<double>& row : pooled) {
      for (std::size_t r = 0; r < n_base; ++r) row[r] *= base_growth[r];
    }
  }
  result.scores = rank_scores(pooled, alike_weights(pooled));
  const std::vector<double> by_size = rank_scores(pooled, size_weights(pooled));
  const std::vector<double>& scores = result.scores;
  // The statistic of a split: the larger of its two standardised sums, of
  // the executions' ranks alike and by size (two-sided, of their distances
  // from 0). One distribution over the splits for both, so the p-value stays
  // exact: the test has the power of the better of the two, less the small
  // price of the larger of two.
  const std::size_t n_new = n_runs - n_base;
  const Standardised alike(scores, n_new), sized(by_size, n_new);
  const auto statistic = [&](double alike_sum, double size_sum) {
    const double a = alike(alike_sum), b = sized(size_sum);
    return alternative == Alternative::greater ? std::max(a, b)
                                               : std::max(std::abs(a), std::abs(b));
  };
  const auto new_sum = [n_base](const std::vector<double>& v) {
    return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(n_base), v.end(), 0.0);
  };
  const double observed = statistic(new_sum(scores), new_sum(by_size));
  // As far as the observed split, up to the rounding of the same scores
  // summed in another order (the statistic is in standard deviations).
  constexpr double kTolerance = 1e-9;

  const double splits = choose(n_runs, n_base);
  std::size_t at_least = 0;
  if (splits <= static_cast<double>(kExactSplitLimit)) {
    // Every split, the observed one among them: prev_permutation walks the
    // arrangements of the base side's n_base ones among the runs.
    std::vector<char> in_base(n_runs, 0);
    std::fill(in_base.begin(), in_base.begin() + static_cast<std::ptrdiff_t>(n_base), 1);
    do {
      double alike_sum = 0, size_sum = 0;
      for (std::size_t r = 0; r < n_runs; ++r) {
        if (!in_base[r]) {
          alike_sum += scores[r];
          size_sum += by_size[r];
        }
      }
      if (statistic(alike_sum, size_sum) >= observed - kTolerance) ++at_least;
    } while (std::prev_permutation(in_base.begin(), in_base.end()));
    result.p_value = static_cast<double>(at_least) / splits;
    result.exact = true;
    return result;
  }
  SplitGenerator generator;
  std::vector<std::uint32_t> shuffled(n_runs);
  for (std::size_t draw = 0; draw < kRandomSplits; ++draw) {
    // The first n_new places of a partial Fisher-Yates shuffle are the new
    // side.
    std::iota(shuffled.begin(), shuffled.end(), std::uint32_t{0});
    double alike_sum = 0, size_sum = 0;
    for (std::size_t i = 0; i < n_new; ++i) {
      std::swap(shuffled[i], shuffled[i + generator.below(n_runs - i)]);
      alike_sum += scores[shuffled[i]];
      size_sum += by_size[shuffled[i]];
    }
    if (statistic(alike_sum, size_sum) >= observed - kTolerance) ++at_least;
  }
  result.p_value = static_cast<double>(1 + at_least) / static_cast<double>(1 + kRandomSplits);
  return result;
}

double smallest_matched_rank_p(std::size_t n_base, std::size_t n_new, Alternative alternative) {
  if (n_base == 0 || n_new == 0) return 1;
  if (choose(n_base + n_new, n_base) > static_cast<double>(kExactSplitLimit)) {
    return 1 / static_cast<double>(1 + kRandomSplits);
  }
  return smallest_p_value(n_base, n_new, alternative);
}

}  // namespace passtiming
