#pragma once
/// \file
/// A compile session: one logical compilation that runs several PassContexts
/// (lowering, host codegen, device codegen), each timed into its own section.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/recorder/outputs.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {

/// Times every PassContext of one compilation and reports all of them once,
/// when the session ends — also when it ends by an exception, which is never
/// hidden.
///
///     passtiming::PassTimingTool session(/*threshold_ms=*/0.0);
///     PassContext lower({.instruments = session.instruments_for("stage=lower")});
///     { auto scope = lower.enter(); mod = (*lowering)(mod); }
///     PassContext codegen({.instruments = session.instruments_for("stage=codegen")});
///     ...  // the destructor logs both sections, joined by an empty line
class PassTimingTool {
 public:
  explicit PassTimingTool(double threshold_ms = 0.0,
                          std::shared_ptr<const Clock> clock = steady_clock());
  /// With explicit output files (the other constructor reads them from the
  /// process environment: PASSTIMING_PROFILE, PASSTIMING_EVENTS). With an
  /// events path, every section streams into one event log; with a profile
  /// path, finish() writes the JSON profile. A file that cannot be written is
  /// logged on `tilelang.pass_timing`, naming the path; it never throws.
  PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock, OutputSettings outputs);
  /// A session when timing is on for `config` and `env` (see
  /// pass_timing_threshold), else null.
  static std::unique_ptr<PassTimingTool> from_settings(
      const PassConfig& config, const Environment& env = Environment::process(),
      std::shared_ptr<const Clock> clock = steady_clock());

  PassTimingTool(const PassTimingTool&) = delete;
  PassTimingTool& operator=(const PassTimingTool&) = delete;
  /// Reports, unless finish() already did. Never throws.
  ~PassTimingTool();

  /// A fresh timing instrument for the next PassContext, labelled `context`.
  /// Thread-safe: threads compiling at once each take their own section (and
  /// each must use its own instrument). Sections are kept in creation order.
  std::shared_ptr<TileLangPassTimingInstrument> new_section(std::string context);
  /// The instruments for the next PassContext: a fresh timing instrument
  /// labelled `context` first, then `base` in order.
  std::vector<PassInstrumentPtr> instruments_for(std::string context,
                                                 std::vector<PassInstrumentPtr> base = {});

  const std::vector<std::shared_ptr<TileLangPassTimingInstrument>>& sections() const {
    return sections_;
  }
  double threshold_ms() const { return threshold_ms_; }

  /// Every section's report, in the order the contexts ran, joined by an
  /// empty line.
  std::string report() const;
  /// The session as a Profile (copies the sections), with the metadata of
  /// the process taken when the session started.
  Profile profile() const;
  /// Logs "\n" + report() at INFO on `tilelang.pass_timing`, once, then
  /// writes the profile file and closes the event log when configured; later
  /// calls and the destructor do nothing. Never throws.
  void finish() noexcept;
  /// finish() without the report, for a host that renders and logs the
  /// report itself (the Python TileLang tool): writes the profile file and
  /// closes the event log when configured, once. Later calls, finish() and
  /// the destructor then do nothing. Never throws.
  void close_outputs() noexcept;

  const OutputSettings& outputs() const { return outputs_; }
  /// What the sections record besides wall time (outputs().metrics): the
  /// metrics recorded and those the machine cannot give, with the reason.
  const ProfileMetrics& metrics() const { return metrics_; }

 private:
  /// True for the one caller that finishes the session (finish() or
  /// close_outputs()); false for every later one.
  bool begin_finishing() noexcept;
  /// Writes the profile file and closes the event log, when configured.
  void write_outputs() noexcept;

  double threshold_ms_;
  std::shared_ptr<const Clock> clock_;
  std::vector<std::shared_ptr<TileLangPassTimingInstrument>> sections_;
  bool finished_ = false;
  OutputSettings outputs_;
  ProfileMetadata metadata_;
  /// The sampler every section reads when outputs_.metrics asks for any, and
  /// what the profile says about the metrics.
  std::shared_ptr<SystemMetricSampler> sampler_;
  ProfileMetrics metrics_;
  std::unique_ptr<EventLogWriter> events_;
  /// Serialises the sections' events into `events_` (threads share the log).
  std::unique_ptr<EventObserver> serialized_events_;
  /// Guards `sections_` and `finished_` against threads calling
  /// new_section() at once.
  mutable std::mutex mutex_;
};

}  // namespace passtiming
