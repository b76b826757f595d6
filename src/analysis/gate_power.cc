#include "passtiming/analysis/gate_power.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {
namespace {

/// The runs' efficiency against a mean's on normal data: the rank test
/// needs pi/3 times the runs of a t test for the same power, a median pi/2
/// times those of a mean for the same variance.
double efficiency(PowerOf of) {
  return of == PowerOf::rank_test ? 3 / std::numbers::pi : 2 / std::numbers::pi;
}

/// The distance, in standard errors, between the null boundary and a
/// change that `of` holds for with kGatePower: z(1 - level) + z(power) for
/// the test, z(power) for a growth of medians.
double z_distance(double level, PowerOf of) {
  const double power = normal_quantile(kGatePower);
  return of == PowerOf::rank_test ? normal_quantile(1 - level) + power : power;
}

bool level_valid(double level, PowerOf of) {
  return of == PowerOf::median_growth || (level > 0 && level < 1);
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
                                            double level, double boundary, PowerOf of) {
  if (n_base == 0 || n_new == 0 || !level_valid(level, of) || !(boundary > 0)) {
    return std::nullopt;
  }
  const double error =
      spread * std::sqrt((1.0 / static_cast<double>(n_base) + 1.0 / static_cast<double>(n_new)) /
                         efficiency(of));
  return (boundary * std::exp(z_distance(level, of) * error) - 1) * 100;
}

std::optional<std::size_t> runs_to_detect(double ratio, double spread, double level,
                                          double boundary, PowerOf of, std::size_t limit) {
  if (!(boundary > 0) || !(ratio > boundary) || !level_valid(level, of)) return std::nullopt;
  // ln(ratio / boundary) >= z * spread * sqrt(2 / (n * efficiency)).
  const double margin = std::log(ratio / boundary) / z_distance(level, of);
  const double runs = 2 * spread * spread / (margin * margin * efficiency(of));
  if (!(runs <= static_cast<double>(limit))) return std::nullopt;
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(runs)));
}

}  // namespace passtiming
