#pragma once
/// \file
/// The phases of one passtiming-mlir-opt run: the top level of MLIR's
/// `-mlir-timing` report (Parser, the passes, Output, Rest) as phases of the
/// compile session (phase.h):
///
///     compile (detail: the input file)
///       parse      the input read and parsed, until the pass pipeline is set up
///       pipeline   the pipeline set up and run, until its last top-level pass ends
///       output     the result printed or written as bytecode, until the pass
///                  manager is destroyed
///       teardown   the IR, the context and the thread pool destroyed, the
///                  output file closed (most of -mlir-timing's "Rest")
///
/// With --split-input-file each chunk adds its own parse, pipeline, output and
/// teardown, in order. Every boundary is taken live, on the thread that runs
/// mlir-opt, from a hook MLIR calls there: the pass pipeline's set-up
/// function, the pass manager's instrumentation (its last top-level pass, and
/// its destruction right after the output), and a dialect extension of the
/// builtin dialect, which MLIR applies when it creates a chunk's context.

#include <string>

#include "passtiming/engine/phase.h"

namespace mlir {
class DialectRegistry;
class PassManager;
}  // namespace mlir

namespace passtiming {
class CompileSession;
}

namespace passtiming::mlir_opt {

/// Records the phases of one run into `session`. All of its calls come from
/// the thread that runs MlirOptMain, except those of the pass manager's
/// instrumentation, which ignores every thread but that one. Never throws
/// into MLIR: a phase that cannot be recorded is left out.
class OptPhases {
 public:
  /// `input` is the input file's name, the compile phase's detail.
  OptPhases(CompileSession& session, std::string input);
  OptPhases(const OptPhases&) = delete;
  OptPhases& operator=(const OptPhases&) = delete;

  /// Opens the root phase `compile`, on the calling thread.
  void begin_compile();
  /// Opens `parse`, inside compile: call before the input file is read.
  void begin_parse();
  /// Adds to `registry` the dialect extension that tells a new context from
  /// the previous chunk's teardown (--split-input-file).
  void watch_contexts(::mlir::DialectRegistry& registry);
  /// The pass pipeline is about to be set up on `pm`: parse ends, pipeline
  /// begins, and `pm` gets the instrumentation that ends it. Call before any
  /// other instrumentation is added to `pm`, so that its after-pass callback
  /// runs last (MLIR calls them in reverse order).
  void begin_pipeline(::mlir::PassManager& pm);
  /// The pipeline's passes are now on `pm` (`ok`), or could not be added:
  /// a pipeline that failed to set up ends, failed; an empty one ends now,
  /// and output begins, since no pass callback will end it.
  void pipeline_set_up(const ::mlir::PassManager& pm, bool ok);
  /// MlirOptMain has returned (`ok`: it succeeded) and the output file is
  /// closed: the top-level phase still open ends, failed when it is parse or
  /// pipeline and the run failed.
  void end_run(bool ok);
  /// Ends compile, failed when the run failed.
  void end_compile(bool ok);

  /// The pipeline phase now open, or kNoPhase.
  PhaseIndex pipeline_phase() const { return kind_ == Kind::pipeline ? open_ : kNoPhase; }

  // Called by the instrumentation and the extension (on MlirOptMain's thread).
  void context_created() noexcept;
  void top_level_passes_done(bool failed) noexcept;
  void pass_manager_destroyed() noexcept;

 private:
  enum class Kind { none, parse, pipeline, output, teardown };
  /// Ends the open top-level phase (`failed` marks it) and opens `next`.
  void switch_to(Kind next, bool failed) noexcept;

  CompileSession& session_;
  std::string input_;
  PhaseIndex compile_ = kNoPhase;
  PhaseIndex open_ = kNoPhase;
  Kind kind_ = Kind::none;
};

}  // namespace passtiming::mlir_opt
