#include "passtiming/analysis/gate_power.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {
namespace {

/// The factor of the rank test's standard error over a t test's: it needs
/// pi/3 times the runs for the same power on normal data.
constexpr double kRankEfficiency = 3 / std::numbers::pi;

/// (z(1 - level) + z(power)): the distance, in standard errors, between the
/// null boundary and a change flagged with that power.
double z_distance(double level) {
  return normal_quantile(1 - level) + normal_quantile(kGatePower);
}

}  // namespace

double normal_quantile(double p) {
  // Newton's method on the CDF, 0.5 * erfc(-z / sqrt 2), from a start that
  // the tails' asymptote gives; the CDF is smooth and monotone, so a few
  // steps reach the double's precision.
  const double tail = std::min(p, 1 - p);
  double z = tail < 0.5 ? -std::sqrt(-2 * std::log(tail)) : 0.0;
  if (p > 0.5) z = -z;
  for (int i = 0; i < 50; ++i) {
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    const double density = std::exp(-z * z / 2) / std::sqrt(2 * std::numbers::pi);
    if (!(density > 0)) break;
    const double step = (cdf - p) / density;
    z -= step;
    if (std::abs(step) < 1e-12 * std::max(1.0, std::abs(z))) break;
  }
  return z;
}

std::optional<double> log_spread(std::span<const double> values) {
  if (values.size() < 3) return std::nullopt;
  std::vector<double> logs;
  logs.reserve(values.size());
  for (const double v : values) {
    if (!(v > 0)) return std::nullopt;
    logs.push_back(std::log(v));
  }
  std::vector<double> sorted = logs;
  const double middle = median_of(sorted);
  for (double& v : logs) v = std::abs(v - middle);
  return 1.4826 * median_of(logs);
}

std::optional<double> pooled_log_spread(std::span<const double> base,
                                        std::span<const double> next) {
  const std::optional<double> b = log_spread(base);
  const std::optional<double> n = log_spread(next);
  if (!b || !n) return std::nullopt;
  return std::sqrt((*b * *b + *n * *n) / 2);
}

std::optional<double> detectable_change_pct(double spread, std::size_t n_base, std::size_t n_new,
                                            double level, double boundary) {
  if (n_base == 0 || n_new == 0 || !(level > 0 && level < 1) || !(boundary > 0)) {
    return std::nullopt;
  }
  const double error =
      spread * std::sqrt((1.0 / static_cast<double>(n_base) + 1.0 / static_cast<double>(n_new)) /
                         kRankEfficiency);
  return (boundary * std::exp(z_distance(level) * error) - 1) * 100;
}

std::optional<std::size_t> runs_to_detect(double ratio, double spread, double level,
                                          double boundary, std::size_t limit) {
  if (!(boundary > 0) || !(ratio > boundary) || !(level > 0 && level < 1)) return std::nullopt;
  // ln(ratio / boundary) >= z * spread * sqrt(2 / (n * efficiency)).
  const double margin = std::log(ratio / boundary) / z_distance(level);
  const double runs = 2 * spread * spread / (margin * margin * kRankEfficiency);
  if (!(runs <= static_cast<double>(limit))) return std::nullopt;
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(runs)));
}

}  // namespace passtiming
