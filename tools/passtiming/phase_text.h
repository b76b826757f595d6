#pragma once
/// \file
/// The phases of several profiles taken together, as `summary` prints them
/// (docs/report-format.md#phases) and as its `--json` carries them.

#include <string>

#include "passtiming/analysis/phase_totals.h"

namespace passtiming::cli {

/// The table of `totals`: a heading naming how many profiles had phases,
/// then one line a path, its total time in seconds, its share of the roots'
/// time and how many phases it stands for. "" when no profile had phases.
std::string render_phase_totals_text(const PhaseTotals& totals);

/// The `"phases"` member of summary's JSON (with its leading comma): the
/// profiles with phases, the roots' time and the rows. "" when no profile
/// had phases.
std::string render_phase_totals_json(const PhaseTotals& totals);

}  // namespace passtiming::cli
