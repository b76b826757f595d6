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

#include "passtiming/clock.h"
#include "passtiming/outputs.h"
#include "passtiming/pass_event_sink.h"
#include "passtiming/pass_instrument.h"
#include "passtiming/profile.h"
#include "passtiming/timing_state.h"

namespace passtiming {

/// One completed pass execution, as the seed's dataclass has it.
struct PassTimingRecord {
  std::string name;
  double duration_s = 0.0;  ///< inclusive
  int depth = 0;            ///< 0 = top level
  double self_duration_s = 0.0;
  std::uint64_t sequence = 0;
  std::string kernel;

  bool operator==(const PassTimingRecord&) const = default;
};

/// The records of `section` as the seed returns them: sorted by sequence,
/// durations in seconds. Shared by every front end that exposes `records`.
std::vector<PassTimingRecord> pass_timing_records(const Section& section);

namespace detail {
class TimingInstrumentState;
}

/// Times every pass of the PassContexts it is put in.
///
///     passtiming::TileLangPassTimingInstrument timing(/*threshold_ms=*/0.0);
///     passtiming::PassContext ctx({.instruments = {timing.instrument()}});
///     { auto scope = ctx.enter(); mod = (*pipeline)(mod); }
///     timing.print_report("stage=lower");
class TileLangPassTimingInstrument {
 public:
  /// Any `threshold_ms` is taken, as the seed takes it: passes whose
  /// inclusive time is under it are hidden from the report, so a negative or
  /// NaN threshold hides none and an infinite one hides all.
  explicit TileLangPassTimingInstrument(double threshold_ms = 0.0,
                                        std::shared_ptr<const Clock> clock = steady_clock());

  /// The PassInstrument to put in a PassContext. It owns only the callback
  /// state, never this wrapper: either may outlive the other.
  PassInstrumentPtr instrument() const;
  /// The same callback state as a PassEventSink, for sources other than the
  /// PassContext host (the TVM adapter): events from either land in the same
  /// records. Like instrument(), it never refers to this wrapper.
  std::shared_ptr<PassEventSink> events() const;

  /// The completed records, sorted by sequence.
  std::vector<PassTimingRecord> records() const;
  /// Sum of the depth-0 inclusive durations.
  double total_duration_s() const;
  double threshold_ms() const { return threshold_ms_; }

  /// The report text (docs/report-format.md).
  std::string report(std::optional<std::string_view> context = std::nullopt) const;
  /// Logs "\n" + report at INFO on the logger `tilelang.pass_timing`.
  void print_report(std::optional<std::string_view> context = std::nullopt) const;

  /// The compact records, names and context label behind `records()`.
  const Section& section() const;
  /// Labels the section (the session tags each PassContext's instrument).
  void set_context_label(std::string label);

  /// Hands every raw event to `observer` as well (not owned; null for none).
  void set_observer(EventObserver* observer);

  /// Records `metrics` (metrics.h) for every pass of the PassContexts
  /// entered from now on, read by `sampler` (null: the system's, see
  /// shared_metric_sampler()). The empty set records none again.
  void record_metrics(MetricSet metrics, std::shared_ptr<MetricSampler> sampler = nullptr);
  /// What the records carry besides wall time: the metrics recorded and
  /// those asked for that the machine cannot give.
  const ProfileMetrics& metrics() const;

  /// The files of an instrument used on its own, outside a compile session
  /// (which writes its sections' files itself): with an events path the
  /// event log is created now and streamed from then on (it replaces any
  /// observer); with a profile path the JSON profile of each PassContext is
  /// written when the context exits, replacing the previous one. The
  /// settings' metrics are recorded (record_metrics()). A file that
  /// cannot be written is logged on `tilelang.pass_timing`, naming it; this
  /// never throws for a file.
  void write_files(const OutputSettings& outputs);

 private:
  double threshold_ms_;
  std::shared_ptr<detail::TimingInstrumentState> state_;
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
