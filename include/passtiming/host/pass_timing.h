#pragma once
/// \file
/// TileLang's per-pass timing instrumentation (`tilelang.utils.pass_timing`)
/// with the seed's names and behaviour.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/host/pass_instrument.h"
#include "passtiming/recorder/compile_session.h"
#include "passtiming/recorder/pass_event_sink.h"
#include "passtiming/recorder/recorder.h"

namespace passtiming {

/// Times every pass of the PassContexts it is put in.
///
///     passtiming::TileLangPassTimingInstrument timing(/*threshold_ms=*/0.0);
///     passtiming::PassContext ctx({.instruments = {timing.instrument()}});
///     { auto scope = ctx.enter(); mod = (*pipeline)(mod); }
///     timing.print_report("stage=lower");
class TileLangPassTimingInstrument {
 public:
  /// Any `threshold_ms` is taken, as the seed takes it (see Recorder).
  explicit TileLangPassTimingInstrument(double threshold_ms = 0.0,
                                        std::shared_ptr<const Clock> clock = steady_clock());
  /// The instrument of a section a CompileSession made (or of any recorder).
  explicit TileLangPassTimingInstrument(std::shared_ptr<Recorder> recorder);
  /// An instrument used on its own that writes the files `settings` name,
  /// as every source does for PASSTIMING_PROFILE and PASSTIMING_EVENTS: the
  /// JSON profile of each context when it closes, replacing the previous
  /// one, and the event log streamed. The report is the caller's
  /// (print_report()). A file that cannot be opened or written is logged on
  /// `tilelang.pass_timing`, naming it; this never throws for a file.
  static std::shared_ptr<TileLangPassTimingInstrument> with_files(
      Settings settings, std::shared_ptr<const Clock> clock = steady_clock());

  /// The PassInstrument to put in a PassContext. It owns only the recorder,
  /// never this wrapper: either may outlive the other.
  PassInstrumentPtr instrument() const;
  /// The same recorder as a PassEventSink, for sources other than the
  /// PassContext host (the TVM adapter): events from either land in the same
  /// records. Like instrument(), it never refers to this wrapper.
  std::shared_ptr<PassEventSink> events() const { return recorder_; }
  /// The recorder behind this instrument: settings, section, profile.
  Recorder& recorder() { return *recorder_; }
  const Recorder& recorder() const { return *recorder_; }

  /// The seed's names for what the recorder reads back.
  std::vector<PassTimingRecord> records() const { return recorder_->records(); }
  double total_duration_s() const { return recorder_->total_duration_s(); }
  double threshold_ms() const { return recorder_->threshold_ms(); }
  std::string report(std::optional<std::string_view> context = std::nullopt) const {
    return recorder_->report(context);
  }
  void print_report(std::optional<std::string_view> context = std::nullopt) const {
    recorder_->print_report(context);
  }
  const Section& section() const { return recorder_->section(); }

 private:
  std::shared_ptr<Recorder> recorder_;
  /// The session of an instrument made by with_files(), else null.
  std::shared_ptr<CompileSession> session_;
};

/// What build_pass_instruments returns: the instruments for a PassContext,
/// and the timing instrument among them (null when timing is off).
struct PassInstruments {
  std::vector<PassInstrumentPtr> instruments;
  std::shared_ptr<TileLangPassTimingInstrument> timing;
};

/// No threshold: `base` unchanged and no timing. A threshold: a new timing
/// instrument first, then `base` in order, so that later instruments'
/// after-pass work stays outside the measured time.
///
///     auto [instruments, timing] = passtiming::build_pass_instruments(base, 10.0);
PassInstruments build_pass_instruments(std::vector<PassInstrumentPtr> base_instruments,
                                       std::optional<double> threshold_ms,
                                       std::shared_ptr<const Clock> clock = steady_clock());

/// Prints the timing report when its scope ends, also while an exception
/// unwinds it. Its destructor never throws and never hides the exception.
class [[nodiscard]] PassTimingReportGuard {
 public:
  PassTimingReportGuard(std::shared_ptr<const TileLangPassTimingInstrument> timing,
                        std::string context);
  PassTimingReportGuard(const PassTimingReportGuard&) = delete;
  PassTimingReportGuard& operator=(const PassTimingReportGuard&) = delete;
  PassTimingReportGuard(PassTimingReportGuard&& other) noexcept;
  PassTimingReportGuard& operator=(PassTimingReportGuard&&) = delete;
  ~PassTimingReportGuard();

 private:
  std::shared_ptr<const TileLangPassTimingInstrument> timing_;
  std::string context_;
};

/// Emits the report of `timing` after the scope ends, including on failure;
/// does nothing for a null `timing`.
///
///     auto guard = passtiming::report_pass_timing_on_exit(timing, "stage=lower");
PassTimingReportGuard report_pass_timing_on_exit(
    std::shared_ptr<const TileLangPassTimingInstrument> timing, std::string context);

}  // namespace passtiming
