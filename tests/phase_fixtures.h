#pragma once
/// \file
/// A compile with phases, made by the engine alone: the sample session
/// (profile_fixtures.h) inside a tree of phases, every time exact.

#include "passtiming/engine/phase.h"
#include "profile_fixtures.h"

namespace passtiming::testing {

/// sample_session_profile() in the phases of its compile, on thread 7:
///
///     0 compile  matmul.py   0 s .. 12 s   (CPU 11 s)
///     1   lower              0 s .. 6 s    (CPU 5.5 s)   section 0 ran in it
///     2   codegen           10 s .. 11 s                 section 1 ran in it
///     3   nvcc   kernel.cu  11 s .. 11.5 s, failed
///
/// so 4.5 s of the compile is in none of its children ("untimed").
inline Profile phased_profile() {
  Profile profile = sample_session_profile();
  auto phase = [](std::string name, std::string detail, PhaseIndex parent, Nanoseconds start,
                  Nanoseconds duration, Nanoseconds cpu, std::uint16_t flags = 0) {
    return Phase{std::move(name), std::move(detail), parent, 7, start, duration, cpu, flags};
  };
  profile.phases = {
      phase("compile", "matmul.py", kNoPhase, 0, 12 * kSecond, 11 * kSecond),
      phase("lower", "", 0, 0, 6 * kSecond, 5 * kSecond + kSecond / 2),
      phase("codegen", "", 0, 10 * kSecond, kSecond, -1),
      phase("nvcc", "kernel.cu", 0, 11 * kSecond, kSecond / 2, -1, kPhaseFailed),
  };
  profile.sections[0].phase = 1;
  profile.sections[1].phase = 2;
  return profile;
}

}  // namespace passtiming::testing
