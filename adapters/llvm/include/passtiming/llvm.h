#pragma once
/// \file
/// passtiming for LLVM's new pass manager: timing callbacks registered on an
/// `llvm::PassInstrumentationCallbacks`, for compilers that embed LLVM. The
/// pass plugin (`libpasstiming_llvm.so`) is built on this class.
///
/// Every pass execution becomes a record, pass managers and adaptors
/// included, so depth and self time are real. The kernel label is the IR
/// unit: the function for function and loop passes, the module identifier for
/// module passes, `FIRST +N more` for a call-graph SCC.
///
/// With the metric `ir` (metrics.h), a record also holds the size of its IR
/// unit before and after the pass, in instructions (ir_unit_size()), and
/// what the pass returned: `ir_preserved_all` is
/// `PreservedAnalyses::areAllPreserved()`, and `ir_changed` is its negation,
/// the pass's own claim (LLVM's rule: a pass that changes nothing returns
/// `PreservedAnalyses::all()`), not a comparison of the IR.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/recorder/recorder.h"

namespace llvm {
class Any;
class PassInstrumentationCallbacks;
class PreservedAnalyses;
}  // namespace llvm

namespace passtiming::llvm {

/// Times every pass execution of the pipelines that use the callbacks it is
/// registered on. Like LLVM's own TimePassesHandler it serves one pipeline at
/// a time on one thread. No callback ever throws: an internal failure (out of
/// memory) stops the timing with one message and the compile goes on.
///
/// It records into a Recorder: one of a CompileSession's sections (what the
/// pass plugin does), or one of its own made from Settings (threshold,
/// context, metrics, record_analyses).
///
///     passtiming::llvm::PassTiming timing({.threshold_ms = 1.0});
///     timing.register_callbacks(pic);  // before PassBuilder pb(tm, pto, pgo, &pic) runs
///     mpm.run(module, mam);
///     std::string text = timing.recorder().report();
class PassTiming {
 public:
  /// The context label of a pipeline, from the identifier of the module it
  /// compiles (for clang, the source file as the command line names it).
  using ModuleContext = std::function<std::string(std::string_view module_identifier)>;

  /// Records into `recorder` (a CompileSession's section), which it opens.
  /// Analyses run inside passes become records too (nested under the pass
  /// that asked for them) when its settings say record_analyses.
  ///
  /// With `module_context`, the section is labelled by the module the first
  /// pass runs on, and opens at that pass rather than here: a plugin learns
  /// which translation unit it times only from the IR.
  explicit PassTiming(std::shared_ptr<Recorder> recorder, ModuleContext module_context = {});
  /// Records into a recorder of its own made from `settings`.
  explicit PassTiming(const Settings& settings = {},
                      std::shared_ptr<const Clock> clock = steady_clock());
  PassTiming(const PassTiming&) = delete;
  PassTiming& operator=(const PassTiming&) = delete;
  ~PassTiming();

  /// Registers the callbacks; `*this` must outlive every use of `pic`. The
  /// before-callback is appended and the after-callbacks are put in front,
  /// so instrumentation registered earlier (`-ftime-report`,
  /// `-print-after-all`) runs outside the measured interval. Register last.
  void register_callbacks(::llvm::PassInstrumentationCallbacks& pic);

  /// The same, with `keep_alive` (the owner of this instrument) held by the
  /// callbacks: the instrument lives exactly as long as `pic` does, and the
  /// owner's destructor tells when the pipeline's callbacks are gone.
  void register_callbacks(::llvm::PassInstrumentationCallbacks& pic,
                          std::shared_ptr<void> keep_alive);

  /// The recorder: the records so far (frames still running are not records
  /// yet), the report, the profile, the metrics. Not to be read while a
  /// pipeline runs on another thread.
  Recorder& recorder() { return *recorder_; }
  const Recorder& recorder() const { return *recorder_; }
  /// Ends the section, once: discards (with a warning naming them) the
  /// frames of passes that never finished, tells the recorder's listener
  /// (the session writes its files), and returns the records. Callbacks
  /// arriving later are ignored.
  const Section& finish();

  /// True once an internal failure has stopped the timing.
  bool stopped() const { return stopped_ && !finished_ && !module_context_; }

  /// The callbacks themselves, public for benchmarks and embedders that
  /// dispatch events their own way. `ir` is the `llvm::Any` LLVM passes.
  /// The hot ones are placed together (why: pass_timing.cc).
  /// after_pass() without `ir` records no `ir_after`; with it, and metric
  /// `ir`, the unit is counted after the clock is read, and `preserved`
  /// (null for an analysis) gives the record's IR flags.
  /// after_pass_invalidated() is the after-callback of a pass that
  /// invalidated its unit, which it never reads (the unit may be gone).
  [[gnu::hot]] void before_pass(std::string_view pass, const ::llvm::Any& ir) noexcept;
  [[gnu::hot]] void after_pass(std::string_view pass) noexcept;
  [[gnu::hot]] void after_pass(std::string_view pass, const ::llvm::Any& ir,
                               const ::llvm::PreservedAnalyses* preserved) noexcept;
  void after_pass_invalidated(std::string_view pass,
                              const ::llvm::PreservedAnalyses& preserved) noexcept;
  void skipped_pass(std::string_view pass, const ::llvm::Any& ir) noexcept;

 private:
  void stop(const char* what) noexcept;
  /// The first pass of a pipeline labelled by its module: labels the
  /// section and opens it. False when that fails (the timing then stops).
  [[gnu::cold]] bool open_at_first_pass(const ::llvm::Any& ir) noexcept;
  /// The clock, read inline when it is the process's steady clock.
  Nanoseconds now() const noexcept { return steady_ ? SteadyClock::read() : clock_->now_ns(); }
  TimingStateMachine& state() noexcept { return *machine_; }

  /// The recorder's clock is steady_clock(), whose type is SteadyClock.
  bool steady_ = false;
  bool stopped_ = false;
  /// Metric `ir` is recorded: the one test the callbacks add for metrics.
  bool count_ir_ = false;
  bool finished_ = false;
  std::shared_ptr<Recorder> recorder_;
  /// The recorder's machine, read by every callback without the recorder's
  /// indirection.
  TimingStateMachine* machine_;
  /// The recorder's clock, likewise.
  const Clock* clock_;
  std::string scratch_label_;
  std::vector<std::string_view> scratch_symbols_;
  /// Set until the first pass when the section is labelled by its module;
  /// stopped_ is set meanwhile, so the callbacks test nothing more.
  ModuleContext module_context_;
};

/// The kernel label of the IR unit an instrumentation callback receives:
/// module identifier, function name (also for loops and machine functions),
/// or `FIRST +N more` for a call-graph SCC; "" for anything else. The view
/// points into the IR or into `scratch`.
std::string_view ir_unit_label(const ::llvm::Any& ir, std::string& scratch,
                               std::vector<std::string_view>& symbols);

/// The object whose name ir_unit_label() reads, for units whose label cannot
/// change while a pass over them runs: the Function of a function or loop
/// pass, the Module, the MachineFunction. Null for a call-graph SCC, whose
/// functions change as passes update the call graph, and for anything else.
[[gnu::hot]] const void* ir_unit_identity(const ::llvm::Any& ir);

/// The identifier of the module the IR unit belongs to (the unit's own for a
/// Module); "" for a unit without one at hand (a call-graph SCC).
std::string_view ir_module_identifier(const ::llvm::Any& ir);

/// The size of the IR unit an instrumentation callback receives, for metric
/// `ir`: the instructions of a Function, of a Loop's function, of a Module
/// (every defined function) and of a call-graph SCC (its functions);
/// kNotMeasured for anything else (a MachineFunction). Linear in the
/// instructions counted: LLVM keeps no count, so the lists are walked.
std::int64_t ir_unit_size(const ::llvm::Any& ir);

/// The IrFlags of a pass that returned `preserved`: preserved-all known and
/// whether it holds, and changed known, as `!areAllPreserved()`.
std::uint8_t ir_flags_of(const ::llvm::PreservedAnalyses& preserved);

}  // namespace passtiming::llvm
