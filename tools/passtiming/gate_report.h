#pragma once
/// \file
/// The verdict of `passtiming diff --gate` as text (a terminal table), JSON
/// (stable keys, docs/gate.md) and Markdown (a pull-request comment whose
/// first line is the verdict).

#include <optional>
#include <string>
#include <vector>

#include "passtiming/analysis/aggregate.h"
#include "passtiming/analysis/gate_measure.h"
#include "passtiming/analysis/regression_gate.h"

namespace passtiming::cli {

/// What the gate compared, for the headings.
struct GateReportContext {
  GroupBy by = GroupBy::pass;
  Measure measure = Measure::wall;
  GateSettings settings;
  /// The measure was chosen as the best every run recorded, not given.
  bool measure_chosen = false;
  /// What makes the sides less comparable (other commands, other inputs,
  /// not interleaved), shown with the verdict.
  std::vector<std::string> warnings;
  /// The gate of the runs' phases (docs/gate.md#phases): each phase path's
  /// wall time per run, tested like a pass; absent when no run has phases.
  std::optional<GateResult> phases;
};

/// Whether the gate fails: a pass or a phase regressed, or the runs drifted.
bool gate_failed(const GateResult& result, const GateReportContext& context);

std::string render_gate_text(const GateResult& result, const GateReportContext& context);
std::string render_gate_json(const GateResult& result, const GateReportContext& context);
/// Regressions and the ten largest other increases in the table; appeared and
/// vanished groups listed under it.
std::string render_gate_markdown(const GateResult& result, const GateReportContext& context);

}  // namespace passtiming::cli
