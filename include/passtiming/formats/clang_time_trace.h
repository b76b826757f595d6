#pragma once
/// \file
/// clang's own time trace (`-ftime-trace`, a Chrome trace of one compile) as
/// passtiming's phases and records (docs/llvm.md#the-whole-compile): the
/// compile, its front end (per top-level declaration, IR generation per
/// function), its back end (the optimizer, and code generation with every
/// pass of LLVM's legacy pass manager, per function). Free of LLVM: it reads
/// the trace's text.

#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/profile.h"

namespace passtiming {

/// What the import adds to a compile's profile.
struct ImportedTimeTrace {
  /// The compile's phases, a parent before its children; the root is
  /// "compile" (clang's ExecuteCompiler) when the trace has one.
  std::vector<Phase> phases;
  /// Code generation's passes, as LLVM's legacy pass manager ran them: one
  /// record a pass execution, its kernel the function it ran on ("" for a
  /// pass over the module). Empty when the trace has none. Its `phase` is
  /// an index into `phases`.
  Section code_generation;
  std::int64_t pid = 0;  ///< the process that wrote the trace
  /// The optimizer's phase in `phases` (kNoPhase when none): the pass
  /// plugin's own sections ran in it.
  PhaseIndex optimizer = kNoPhase;
};

/// How the trace's times become the profile's.
struct TimeTraceClock {
  /// Added to a trace time in nanoseconds since the epoch (its
  /// `beginningOfTime` plus the event's `ts`) to give the profile's clock:
  /// that clock's reading minus the system clock's, both taken at one moment.
  Nanoseconds offset_ns = 0;
};

/// Reads the trace `text` (`source` names it in errors). The events of the
/// thread that ran ExecuteCompiler are nested by their times; clang's
/// "Total …" summaries, its include tree ("Source") and the optimizer's
/// passes (which the pass plugin records itself, with its metrics) are left
/// out unless `with_optimizer_passes`. `detail` becomes the root's detail
/// (the translation unit). Throws InputError naming `source` when the text
/// is not a time trace.
///
/// `cut_short_at` (on the profile's clock; -1: not cut short) is for the
/// trace of a compile that a crash or a fatal error stopped, written from
/// clang's profiler's memory: it holds only the events that completed. The
/// scopes the compile was in then are added, failed, up to that moment (the
/// compile; the back end from the end of its last front end; the optimizer,
/// or code generation once the optimizer completed), and only what is sure
/// to lie in a completed scope is kept besides.
ImportedTimeTrace import_clang_time_trace(std::string_view text, std::string_view source,
                                          TimeTraceClock clock, std::string_view detail = {},
                                          bool with_optimizer_passes = false,
                                          Nanoseconds cut_short_at = -1);

/// The process id of a time trace from its first bytes (the first event's
/// `pid`), or -1 when they hold none: finds a compile's own trace among
/// others' without reading them whole.
std::int64_t time_trace_pid(std::string_view head);

/// The readable name of one of clang's trace events that becomes a phase
/// ("Frontend" -> "front end"); other names are kept as clang gives them.
std::string_view phase_name_for_trace_event(std::string_view event);

}  // namespace passtiming
