#pragma once
/// \file
/// `passtiming diff --gate`: the statistical regression gate over several
/// runs per side (include/passtiming/analysis/regression_gate.h). Exit status 0 when
/// no group regressed, 1 when one did, 2 for bad input or settings.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gate_report.h"

namespace passtiming::cli {

/// The options of the gate, as given on the command line.
struct GateOptions {
  std::vector<std::string> base;
  std::vector<std::string> next;
  std::string by = "pass";
  std::string format = "text";
  std::string output = "-";
  /// unset: the best every profile recorded: instructions, then cpu, then wall
  std::optional<std::string> measure;
  std::string alpha = "0.05";
  std::string alternative = "greater";
  std::string threshold_pct = "5";
  /// matched (each execution's median over a side's runs, summed; the
  /// permutation test) or runs (the runs' values; Mann-Whitney U).
  std::string statistic = "matched";
  std::optional<std::string> floor_ms;  ///< for the time measures
  std::optional<std::string> floor;     ///< in the measure's unit
  /// Sides whose commands or inputs differ are refused, not only warned of.
  bool strict = false;
};

/// A gate evaluated, its verdict not yet written.
struct EvaluatedGate {
  GateResult result;
  GateReportContext context;
};

/// Loads the profiles, checks them and the settings and evaluates the gate,
/// printing nothing; or the exit status of a refusal, its message printed
/// after the sides' warnings. `passtiming gate` looks at the result before
/// it decides whether the sides need more runs.
std::variant<int, EvaluatedGate> evaluate_diff_gate(const GateOptions& options);

/// Prints the gate's warnings on stderr and writes its verdict in --format
/// to --output; returns the exit status (0, or 1 for a regression).
int write_diff_gate(const EvaluatedGate& gate, const GateOptions& options);

/// evaluate_diff_gate, then write_diff_gate; returns the exit status.
int run_diff_gate(const GateOptions& options);

/// The test's options (--measure, --statistic, --alpha, --alternative,
/// --threshold-pct, --floor-ms, --floor, --strict) on `sub`, each help text after `prefix`:
/// `diff --gate` and `gate` take the same.
void add_gate_settings(CLI::App& sub, GateOptions& options, const std::string& prefix);

}  // namespace passtiming::cli
