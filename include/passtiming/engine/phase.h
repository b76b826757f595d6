#pragma once
/// \file
/// The phases of a compile. A compile is a tree of phases (front end,
/// optimizer, code generation, the nvcc build of a kernel, ...), and each
/// section's passes ran inside one of them. A phase is not a pass: the
/// seed's report of a section's passes never shows phases, and a phase's
/// time is what the compile spent in it, whoever did the work.

#include <cstdint>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"

namespace passtiming {

/// Index of a phase in Profile::phases.
using PhaseIndex = std::uint32_t;
/// Sentinel for "no phase": a root phase's parent, a section that ran
/// outside every phase.
inline constexpr PhaseIndex kNoPhase = 0xffffffffu;

/// Bits of Phase::flags.
enum PhaseFlags : std::uint16_t {
  /// The phase ended by an error (the compile failed in it), or was still
  /// open when the session finished; its duration runs to that moment.
  kPhaseFailed = 1u << 0,
};

/// One phase of a compile.
struct Phase {
  std::string name;              ///< what the compile was doing: "front end", "nvcc"
  std::string detail;            ///< what it did it to (a function, a file); "" when none
  PhaseIndex parent = kNoPhase;  ///< the enclosing phase, always at a lower index
  std::uint64_t thread = 0;      ///< the source's key of the thread it ran on
  Nanoseconds start_ns = 0;      ///< on the clock of the records' start_ns
  Nanoseconds duration_ns = 0;
  /// CPU time of the thread that ran it, or -1 when not measured (a phase
  /// read from another program's trace, or spent in a child process).
  Nanoseconds cpu_ns = -1;
  std::uint16_t flags = 0;  ///< PhaseFlags

  bool failed() const { return (flags & kPhaseFailed) != 0; }
  Nanoseconds end_ns() const { return start_ns + duration_ns; }
  friend bool operator==(const Phase&, const Phase&) = default;
};

/// One row of a phase table: a phase, or the siblings of one name under one
/// parent taken together (a front end's thousand declarations are one row).
struct PhaseRow {
  std::string name;
  std::string detail;       ///< the phase's detail when the row is one phase, else ""
  std::uint32_t depth = 0;  ///< 0 for a root
  std::uint64_t count = 0;  ///< phases taken together; 0 for the "untimed" row
  Nanoseconds duration_ns = 0;
  /// Share of the root's duration, 0..1.
  double share = 0.0;
  bool failed = false;   ///< one of the phases failed
  bool untimed = false;  ///< the parent's time that no child phase covers
};

/// The phase table of `phases` (parents before children): for each root, in
/// order, its row then its children's rows depth first. Siblings of one
/// name are one row, at the place of the first. A phase whose children
/// cover less than its whole time gets an "untimed" row after them, with
/// the rest; rows deeper than `max_depth` are left out (their time stays
/// in their ancestors' rows).
std::vector<PhaseRow> phase_table(const std::vector<Phase>& phases, std::uint32_t max_depth = 3);

/// The innermost phase among `within` and its descendants that holds the
/// instant `at` (kNoPhase when `within` is kNoPhase or does not hold it).
/// Sources call a section's passes "in" the phase this finds for their start.
PhaseIndex innermost_phase(const std::vector<Phase>& phases, PhaseIndex within, Nanoseconds at);

/// Checks that every parent index is lower than its child's and that every
/// child lies within its parent's time; returns a message naming the first
/// phase that does not, or "" when all do.
std::string check_phase_tree(const std::vector<Phase>& phases);

}  // namespace passtiming
