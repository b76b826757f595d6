#pragma once
/// \file
/// The text table of `passtiming summary`, which `passtiming run` prints too
/// for a build of several compiles.

#include <cstddef>
#include <string>
#include <vector>

#include "passtiming/analysis/aggregate.h"

namespace passtiming::cli {

/// The summary table of `rows` (already sorted, cut by --top and the
/// threshold) of `agg`: heading, profiles and total self time, one line per
/// row, and `hidden` rows not shown. Wall time is in seconds and ms; another
/// measure is named in the heading with its unit.
std::string render_summary_text(const std::vector<AggregateRow>& rows, const Aggregator& agg,
                                std::size_t hidden, double threshold_ms);

}  // namespace passtiming::cli
