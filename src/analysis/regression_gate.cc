#include "passtiming/analysis/regression_gate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "passtiming/analysis/aggregate.h"

namespace passtiming {
namespace {

/// The values of `key` in each run of `side`, 0 where a run lacks it.
std::vector<double> runs_of(const std::vector<std::unordered_map<std::string, double>>& side,
                            const std::string& key, bool& present) {
  std::vector<double> values;
  values.reserve(side.size());
  present = false;
  for (const auto& run : side) {
    const auto it = run.find(key);
    present = present || it != run.end();
    values.push_back(it == run.end() ? 0.0 : it->second);
  }
  return values;
}

/// Whether `delta` over `base` is a change of more than `threshold_pct`
/// percent. A base of 0 makes any growth infinitely large; a negative base
/// (a measure that can shrink, rss or ir) is compared by its magnitude.
bool exceeds_threshold(double base, double delta, double threshold_pct) {
  if (delta <= 0) return false;
  if (base == 0) return true;
  return delta / std::abs(base) * 100 > threshold_pct;
}

using Side = std::vector<std::unordered_map<std::string, double>>;

/// The rank test of the new values against the base values grown by the
/// threshold and the floor (one-sided), so that it tests the change's size,
/// not only its direction; two-sided, the plain test (a two-sided
/// hypothesis has no one direction to grow the base in), and the threshold
/// and the floor are then checked on the medians alone.
RankTestResult shifted_test(const std::vector<double>& base, const std::vector<double>& next,
                            const GateSettings& settings) {
  if (settings.alternative != Alternative::greater) {
    return mann_whitney_u(base, next, settings.alternative);
  }
  std::vector<double> grown = base;
  for (double& value : grown) value = grown_by_threshold(value, settings);
  return mann_whitney_u(grown, next, Alternative::greater);
}

/// Every group of either side, in key order.
std::set<std::string> keys_of(const Side& base, const Side& next) {
  std::set<std::string> keys;
  for (const Side* side : {&base, &next}) {
    for (const auto& run : *side) {
      for (const auto& entry : run) keys.insert(entry.first);
    }
  }
  return keys;
}

/// The spread of values relative to their size: interquartile range over
/// the median (infinite for a median of 0).
double relative_spread(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(position);
    const std::size_t above = std::min(below + 1, values.size() - 1);
    return values[below] +
           (values[above] - values[below]) * (position - static_cast<double>(below));
  };
  const double middle = at(0.5);
  return middle > 0 ? (at(0.75) - at(0.25)) / middle : std::numeric_limits<double>::infinity();
}

/// The factor by which each run's values of one group are scaled by the
/// rest of that run: (the pooled median of the rests) / (the run's total
/// less the value), the base runs first. What a busy machine does to a
/// whole run (every pass 7 % slower while a neighbour takes memory
/// bandwidth) cancels, and what a group does alone stays; the rest leaves
/// the group itself out, so its own change is not diluted. But where the
/// rest is dominated by a few noisy groups, scaling by it adds their noise:
/// so the values are scaled only when that spreads the group's pooled runs
/// less, a choice made from the pooled runs without their sides, as the
/// choice of the tested groups is. Under the null hypothesis the two sides
/// stay exchangeable, the reference being pooled. Empty (left as measured)
/// when scaling does not spread them less, or when a value or a rest is not
/// positive (rss, ir), where a ratio means nothing.
std::vector<double> rest_factors(const std::vector<double>& base_values,
                                 const std::vector<double>& new_values,
                                 const std::vector<double>& base_totals,
                                 const std::vector<double>& new_totals) {
  std::vector<double> rests;
  rests.reserve(base_values.size() + new_values.size());
  for (std::size_t i = 0; i < base_values.size(); ++i) {
    rests.push_back(base_totals[i] - base_values[i]);
  }
  for (std::size_t i = 0; i < new_values.size(); ++i) {
    rests.push_back(new_totals[i] - new_values[i]);
  }
  const auto not_positive = [](double v) { return !(v > 0); };
  if (std::any_of(rests.begin(), rests.end(), not_positive) ||
      std::any_of(base_values.begin(), base_values.end(), [](double v) { return v < 0; }) ||
      std::any_of(new_values.begin(), new_values.end(), [](double v) { return v < 0; })) {
    return {};
  }
  std::vector<double> pooled_rests = rests;
  const double reference = median_of(pooled_rests);
  std::vector<double> raw = base_values, scaled, factors;
  raw.insert(raw.end(), new_values.begin(), new_values.end());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    factors.push_back(reference / rests[i]);
    scaled.push_back(raw[i] * factors.back());
  }
  if (!(relative_spread(scaled) < relative_spread(raw))) return {};
  return factors;
}

/// A group's executions matched across the runs of both sides (base runs
/// first), as measured; their names into `names`, in the order of the rows:
/// the order of the names, so that the same runs give the same table.
MatchedRuns matched_runs(const std::string& key, const std::vector<RunExecutions>& base,
                         const std::vector<RunExecutions>& next, std::vector<std::string>& names) {
  std::vector<const std::unordered_map<std::string, double>*> runs;
  for (const std::vector<RunExecutions>* side : {&base, &next}) {
    for (const RunExecutions& run : *side) {
      const auto it = run.find(key);
      runs.push_back(it == run.end() ? nullptr : &it->second);
    }
  }
  names.clear();
  for (const auto* executions : runs) {
    if (!executions) continue;
    for (const auto& entry : *executions) names.push_back(entry.first);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  MatchedRuns out;
  out.base_runs = base.size();
  out.values.assign(names.size(), std::vector<double>(runs.size(), 0.0));
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!runs[r]) continue;
    for (const auto& [name, value] : *runs[r]) {
      const auto at = std::lower_bound(names.begin(), names.end(), name) - names.begin();
      out.values[static_cast<std::size_t>(at)][r] = value;
    }
  }
  return out;
}

/// The factors by which the matched statistic's one-sided test grows each
/// base run: its value of the group grown by the threshold and the floor,
/// as the rank test grows it (grown_by_threshold), spread over its
/// executions in proportion; 1 for a run whose value is not positive.
std::vector<double> matched_base_growth(const std::vector<double>& base_values,
                                        const GateSettings& settings) {
  std::vector<double> factors;
  for (const double b : base_values) {
    factors.push_back(b > 0 ? grown_by_threshold(b, settings) / b : 1.0);
  }
  return factors;
}

/// The executions of both sides, for the matched statistic, and the runs'
/// speeds they give.
struct SideExecutions {
  const std::vector<RunExecutions>& base;
  const std::vector<RunExecutions>& next;
  RunSpeeds speeds;
};

/// Divides each of group `key`'s executions in each run by the speed when
/// it ran (RunSpeeds::of: its nearest executions', else its run's, without
/// the group),
/// and returns whether it did. Always, where there is a speed: unlike a
/// run's total, a speed is a median over many executions, which divides the
/// group's spread between two sides by two to four on clang's passes
/// (run_speed.h); and a rule on the pooled spread, as rest_factors has,
/// would read a true change between the sides as spread. Not when the run
/// has no speed without the group, a value is negative (rss, ir) or a speed
/// not positive.
bool divide_by_speeds(MatchedRuns& runs, const std::string& key,
                      const std::vector<std::string>& names, const RunSpeeds& speeds) {
  if (speeds.without(key).empty()) return false;
  std::vector<std::vector<double>> divided = runs.values;
  for (std::size_t k = 0; k < divided.size(); ++k) {
    const std::vector<double> speed = speeds.of(key, names[k]);
    for (std::size_t r = 0; r < divided[k].size(); ++r) {
      if (!(speed[r] > 0) || divided[k][r] < 0) return false;
      divided[k][r] /= speed[r];
    }
  }
  runs.values = std::move(divided);
  return true;
}

/// How the executions of a typical ratio weigh: alike, as the matched
/// test's first lens counts them, or by size (execution_size), as its
/// second.
enum class Weigh { alike, by_size };

/// Each run's typical ratio over the executions of `runs`: the weighted
/// geometric mean, over the executions above 0 in every run, of the
/// execution's value there over its geometric mean in all runs. It is what
/// a lens of the matched test compares (on a log scale instead of ranks),
/// and so its spread is the one that tells that lens's power, which the
/// spread of the runs' sums, moved by the few largest executions and by
/// one preempted large execution, overstates. Empty when no execution is
/// above 0 in every run.
std::vector<double> typical_ratios(const MatchedRuns& runs, std::size_t n_runs, Weigh weigh) {
  std::vector<double> logs(n_runs, 0.0);
  double weight_sum = 0;
  for (const std::vector<double>& row : runs.values) {
    if (!std::all_of(row.begin(), row.end(), [](double v) { return v > 0; })) continue;
    const double weight = weigh == Weigh::alike ? 1.0 : execution_size(row);
    double mean = 0;
    for (const double v : row) mean += std::log(v);
    mean /= static_cast<double>(n_runs);
    for (std::size_t r = 0; r < n_runs; ++r) logs[r] += weight * (std::log(row[r]) - mean);
    weight_sum += weight;
  }
  if (!(weight_sum > 0)) return {};
  for (double& v : logs) v = std::exp(v / weight_sum);
  return logs;
}

/// The log spread of the runs' typical ratios (typical_ratios), pooled over
/// the `n_base` base runs and the `n_new` new runs; nullopt without one.
std::optional<double> typical_spread(const MatchedRuns& runs, std::size_t n_base, std::size_t n_new,
                                     Weigh weigh) {
  const std::vector<double> typical = typical_ratios(runs, n_base + n_new, weigh);
  if (typical.empty()) return std::nullopt;
  const auto split = typical.begin() + static_cast<std::ptrdiff_t>(n_base);
  return pooled_log_spread(std::vector<double>(typical.begin(), split),
                           std::vector<double>(split, typical.end()));
}

/// Each run's sum over the executions of `runs`: its value of the group.
std::vector<double> run_sums(const MatchedRuns& runs, std::size_t n_runs) {
  std::vector<double> sums(n_runs, 0.0);
  for (const std::vector<double>& row : runs.values) {
    for (std::size_t r = 0; r < n_runs; ++r) sums[r] += row[r];
  }
  return sums;
}

/// The row of group `key`: where it is, its medians, whether it grew past
/// the threshold and the floor, and for a group on both sides worth testing
/// the test's outcome (no p-value yet corrected): the matched statistic's
/// when `executions` are given, else the runs'.
GateRow compare_group(const std::string& key, const Side& base, const Side& next,
                      const std::vector<double>& base_totals, const std::vector<double>& new_totals,
                      const GateSettings& settings, const SideExecutions* executions) {
  GateRow row;
  row.key = key;
  bool in_base = false, in_new = false;
  std::vector<double> base_values = runs_of(base, key, in_base);
  std::vector<double> new_values = runs_of(next, key, in_new);
  std::vector<double> base_relative = base_values, new_relative = new_values;
  MatchedRuns runs;
  if (executions) {
    std::vector<std::string> names;
    runs = matched_runs(key, executions->base, executions->next, names);
    row.relative = divide_by_speeds(runs, key, names, executions->speeds);
    if (row.relative) {
      const std::vector<double> sums = run_sums(runs, base_values.size() + new_values.size());
      std::copy(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(base_values.size()),
                base_relative.begin());
      std::copy(sums.begin() + static_cast<std::ptrdiff_t>(base_values.size()), sums.end(),
                new_relative.begin());
    }
  } else {
    const std::vector<double> factors =
        rest_factors(base_values, new_values, base_totals, new_totals);
    row.relative = !factors.empty();
    for (std::size_t i = 0; row.relative && i < base_relative.size(); ++i) {
      base_relative[i] *= factors[i];
    }
    for (std::size_t i = 0; row.relative && i < new_relative.size(); ++i) {
      new_relative[i] *= factors[base_relative.size() + i];
    }
  }
  row.status = !in_base ? GateStatus::appeared : !in_new ? GateStatus::vanished : GateStatus::ok;
  // Which groups are tested is decided from the pooled runs alone, without
  // the side each run came from: a group is tested when some split of its
  // pooled runs into sides of these sizes would move the statistic by more
  // than the floor and the threshold (largest_median_growth,
  // largest_matched_growth). A group no split can move that far can never
  // be a regression, so none is left out that could be. Under the null
  // hypothesis the test's p-value is exact conditionally on the pooled
  // values, so this choice leaves it valid, and Holm's correction is not
  // diluted by the many passes whose runs, however they fell, could not
  // matter.
  if (executions) {
    const MatchedTotals totals = matched_totals(runs);
    row.base_compared = totals.base;
    row.new_compared = totals.next;
    if (row.status == GateStatus::ok) {
      const MatchedGrowth most = largest_matched_growth(runs);
      row.tested = most.growth > settings.floor &&
                   exceeds_threshold(most.base_total, most.growth, settings.threshold_pct);
      if (row.tested) {
        const MatchedTestResult test = matched_rank_test(
            runs, matched_base_growth(base_relative, settings), settings.alternative);
        row.p_value = test.p_value;
        row.exact = test.exact;
      }
    }
  } else {
    if (row.status == GateStatus::ok) {
      const MedianGrowth most = largest_median_growth(base_relative, new_relative);
      row.tested = most.growth > settings.floor &&
                   exceeds_threshold(most.base_median, most.growth, settings.threshold_pct);
      if (row.tested) {
        const RankTestResult test = shifted_test(base_relative, new_relative, settings);
        row.u_new = test.u_new;
        row.p_value = test.p_value;
        row.exact = test.exact;
      }
    }
    row.base_compared = median_of(base_relative);
    row.new_compared = median_of(new_relative);
  }
  if (row.tested) {
    // The runs statistic's test compares the values whose medians it
    // compares; the matched statistic's, every execution alike.
    row.compared_spread = pooled_log_spread(base_relative, new_relative);
    if (executions) {
      row.spread = typical_spread(runs, base_values.size(), new_values.size(), Weigh::alike);
      row.size_spread = typical_spread(runs, base_values.size(), new_values.size(), Weigh::by_size);
    } else {
      row.spread = row.compared_spread;
    }
  }
  row.base_median = median_of(base_values);
  row.new_median = median_of(new_values);
  if (row.status == GateStatus::ok) {
    const double grown = row.new_compared - row.base_compared;
    row.above_threshold = exceeds_threshold(row.base_compared, grown, settings.threshold_pct);
    row.above_floor = grown > settings.floor;
  }
  return row;
}

/// Each run's total: the sum of its groups' values.
std::vector<double> run_totals(const Side& side) {
  std::vector<double> out;
  out.reserve(side.size());
  for (const auto& run : side) {
    double total = 0;
    for (const auto& entry : run) total += entry.second;
    out.push_back(total);
  }
  return out;
}

/// The common factor of the groups: the median of their ratios new median
/// / base median, each weighted by its base median, so that neither one
/// large group that changed alone nor the many tiny, noisy ones decide it.
/// 1 when no group is above 0 on both sides.
double common_factor(const Side& base, const Side& next, const std::set<std::string>& keys,
                     double& largest_share) {
  largest_share = 1;
  std::vector<std::pair<double, double>> ratios;  // ratio, weight
  double weight_sum = 0;
  for (const std::string& key : keys) {
    bool in_base = false, in_new = false;
    std::vector<double> base_values = runs_of(base, key, in_base);
    std::vector<double> new_values = runs_of(next, key, in_new);
    const double b = median_of(base_values), n = median_of(new_values);
    if (!(b > 0) || !(n > 0)) continue;
    ratios.emplace_back(n / b, b);
    weight_sum += b;
  }
  if (ratios.empty()) return 1;
  double largest = 0;
  for (const auto& entry : ratios) largest = std::max(largest, entry.second);
  largest_share = largest / weight_sum;
  std::sort(ratios.begin(), ratios.end());
  double cumulative = 0;
  for (const auto& [ratio, weight] : ratios) {
    cumulative += weight;
    if (cumulative >= weight_sum / 2) return ratio;
  }
  return ratios.back().first;
}

/// The drift: the common factor, and the shifted test of the runs' totals
/// (its p-value not yet corrected).
GateDrift measure_drift(const Side& base, const Side& next, const std::set<std::string>& keys,
                        std::vector<double> base_totals, std::vector<double> new_totals,
                        const GateSettings& settings) {
  GateDrift drift;
  double largest_share = 1;
  drift.factor = common_factor(base, next, keys, largest_share);
  drift.base_median = median_of(base_totals);
  drift.new_median = median_of(new_totals);
  if (!(drift.base_median > 0) || !(drift.new_median > 0)) return drift;
  drift.tested = true;
  const RankTestResult test = shifted_test(base_totals, new_totals, settings);
  drift.u_new = test.u_new;
  drift.p_value = test.p_value;
  drift.exact = test.exact;
  // The totals grew significantly and by more than the floor, and the
  // typical group by more than the threshold; and the typical group is not
  // one group that holds half the weight, whose own change it would be.
  drift.flagged = test.p_value <= settings.alpha &&
                  (drift.factor - 1) * 100 > settings.threshold_pct &&
                  drift.new_median - drift.base_median > settings.floor && largest_share < 0.5;
  return drift;
}

/// Holm-adjusts the p-values of the tested rows (`tested_rows`, at the same
/// index as `p_values`) and flags those at most `alpha` that grew past the
/// threshold and the floor. Holm rather than Bonferroni: the same guarantee
/// (the chance that any unchanged pass is flagged is at most alpha, whatever
/// the dependence between passes, which share every run), uniformly more
/// power. Not a false-discovery-rate method: a CI gate fails the whole build
/// on one flagged pass, so the family-wise error is the one to bound.
void flag_regressions(GateResult& result, const std::vector<std::size_t>& tested_rows,
                      const std::vector<double>& p_values, double alpha) {
  const std::vector<double> adjusted = holm_adjust(p_values);
  for (std::size_t i = 0; i < tested_rows.size(); ++i) {
    GateRow& row = result.rows[tested_rows[i]];
    row.p_holm = adjusted[i];
    if (adjusted[i] <= alpha && row.above_threshold && row.above_floor) {
      row.status = GateStatus::regression;
      ++result.regressions;
    }
  }
  result.tested = tested_rows.size();
}

/// The larger of two estimates, nullopt when either is (the one condition
/// cannot be met, or not estimated).
template <typename T>
std::optional<T> larger(const std::optional<T>& a, const std::optional<T>& b) {
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

/// The smaller of two estimates, either where the other is nullopt: a
/// test that sees through either of two lenses needs the better one.
template <typename T>
std::optional<T> smaller(const std::optional<T>& a, const std::optional<T>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

/// Each tested row's detectable change and the runs that a change of twice
/// the threshold needs: the larger of the test's, at Holm's strictest level
/// over `result.tested` groups (a one-sided level; two-sided, half of it on
/// each side), and the statistic's growth past the threshold and the floor.
/// The matched statistic's test looks through two lenses at once, the
/// executions alike (`spread`) and by size (`size_spread`), and sees what
/// the better one sees at half the level (the larger of two
/// statistics: matched_statistic.h); the runs statistic's, through one.
void estimate_power(GateResult& result, const GateSettings& settings) {
  double level = settings.alpha / static_cast<double>(std::max<std::size_t>(1, result.tested));
  if (settings.alternative != Alternative::greater) level /= 2;
  const bool two_lenses = result.statistic == GateStatistic::matched;
  const double test_level = two_lenses ? level / 2 : level;
  const double twice = 1 + 2 * settings.threshold_pct / 100;
  const std::size_t nb = result.base_runs, nn = result.new_runs;
  for (GateRow& row : result.rows) {
    if (!row.tested || !row.spread || !row.compared_spread || !(row.base_compared > 0)) continue;
    const double boundary = grown_by_threshold(row.base_compared, settings) / row.base_compared;
    const double test = *row.spread, growth = *row.compared_spread;
    std::optional<double> test_pct = detectable_change_pct(test, nb, nn, test_level, boundary);
    std::optional<std::size_t> test_runs = runs_to_detect(twice, test, test_level, boundary);
    if (two_lenses && row.size_spread) {
      const double sized = *row.size_spread;
      test_pct = smaller(test_pct, detectable_change_pct(sized, nb, nn, test_level, boundary));
      test_runs = smaller(test_runs, runs_to_detect(twice, sized, test_level, boundary));
    }
    row.detectable_pct = larger(
        test_pct, detectable_change_pct(growth, nb, nn, level, boundary, PowerOf::median_growth));
    row.runs_for_twice_threshold =
        larger(test_runs, runs_to_detect(twice, growth, level, boundary, PowerOf::median_growth));
  }
}

/// Regressions first, then every other row; each part by delta, largest
/// first, ties by key.
void sort_rows(std::vector<GateRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const GateRow& a, const GateRow& b) {
    const bool a_flagged = a.status == GateStatus::regression;
    const bool b_flagged = b.status == GateStatus::regression;
    if (a_flagged != b_flagged) return a_flagged;
    if (a.delta() != b.delta()) return a.delta() > b.delta();
    return a.key < b.key;
  });
}

}  // namespace

std::string_view gate_status_name(GateStatus status) {
  switch (status) {
    case GateStatus::regression: return "regression";
    case GateStatus::ok: return "ok";
    case GateStatus::appeared: return "appeared";
    case GateStatus::vanished: return "vanished";
  }
  return "ok";
}

bool too_noisy_to_judge(const GateRow& row, const GateSettings& settings) {
  return row.tested && row.status != GateStatus::regression && row.detectable_pct &&
         *row.detectable_pct > 2 * settings.threshold_pct;
}

std::optional<double> GateRow::ratio() const {
  if (!(base_median > 0) || !(new_median > 0)) return std::nullopt;
  return new_median / base_median;
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running_max = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]);
    running_max = std::max(running_max, scaled);
    adjusted[order[k]] = running_max;
  }
  return adjusted;
}

namespace {

/// The gate of either statistic: the matched one when `executions` are
/// given (the runs' values are then their sums).
GateResult evaluate(const Side& base, const Side& next, const GateSettings& settings,
                    const SideExecutions* executions) {
  GateResult result;
  result.statistic = executions ? GateStatistic::matched : GateStatistic::runs;
  result.base_runs = base.size();
  result.new_runs = next.size();
  result.smallest_p = executions
                          ? smallest_matched_rank_p(base.size(), next.size(), settings.alternative)
                          : smallest_p_value(base.size(), next.size(), settings.alternative);
  const std::set<std::string> keys = keys_of(base, next);
  const std::vector<double> base_totals = run_totals(base);
  const std::vector<double> new_totals = run_totals(next);
  result.drift = measure_drift(base, next, keys, base_totals, new_totals, settings);

  double log_ratio_sum = 0;
  std::vector<std::size_t> tested_rows;
  std::vector<double> p_values;
  for (const std::string& key : keys) {
    GateRow row = compare_group(key, base, next, base_totals, new_totals, settings, executions);
    if (row.tested) {
      tested_rows.push_back(result.rows.size());
      p_values.push_back(*row.p_value);
    }
    if (row.status == GateStatus::ok) {
      if (const std::optional<double> ratio = row.ratio()) {
        log_ratio_sum += std::log(*ratio);
        ++result.geomean_groups;
      } else {
        ++result.geomean_excluded;
      }
    }
    result.rows.push_back(std::move(row));
  }
  flag_regressions(result, tested_rows, p_values, settings.alpha);
  estimate_power(result, settings);
  if (result.geomean_groups > 0) {
    result.geomean_ratio = std::exp(log_ratio_sum / static_cast<double>(result.geomean_groups));
  }
  sort_rows(result.rows);
  return result;
}

/// Each run's value of each group: the sum of its executions.
Side sums_of(const std::vector<RunExecutions>& side) {
  Side out;
  out.reserve(side.size());
  for (const RunExecutions& run : side) {
    std::unordered_map<std::string, double> sums;
    for (const auto& [group, executions] : run) {
      double& sum = sums[group];
      for (const auto& entry : executions) sum += entry.second;
    }
    out.push_back(std::move(sums));
  }
  return out;
}

}  // namespace

std::string_view gate_statistic_name(GateStatistic statistic) {
  return statistic == GateStatistic::matched ? "matched" : "runs";
}

GateResult evaluate_gate(const std::vector<std::unordered_map<std::string, double>>& base,
                         const std::vector<std::unordered_map<std::string, double>>& next,
                         const GateSettings& settings) {
  return evaluate(base, next, settings, nullptr);
}

GateResult evaluate_matched_gate(const std::vector<RunExecutions>& base,
                                 const std::vector<RunExecutions>& next,
                                 const GateSettings& settings,
                                 const std::vector<RunStarts>& base_starts,
                                 const std::vector<RunStarts>& next_starts) {
  const SideExecutions executions{base, next, RunSpeeds(base, next, base_starts, next_starts)};
  return evaluate(sums_of(base), sums_of(next), settings, &executions);
}

double grown_by_threshold(double base, const GateSettings& settings) {
  return base + std::max(std::abs(base) * settings.threshold_pct / 100, settings.floor);
}

MedianGrowth largest_median_growth(std::span<const double> base, std::span<const double> next) {
  std::vector<double> pooled(base.begin(), base.end());
  pooled.insert(pooled.end(), next.begin(), next.end());
  std::sort(pooled.begin(), pooled.end());
  const auto split = pooled.begin() + static_cast<std::ptrdiff_t>(base.size());
  std::vector<double> smallest(pooled.begin(), split);
  std::vector<double> largest(pooled.end() - static_cast<std::ptrdiff_t>(next.size()),
                              pooled.end());
  MedianGrowth out;
  out.base_median = median_of(smallest);
  out.growth = median_of(largest) - out.base_median;
  return out;
}

bool gate_has_power(const GateResult& result, const GateSettings& settings) {
  const double family = static_cast<double>(std::max<std::size_t>(1, result.tested));
  return result.smallest_p * family <= settings.alpha;
}

std::size_t runs_needed_per_side(std::size_t tested, const GateSettings& settings) {
  return min_runs_per_side(settings.alpha / static_cast<double>(std::max<std::size_t>(1, tested)),
                           settings.alternative);
}

}  // namespace passtiming
