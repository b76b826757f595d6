#include "passtiming/host/session.h"

#include "passtiming/engine/logging.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace passtiming {
namespace {

/// Hands events to the session's log one at a time: sections compiled on
/// different threads share one EventLogWriter, which is not thread-safe.
/// Only sessions with an event log pay for the lock.
class SerializedObserver final : public EventObserver {
 public:
  explicit SerializedObserver(EventObserver& target) : target_(target) {}
  void on_enter(Nanoseconds t, std::string_view context) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_enter(t, context);
  }
  void on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                 ThreadKey tid) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_before(t, pass, kernel, tid);
  }
  void on_after(Nanoseconds t, std::string_view pass, ThreadKey tid) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_after(t, pass, tid);
  }
  void on_skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
               ThreadKey tid) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_skip(t, pass, kernel, tid);
  }
  void on_exit(Nanoseconds t) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_exit(t);
  }
  void on_before_sampled(Nanoseconds t, std::string_view pass, std::string_view kernel,
                         ThreadKey tid, const MetricSample& sample) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_before_sampled(t, pass, kernel, tid, sample);
  }
  void on_after_sampled(Nanoseconds t, std::string_view pass, ThreadKey tid,
                        const MetricSample& sample) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_after_sampled(t, pass, tid, sample);
  }

 private:
  std::mutex mutex_;
  EventObserver& target_;
};

}  // namespace

PassTimingTool::PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock)
    : PassTimingTool(threshold_ms, std::move(clock),
                     OutputSettings::from_environment(Environment::process())) {}

PassTimingTool::PassTimingTool(double threshold_ms, std::shared_ptr<const Clock> clock,
                               OutputSettings outputs)
    : threshold_ms_(threshold_ms),
      clock_(clock ? std::move(clock) : steady_clock()),
      outputs_(std::move(outputs)) {
  // Validates the threshold the same way every instrument will.
  TileLangPassTimingInstrument probe(threshold_ms_, clock_);
  if (!outputs_.metrics.empty()) {
    sampler_ = shared_metric_sampler(outputs_.metrics);
    metrics_ = sampler_->metrics();
  }
  if (!outputs_.profile_path && !outputs_.events_path) return;
  metadata_ = current_process_metadata();
  if (outputs_.events_path) {
    try {
      events_ = EventLogWriter::open(*outputs_.events_path, metadata_, metrics_);
      serialized_events_ = std::make_unique<SerializedObserver>(*events_);
    } catch (const std::exception& e) {
      // The compile goes on without the log; the user learns why.
      get_logger(kTimingLoggerName).error(e.what());
    }
  }
}

std::unique_ptr<PassTimingTool> PassTimingTool::from_settings(const PassConfig& config,
                                                              const Environment& env,
                                                              std::shared_ptr<const Clock> clock) {
  auto threshold = pass_timing_threshold(config, env);
  if (!threshold) return nullptr;
  return std::make_unique<PassTimingTool>(*threshold, std::move(clock),
                                          OutputSettings::from_environment(env));
}

PassTimingTool::~PassTimingTool() {
  finish();
}

std::shared_ptr<TileLangPassTimingInstrument> PassTimingTool::new_section(std::string context) {
  auto timing = std::make_shared<TileLangPassTimingInstrument>(threshold_ms_, clock_);
  timing->recorder().set_context_label(std::move(context));
  if (sampler_) timing->recorder().record_metrics(metrics_.recorded, sampler_);
  std::lock_guard lock(mutex_);
  if (events_ && !finished_) timing->recorder().set_observer(serialized_events_.get());
  sections_.push_back(timing);
  return timing;
}

std::vector<PassInstrumentPtr> PassTimingTool::instruments_for(
    std::string context, std::vector<PassInstrumentPtr> base) {
  std::vector<PassInstrumentPtr> out;
  out.reserve(base.size() + 1);
  out.push_back(new_section(std::move(context))->instrument());
  for (auto& instrument : base) out.push_back(std::move(instrument));
  return out;
}

Profile PassTimingTool::profile() const {
  std::lock_guard lock(mutex_);
  Profile profile;
  profile.metadata = metadata_;
  profile.metrics = metrics_;
  profile.sections.reserve(sections_.size());
  for (const auto& timing : sections_) profile.sections.push_back(timing->section());
  return profile;
}

std::string PassTimingTool::report() const {
  return render_session_report(profile(), threshold_ms_);
}

bool PassTimingTool::begin_finishing() noexcept {
  std::lock_guard lock(mutex_);
  if (finished_) return false;
  finished_ = true;
  return true;
}

void PassTimingTool::finish() noexcept {
  // Claimed before the report, so two threads finishing at once log once.
  if (!begin_finishing()) return;
  try {
    get_logger(kTimingLoggerName).info("\n" + report());
  } catch (...) {
    get_logger(kTimingLoggerName).error("could not build the pass timing report");
  }
  write_outputs();
}

void PassTimingTool::close_outputs() noexcept {
  if (begin_finishing()) write_outputs();
}

void PassTimingTool::write_outputs() noexcept {
  if (outputs_.profile_path) {
    try {
      write_profile_file(profile(), *outputs_.profile_path);
    } catch (const std::exception& e) {
      get_logger(kTimingLoggerName)
          .error(std::string("could not write the pass timing profile: ") + e.what());
    }
  }
  if (events_) {
    // Instruments may outlive the session inside a PassContext: they stop
    // reporting to the log before it goes away.
    {
      std::lock_guard lock(mutex_);
      for (const auto& timing : sections_) timing->recorder().set_observer(nullptr);
    }
    events_->close();
  }
}

}  // namespace passtiming
