#pragma once
/// \file
/// TileLang's compile session for the PassContext host: one logical
/// compilation that runs several PassContexts (lowering, host codegen,
/// device codegen), each timed into its own section of a CompileSession.

#include <memory>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/recorder/compile_session.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {

/// Times every PassContext of one compilation and reports all of them once,
/// when the session ends — also when it ends by an exception, which is never
/// hidden. The outputs are its CompileSession's; what this class adds is the
/// seed's instrument per context.
///
///     passtiming::PassTimingTool session(/*threshold_ms=*/0.0);
///     PassContext lower({.instruments = session.instruments_for("stage=lower")});
///     { auto scope = lower.enter(); mod = (*lowering)(mod); }
///     PassContext codegen({.instruments = session.instruments_for("stage=codegen")});
///     ...  // the destructor logs both sections, joined by an empty line
class PassTimingTool {
 public:
  /// The files and metrics of PASSTIMING_PROFILE, PASSTIMING_EVENTS and
  /// PASSTIMING_METRICS (read_settings()); the report goes to the log.
  explicit PassTimingTool(double threshold_ms = 0.0,
                          std::shared_ptr<const Clock> clock = steady_clock());
  /// With explicit settings; their threshold is replaced by `threshold_ms`.
  /// With an events path, every section streams into one event log; with a
  /// profile path, finish() writes the JSON profile. A file that cannot be
  /// opened or written is logged on `tilelang.pass_timing`, naming the path
  /// and its setting; it never throws.
  PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock, Settings settings);
  /// A session when timing is on for `config` and `env` (see
  /// tilelang_settings()), else null.
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

  double threshold_ms() const { return session_.threshold_ms(); }
  /// Every section's report, in the order the contexts ran, joined by an
  /// empty line.
  std::string report() const { return session_.report(); }
  /// The session as a Profile (copies the sections), with the metadata of
  /// the process taken when the session started.
  Profile profile() const { return session_.profile(); }
  /// Logs "\n" + report() at INFO on `tilelang.pass_timing`, once, then
  /// writes the profile file and closes the event log when configured; later
  /// calls and the destructor do nothing. Never throws.
  void finish() noexcept { session_.finish(); }
  /// finish() without the report, for a host that renders and logs the
  /// report itself (the Python TileLang tool). Never throws.
  void close_outputs() noexcept { session_.close_outputs(); }

  const Settings& settings() const { return session_.settings(); }
  /// What the sections record besides wall time (settings().metrics): the
  /// metrics recorded and those the machine cannot give, with the reason.
  const ProfileMetrics& metrics() const { return session_.metrics(); }
  CompileSession& session() { return session_; }

 private:
  CompileSession session_;
};

}  // namespace passtiming
