#pragma once
/// \file
/// The statistical regression gate of `passtiming diff --gate`: several runs
/// per side, and per group (pass, kernel or context) one value per run. A
/// group is a regression when three things hold at once:
///
/// 1. its new runs are significantly larger than its base runs by the
///    Mann-Whitney U test (rank_test.h), after Holm's correction for testing
///    every group at once, at family-wise level `alpha`;
/// 2. its median grew by more than `threshold_pct` percent;
/// 3. and by more than `floor` (in the measure's unit).
///
/// The test says the change is real, the threshold and floor that it is
/// large enough to matter.
///
///     GateResult r = evaluate_gate(base_runs, new_runs, GateSettings{});
///     if (r.regressions > 0) return 1;

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "passtiming/analysis/rank_test.h"

namespace passtiming {

struct GateSettings {
  double alpha = 0.05;  ///< family-wise error rate over the tested groups
  Alternative alternative = Alternative::greater;
  double threshold_pct = 5;  ///< the new median must exceed the base median by more than this
  double floor = 1e6;        ///< ... and by more than this, in the measure's unit (1 ms in ns)
};

enum class GateStatus {
  regression,  ///< significant, above the threshold and the floor
  ok,          ///< on both sides, not a regression
  appeared,    ///< in no base run, in some new run
  vanished,    ///< in some base run, in no new run
};

/// "regression", "ok", "appeared", "vanished".
std::string_view gate_status_name(GateStatus status);

/// One group's verdict.
struct GateRow {
  std::string key;
  GateStatus status = GateStatus::ok;
  double base_median = 0;  ///< over the base runs, a run without the group counting 0
  double new_median = 0;
  double delta() const { return new_median - base_median; }
  /// new_median / base_median; nullopt unless both are above 0.
  std::optional<double> ratio() const;
  /// Whether the group was tested: it is on both sides and its pooled runs
  /// leave room for a change above the threshold and the floor (see
  /// evaluate_gate). Untested groups have no p-value and are never
  /// regressions.
  bool tested = false;
  double u_new = 0;               ///< the test's U of the new runs (tested groups)
  std::optional<double> p_value;  ///< the test's p-value
  std::optional<double> p_holm;   ///< Holm-adjusted p-value, compared with alpha
  bool exact = false;             ///< p_value from the exact distribution
  bool above_threshold = false;   ///< the median grew by more than threshold_pct
  bool above_floor = false;       ///< ... and by more than floor
};

struct GateResult {
  /// Regressions first, then every other group; each part by delta, largest
  /// first, ties by key.
  std::vector<GateRow> rows;
  std::size_t base_runs = 0;
  std::size_t new_runs = 0;
  std::size_t tested = 0;  ///< groups tested (the size of the family Holm corrects for)
  std::size_t regressions = 0;
  /// The geometric mean of new_median / base_median over the groups on both
  /// sides whose medians are above 0 on both; nullopt when there is none.
  std::optional<double> geomean_ratio;
  std::size_t geomean_groups = 0;    ///< groups in the geometric mean
  std::size_t geomean_excluded = 0;  ///< groups on both sides left out: a median of 0 or less
  /// The smallest p-value the test can give with these run counts
  /// (smallest_p_value()); with `tested` groups, Holm needs a p-value of at
  /// most alpha / tested for anything to be flagged.
  double smallest_p = 1;
};

/// Holm's step-down adjustment of `p_values`, in their order: the k-th
/// smallest p (from 0) is multiplied by (m - k), the results made
/// non-decreasing in that order and capped at 1. A hypothesis is rejected at
/// family-wise level alpha when its adjusted p is at most alpha.
std::vector<double> holm_adjust(std::span<const double> p_values);

/// The gate over per-run values: base[i] maps each group present in base
/// run i to its value there, next likewise. Both sides need at least one
/// run.
GateResult evaluate_gate(const std::vector<std::unordered_map<std::string, double>>& base,
                         const std::vector<std::unordered_map<std::string, double>>& next,
                         const GateSettings& settings);

/// Whether the gate could flag anything at all with `result`'s run counts
/// and number of tested groups: smallest_p * tested <= alpha (for no tested
/// group, with one). When it is false, every verdict of "no regression"
/// would be silent, whatever the data.
bool gate_has_power(const GateResult& result, const GateSettings& settings);

/// The fewest runs per side with which gate_has_power() holds for `tested`
/// groups (at least 1); 0 when more than 1000 would be needed.
std::size_t runs_needed_per_side(std::size_t tested, const GateSettings& settings);

}  // namespace passtiming
