#include "passtiming/session.h"

#include "passtiming/logging.h"
#include "passtiming/report.h"

namespace passtiming {

PassTimingTool::PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock)
    : threshold_ms_(threshold_ms), clock_(clock ? std::move(clock) : steady_clock()) {
  // Validates the threshold the same way every instrument will.
  TileLangPassTimingInstrument probe(threshold_ms_, clock_);
}

std::unique_ptr<PassTimingTool> PassTimingTool::from_settings(const PassConfig& config,
                                                              const Environment& env,
                                                              std::shared_ptr<const Clock> clock) {
  auto threshold = pass_timing_threshold(config, env);
  if (!threshold) return nullptr;
  return std::make_unique<PassTimingTool>(*threshold, std::move(clock));
}

PassTimingTool::~PassTimingTool() { finish(); }

std::shared_ptr<TileLangPassTimingInstrument> PassTimingTool::new_section(std::string context) {
  auto timing = std::make_shared<TileLangPassTimingInstrument>(threshold_ms_, clock_);
  timing->set_context_label(std::move(context));
  sections_.push_back(timing);
  return timing;
}

std::vector<PassInstrumentPtr> PassTimingTool::instruments_for(std::string context,
                                                               std::vector<PassInstrumentPtr> base) {
  std::vector<PassInstrumentPtr> out;
  out.reserve(base.size() + 1);
  out.push_back(new_section(std::move(context))->instrument());
  for (auto& instrument : base) out.push_back(std::move(instrument));
  return out;
}

Profile PassTimingTool::profile() const {
  Profile profile;
  profile.sections.reserve(sections_.size());
  for (const auto& timing : sections_) profile.sections.push_back(timing->section());
  return profile;
}

std::string PassTimingTool::report() const {
  return render_session_report(profile(), threshold_ms_);
}

void PassTimingTool::finish() noexcept {
  if (finished_) return;
  finished_ = true;
  try {
    get_logger(kTimingLoggerName).info("\n" + report());
  } catch (...) {
    get_logger(kTimingLoggerName).error("could not build the pass timing report");
  }
}

}  // namespace passtiming
