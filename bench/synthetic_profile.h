#pragma once
/// \file
/// The synthetic profile the file and fleet benchmarks share, and the test of
/// OTLP lines at 400,000 records (tests/formats/otlp_lines_test.cc).

#include <fmt/format.h>

#include <string>
#include <vector>

#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming::bench {

/// A profile of `records` records in one section (pairs of a top-level pass
/// and one nested child), over 60 distinct pass names and 8 kernels, timed
/// by a synthetic clock.
inline passtiming::Profile synthetic_profile(std::size_t records) {
  std::vector<std::string> names, kernels;
  for (int i = 0; i < 60; ++i) names.push_back(fmt::format("tl.TransformPass{}", i));
  for (int i = 0; i < 8; ++i) kernels.push_back(fmt::format("kernel_{}", i));
  passtiming::TimingStateMachine sm;
  passtiming::Nanoseconds t = 1'000'000;
  sm.enter(t, "stage=lower, kernel=bench");
  for (std::size_t i = 0; i + 1 < records; i += 2) {
    const std::string& kernel = kernels[(i / 2) % kernels.size()];
    sm.begin(t += 1'000, {names[(i / 2) % names.size()], kernel});
    sm.begin(t += 2'345, {names[(i / 2 + 7) % names.size()], kernel});
    sm.end(t += 123'456, {names[(i / 2 + 7) % names.size()]});
    sm.end(t += 777, {names[(i / 2) % names.size()]});
  }
  sm.exit(t);
  passtiming::Profile profile;
  profile.metadata = {"passtiming 0.1.0", "bench", "host", "2024-01-01T00:00:00Z", 1};
  profile.sections.push_back(sm.take_section());
  return profile;
}

}  // namespace passtiming::bench
