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

/// How the MLIR instrumentation reports: the core's options.
struct Options {
  /// Rows whose inclusive time is under this many milliseconds are hidden in
  /// the report (0 shows every pass). Must be finite and not negative.
  double threshold_ms = 0.0;
  /// The section's context label ("" for none), printed as `Context: ...`.
  std::string context;
  /// The time source; tests inject a ManualClock.
  std::shared_ptr<const Clock> clock = steady_clock();
  /// Receives every raw event as well (not owned; null for none). Called
  /// while the adapter's lock is held, from MLIR's threads.
  EventObserver* observer = nullptr;
  /// Recorded per pass execution besides wall time (none by default).
  MetricSet metrics;
  /// Where `cpu`, `rss` and `instructions` are read, on the thread that runs
  /// the pass; null: the process's system sampler (shared_metric_sampler()).
  /// `ir` is counted by the adapter.
  std::shared_ptr<MetricSampler> sampler;
};

namespace detail {
class CallbackTranslator;
}

/// Collects the passes of every pass manager it is enabled on into one
/// section. Thread-safe: MLIR calls it from its worker threads.
///
///     passtiming::mlir::PassTiming timing({.threshold_ms = 1.0});
///     timing.enable(pm);            // pm: an mlir::PassManager
///     (void)pm.run(module);
///     timing.recorder().print_report();
class PassTiming {
 public:
  /// Throws ConfigError (a std::invalid_argument) for a negative or
  /// non-finite threshold.
  explicit PassTiming(Options options = {});
  ~PassTiming();
  PassTiming(const PassTiming&) = delete;
  PassTiming& operator=(const PassTiming&) = delete;

  /// Adds the instrumentation to `pm`. It shares the collected state, so
  /// `pm` may outlive this object and the other way round.
  void enable(::mlir::PassManager& pm);

  /// Ends the section: passes still running (a crash was caught, a pass
  /// manager was abandoned) are named in a "Discarding N incomplete pass
  /// timing frame(s)" warning; callbacks arriving later are ignored.
  /// Idempotent.
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

/// The one call: a new PassTiming enabled on `pm`.
///
///     auto timing = passtiming::mlir::enable_pass_timing(pm, {.threshold_ms = 0.5});
std::shared_ptr<PassTiming> enable_pass_timing(::mlir::PassManager& pm, Options options = {});

}  // namespace passtiming::mlir
