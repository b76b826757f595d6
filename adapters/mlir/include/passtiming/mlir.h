#pragma once
/// \file
/// Per-pass timing for MLIR pass managers. MLIR runs nested pipelines on
/// worker threads; each thread keeps its own stack of running passes, and a
/// pipeline started on a worker is attached to the pass adaptor that forked
/// it, so every record has the depth and parent it has in the pass tree and
/// the top-level total counts every nanosecond once.
///
/// With the metric `ir` (metrics.h), a record also holds the number of
/// operations under the pass's operation (the operation itself included)
/// before and after the pass, and `ir_changed`: whether MLIR's
/// OperationFingerPrint of the operation differs after the pass (a change
/// to any nested operation's attributes, location, operands, blocks,
/// successors or result types, or an operation replaced, even by an
/// identical one). A pass that fails records no size after it.
///
/// This header includes no MLIR header, so code built with RTTI can use it;
/// the adapter's own sources are built like MLIR itself (without RTTI).

#include <memory>
#include <string>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/recorder/recorder.h"

namespace mlir {
class PassManager;
}  // namespace mlir

namespace passtiming::mlir {

namespace detail {
class CallbackTranslator;
}

/// Collects the passes of every pass manager it is enabled on into one
/// section. Thread-safe: MLIR calls it from its worker threads.
///
/// It records into a Recorder: a CompileSession's section (what
/// passtiming-mlir-opt does), or one of its own made from Settings.
///
///     passtiming::mlir::PassTiming timing({.threshold_ms = 1.0});
///     timing.enable(pm);            // pm: an mlir::PassManager
///     (void)pm.run(module);
///     timing.recorder().print_report();
class PassTiming {
 public:
  /// Records into `recorder` (a CompileSession's section), which it opens.
  explicit PassTiming(std::shared_ptr<Recorder> recorder);
  /// Records into a recorder of its own made from `settings` (threshold,
  /// context, metrics) and `clock`. Throws ConfigError (a
  /// std::invalid_argument) for a negative or non-finite threshold.
  explicit PassTiming(const Settings& settings = {},
                      std::shared_ptr<const Clock> clock = steady_clock());
  ~PassTiming();
  PassTiming(const PassTiming&) = delete;
  PassTiming& operator=(const PassTiming&) = delete;

  /// Adds the instrumentation to `pm`. It shares the collected state, so
  /// `pm` may outlive this object and the other way round.
  void enable(::mlir::PassManager& pm);

  /// Ends the section: passes still running (a crash was caught, a pass
  /// manager was abandoned) are named in a "Discarding N incomplete pass
  /// timing frame(s)" warning, and the recorder's listener (its session) is
  /// told; callbacks arriving later are ignored. Idempotent.
  void finish();

  /// The recorder: the section numbered in pass-tree order, the report
  /// (`recorder().report(context)`), the profile, the metrics and the
  /// threshold. Read it once the pass managers it is enabled on are done.
  const Recorder& recorder() const;
  /// A copy of the records completed so far, safe to take while MLIR runs.
  Section snapshot() const;

 private:
  std::shared_ptr<detail::CallbackTranslator> translator_;
};

/// The one call: a new PassTiming over `recorder` (null: a recorder of its
/// own with the defaults), enabled on `pm`.
///
///     auto timing = passtiming::mlir::enable_pass_timing(pm, session.new_section());
std::shared_ptr<PassTiming> enable_pass_timing(::mlir::PassManager& pm,
                                               std::shared_ptr<Recorder> recorder = nullptr);

}  // namespace passtiming::mlir
