#include "passtiming/recorder/recorder.h"

#include "passtiming/engine/logging.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace passtiming {
namespace {

/// Runs one event. A failure inside the state machine (out of memory, too
/// many names) costs that event, never the compile; it is logged on `log`.
template <typename Event>
void guarded(const Logger& log, Event&& event) noexcept {
  try {
    event();
  } catch (const std::exception& e) {
    try {
      log.error(std::string("pass timing event lost: ") + e.what());
    } catch (...) {
    }
  } catch (...) {
  }
}

}  // namespace

std::vector<PassTimingRecord> pass_timing_records(const Section& s) {
  std::vector<PassTimingRecord> out;
  out.reserve(s.records.size());
  for (std::uint32_t i : s.order_by_sequence()) {
    const Record& r = s.records[i];
    out.push_back(PassTimingRecord{std::string(s.name_of(r)), to_seconds(r.inclusive_ns), r.depth,
                                   to_seconds(r.self_ns), r.sequence, std::string(s.kernel_of(r))});
  }
  return out;
}

Recorder::Recorder(double threshold_ms, std::shared_ptr<const Clock> clock)
    : threshold_ms_(threshold_ms),
      clock_(clock ? std::move(clock) : steady_clock()),
      steady_(clock_ == steady_clock()),
      logger_(&get_logger(kTimingLoggerName)) {
  settings_.threshold_ms = threshold_ms;
}

Recorder::Recorder(const Settings& settings, std::shared_ptr<const Clock> clock,
                   std::shared_ptr<MetricSampler> sampler)
    : Recorder(settings.threshold_ms, std::move(clock)) {
  settings_ = settings;
  label_ = settings.context;
  logger_ = &get_logger(timing_logger_name(settings.source));
  machine_.set_logger(*logger_);
  if (!settings.metrics.empty()) record_metrics(settings.metrics, std::move(sampler));
}

Recorder::~Recorder() = default;

void Recorder::begin_context() {
  machine_.enter(clock_->now_ns(), label_);
  in_context_.store(true, std::memory_order_relaxed);
}

void Recorder::finish_context() {
  machine_.exit(clock_->now_ns());
  context_closed();
}

void Recorder::context_closed() noexcept {
  in_context_.store(false, std::memory_order_relaxed);
  if (!close_listener_) return;
  try {
    close_listener_(*this);
  } catch (...) {
    // The listener's own failures are its to report; the compile goes on.
  }
}

// The PassEventSink callbacks. The owner check is a plain load per callback;
// the compare-and-swap is paid once per context.

bool Recorder::claim() noexcept {
  std::uintptr_t expected = 0;
  const std::uintptr_t self = caller();
  if (owner_.compare_exchange_strong(expected, self, std::memory_order_acquire) ||
      expected == self) {
    return true;
  }
  refuse();
  return false;
}

bool Recorder::release() noexcept {
  const std::uintptr_t current = owner_.load(std::memory_order_relaxed);
  if (current != 0 && current != caller()) {
    refuse();
    return false;
  }
  owner_.store(0, std::memory_order_release);
  return true;
}

void Recorder::refuse() noexcept {
  if (warned_foreign_.exchange(true)) return;
  try {
    logger_->error(
        "TileLangPassTimingInstrument used by a second thread while another is inside its "
        "PassContext; that thread's passes are not timed (give each thread its own "
        "instrument, e.g. PassTimingTool::instruments_for)");
  } catch (...) {
  }
}

void Recorder::enter_pass_ctx() noexcept {
  if (!claim()) return;
  guarded(*logger_, [&] { begin_context(); });
}

void Recorder::exit_pass_ctx() noexcept {
  if (!admits_caller()) return;
  guarded(*logger_, [&] { machine_.exit(clock_->now_ns()); });
  context_closed();
  release();
}

void Recorder::run_before_pass(std::string_view pass, std::string_view kernel) noexcept {
  if (!admits_caller()) return;
  guarded(*logger_, [&] {
    if (steady_) [[likely]] {
      machine_.begin_now(static_cast<const SteadyClock&>(*clock_), {pass, kernel});
    } else {
      machine_.begin_now(*clock_, {pass, kernel});
    }
  });
}

void Recorder::run_after_pass(std::string_view pass) noexcept {
  // The clock first: the checks below are not the pass's time. With
  // metrics, the machine reads the sampler and then the clock again.
  const Nanoseconds t = steady_ ? SteadyClock::read() : clock_->now_ns();
  if (!admits_caller()) return;
  guarded(*logger_, [&] { machine_.end(t, {.pass = pass, .clock = clock_.get()}); });
}

void Recorder::run_after_pass_counting_ir(std::string_view pass, IrCounter count,
                                          void* context) noexcept {
  // The other figures, then the clock (so that the CPU interval lies inside
  // the wall interval), then the count, which is not the pass's.
  if (!admits_caller()) return;
  MetricSample end;
  machine_.read_sample(end);
  const Nanoseconds t = clock_->now_ns();
  std::uint8_t flags = 0;
  const std::int64_t size = count(context, flags);
  machine_.note_ir(size, flags);
  guarded(*logger_, [&] { machine_.end(t, {.pass = pass, .sample = &end}); });
}

void Recorder::note_ir(std::int64_t size, std::uint8_t flags) noexcept {
  if (!admits_caller()) return;
  machine_.note_ir(size, flags);
}

void Recorder::run_skipped_pass(std::string_view pass, std::string_view kernel) noexcept {
  if (!admits_caller()) return;
  guarded(*logger_, [&] { machine_.skip(clock_->now_ns(), pass, kernel); });
}

std::string Recorder::report(std::optional<std::string_view> context) const {
  return render_report(section(), threshold_ms_, context, report_style(settings_.source));
}

void Recorder::print_report(std::optional<std::string_view> context) const {
  logger_->info("\n" + report(context));
}

Profile Recorder::profile() const {
  Profile profile;
  profile.metadata = current_process_metadata();
  profile.metadata.source = settings_.source;
  profile.metrics = metrics_;
  profile.sections.push_back(section());
  profile.sections.back().context = label_;
  return profile;
}

void Recorder::record_metrics(MetricSet metrics, std::shared_ptr<MetricSampler> sampler) {
  metrics_ = ProfileMetrics{};
  if (metrics.empty()) {
    sampler_ = nullptr;
  } else if (sampler) {
    sampler_ = std::move(sampler);
    metrics_.recorded = metrics;
  } else {
    std::shared_ptr<SystemMetricSampler> system = shared_metric_sampler(metrics, logger_->name());
    metrics_ = system->metrics();
    sampler_ = std::move(system);
  }
  // Nothing left to record (every metric asked for is unavailable): the
  // callbacks stay on the path without metrics, which costs nothing.
  if (metrics_.recorded.empty()) sampler_ = nullptr;
  machine_.set_metrics(sampler_.get(), metrics_.recorded);
}

}  // namespace passtiming
