#include "passtiming/host/session.h"

#include <exception>

#include "passtiming/engine/logging.h"

namespace passtiming {
namespace {

Settings with_threshold(Settings settings, double threshold_ms) {
  settings.threshold_ms = threshold_ms;
  return settings;
}

/// The host's settings: the log gets the report, and a file that cannot be
/// opened costs that file, not the compile: the session goes on without
/// the event log, and the user learns why.
CompileSession open_session(Settings settings, std::shared_ptr<const Clock> clock) {
  settings.report = ReportTarget::log;
  try {
    return CompileSession(settings, clock);
  } catch (const std::exception& e) {
    get_logger(kTimingLoggerName).error(e.what());
  }
  settings.events.reset();
  return CompileSession(std::move(settings), std::move(clock));
}

}  // namespace

PassTimingTool::PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock)
    : PassTimingTool(threshold_ms, std::move(clock), read_file_settings({})) {}

PassTimingTool::PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock,
                               Settings settings)
    : session_(open_session(with_threshold(std::move(settings), threshold_ms), std::move(clock))) {}

std::unique_ptr<PassTimingTool> PassTimingTool::from_settings(const PassConfig& config,
                                                              const Environment& env,
                                                              std::shared_ptr<const Clock> clock) {
  std::optional<Settings> settings = tilelang_settings(config, env);
  if (!settings) return nullptr;
  const double threshold = settings->threshold_ms;
  return std::make_unique<PassTimingTool>(threshold, std::move(clock), std::move(*settings));
}

PassTimingTool::~PassTimingTool() = default;

std::shared_ptr<TileLangPassTimingInstrument> PassTimingTool::new_section(std::string context) {
  return std::make_shared<TileLangPassTimingInstrument>(session_.new_section(std::move(context)));
}

std::vector<PassInstrumentPtr> PassTimingTool::instruments_for(
    std::string context, std::vector<PassInstrumentPtr> base) {
  std::vector<PassInstrumentPtr> out;
  out.reserve(base.size() + 1);
  out.push_back(new_section(std::move(context))->instrument());
  for (auto& instrument : base) out.push_back(std::move(instrument));
  return out;
}

}  // namespace passtiming
