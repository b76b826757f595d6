#include "passtiming/pass_timing.h"

#include <atomic>
#include <string>
#include <thread>

#include "passtiming/event_log_writer.h"
#include "passtiming/logging.h"
#include "passtiming/profile_io.h"
#include "passtiming/profile_json.h"
#include "passtiming/report.h"

namespace passtiming {
namespace detail {

/// The callback state: what the PassInstrument owns. The wrapper shares it
/// but is never referenced from here, so dropping the wrapper never breaks a
/// PassContext that still holds the instrument.
class TimingInstrumentState final : public PassEventSink {
 public:
  explicit TimingInstrumentState(std::shared_ptr<const Clock> clock) : clock_(std::move(clock)) {}
  TimingStateMachine machine;
  const Clock& clock() const { return *clock_; }
  std::string label;

  /// The thread inside enter_pass_ctx..exit_pass_ctx, or none. One state
  /// machine times one PassContext on one thread at a time: a second thread
  /// that enters while another is inside is refused (logged once) and its
  /// callbacks ignored, rather than silently corrupting the first thread's
  /// stack. A plain load per callback; the CAS is paid once per context.
  std::atomic<std::thread::id> owner{};
  std::atomic<bool> warned_foreign{false};

  /// Whether the calling thread may drive the machine now.
  bool admits_caller() {
    const std::thread::id current = owner.load(std::memory_order_relaxed);
    if (current == std::thread::id{} || current == std::this_thread::get_id()) return true;
    refuse();
    return false;
  }
  /// enter_pass_ctx: claims the machine for this thread.
  bool claim() {
    std::thread::id expected{};
    const std::thread::id self = std::this_thread::get_id();
    if (owner.compare_exchange_strong(expected, self, std::memory_order_acquire) ||
        expected == self) {
      return true;
    }
    refuse();
    return false;
  }
  /// exit_pass_ctx: gives the machine back; false when another thread has it.
  bool release() {
    const std::thread::id current = owner.load(std::memory_order_relaxed);
    if (current != std::thread::id{} && current != std::this_thread::get_id()) {
      refuse();
      return false;
    }
    owner.store(std::thread::id{}, std::memory_order_release);
    return true;
  }

  // The PassEventSink callbacks, shared by the PassContext instrument below
  // and by sources in other libraries (the TVM adapter). A failure inside
  // the state machine (out of memory, too many names) costs that event,
  // never the compile.
  void enter_pass_ctx() noexcept override {
    if (!claim()) return;
    guarded([&] { machine.enter(clock().now_ns(), label); });
  }
  void exit_pass_ctx() noexcept override {
    if (!admits_caller()) return;
    guarded([&] { machine.exit(clock().now_ns()); });
    write_profile();
    release();
  }
  void run_before_pass(std::string_view pass, std::string_view kernel) noexcept override {
    if (!admits_caller()) return;
    guarded([&] { machine.before_now(clock(), pass, kernel); });
  }
  void run_after_pass(std::string_view pass) noexcept override {
    // Read the clock first: the checks below are not the pass's time.
    const Nanoseconds t = clock().now_ns();
    if (!admits_caller()) return;
    guarded([&] { machine.after(t, pass); });
  }
  void run_after_pass_counting_ir(std::string_view pass, IrCounter count,
                                  void* context) noexcept override {
    // The clock and the other figures first: the counting is not the pass's.
    const Nanoseconds t = clock().now_ns();
    if (!admits_caller()) return;
    MetricSample end;
    machine.read_sample(end);
    std::uint8_t flags = 0;
    const std::int64_t size = count(context, flags);
    machine.note_ir(size, flags);
    guarded([&] { machine.after_sampled(t, pass, end); });
  }
  bool records_ir_size() const noexcept override { return machine.metrics().contains(Metric::ir); }
  void note_ir(std::int64_t size, std::uint8_t flags) noexcept override {
    if (!admits_caller()) return;
    machine.note_ir(size, flags);
  }

  /// The metrics of record_metrics(): the sampler the machine reads, and
  /// what the profile says about them.
  std::shared_ptr<MetricSampler> sampler;
  ProfileMetrics metrics;

  /// The files of an instrument used on its own (write_files).
  std::optional<std::string> profile_path;
  std::unique_ptr<EventLogWriter> events;
  ProfileMetadata metadata;

  ~TimingInstrumentState() override {
    if (events) events->close();
  }

 private:
  /// The JSON profile of the context just left, when one was asked for.
  void write_profile() noexcept {
    if (!profile_path) return;
    try {
      Profile profile;
      profile.metadata = metadata;
      profile.metrics = metrics;
      profile.sections.push_back(machine.section());
      profile.sections.back().context = label;
      write_profile_file(profile, *profile_path);
    } catch (const std::exception& e) {
      try {
        get_logger(kTimingLoggerName)
            .error(std::string("could not write the pass timing profile: ") + e.what());
      } catch (...) {
      }
    }
  }

  template <typename Event>
  static void guarded(Event&& event) noexcept {
    try {
      event();
    } catch (const std::exception& e) {
      try {
        get_logger(kTimingLoggerName).error(std::string("pass timing event lost: ") + e.what());
      } catch (...) {
      }
    } catch (...) {
    }
  }

  void refuse() {
    if (warned_foreign.exchange(true)) return;
    get_logger(kTimingLoggerName)
        .error(
            "TileLangPassTimingInstrument used by a second thread while another is inside its "
            "PassContext; that thread's passes are not timed (give each thread its own "
            "instrument, e.g. PassTimingTool::instruments_for)");
  }

 public:
 private:
  std::shared_ptr<const Clock> clock_;
};

}  // namespace detail
namespace {

class TimingPassInstrument final : public PassInstrument {
 public:
  explicit TimingPassInstrument(std::shared_ptr<detail::TimingInstrumentState> state)
      : state_(std::move(state)) {}

  std::string_view name() const override { return "TileLangPassTimingInstrument"; }
  void enter_pass_ctx() override { state_->enter_pass_ctx(); }
  void exit_pass_ctx() override { state_->exit_pass_ctx(); }
  // This host's modules hold function names and nothing to measure, so it
  // counts no IR: with `ir` asked for, its records say "not measured".
  void run_before_pass(const IRModule& mod, const PassInfo& info) override {
    state_->run_before_pass(info.name, mod.kernel_label());
  }
  void run_after_pass(const IRModule&, const PassInfo& info) override {
    state_->run_after_pass(info.name);
  }
  void run_skipped_pass(const IRModule& mod, const PassInfo& info) override {
    if (!state_->admits_caller()) return;
    state_->machine.skip(state_->clock().now_ns(), info.name, mod.kernel_label());
  }

 private:
  std::shared_ptr<detail::TimingInstrumentState> state_;
};

}  // namespace

TileLangPassTimingInstrument::TileLangPassTimingInstrument(double threshold_ms,
                                                           std::shared_ptr<const Clock> clock)
    : threshold_ms_(threshold_ms) {
  if (!clock) clock = steady_clock();
  state_ = std::make_shared<detail::TimingInstrumentState>(std::move(clock));
}

PassInstrumentPtr TileLangPassTimingInstrument::instrument() const {
  return std::make_shared<TimingPassInstrument>(state_);
}

std::shared_ptr<PassEventSink> TileLangPassTimingInstrument::events() const {
  return state_;
}

std::vector<PassTimingRecord> TileLangPassTimingInstrument::records() const {
  return pass_timing_records(section());
}

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

double TileLangPassTimingInstrument::total_duration_s() const {
  return section().total_seconds();
}

std::string TileLangPassTimingInstrument::report(std::optional<std::string_view> context) const {
  return render_report(section(), threshold_ms_, context);
}

void TileLangPassTimingInstrument::print_report(std::optional<std::string_view> context) const {
  get_logger(kTimingLoggerName).info("\n" + report(context));
}

const Section& TileLangPassTimingInstrument::section() const {
  return state_->machine.section();
}

void TileLangPassTimingInstrument::set_context_label(std::string label) {
  state_->label = std::move(label);
}

void TileLangPassTimingInstrument::set_observer(EventObserver* observer) {
  state_->machine.set_observer(observer);
}

void TileLangPassTimingInstrument::record_metrics(MetricSet metrics,
                                                  std::shared_ptr<MetricSampler> sampler) {
  detail::TimingInstrumentState& state = *state_;
  state.metrics = ProfileMetrics{};
  if (metrics.empty()) {
    state.sampler = nullptr;
  } else if (sampler) {
    state.sampler = std::move(sampler);
    state.metrics.recorded = metrics;
  } else {
    std::shared_ptr<SystemMetricSampler> system = shared_metric_sampler(metrics);
    state.metrics = system->metrics();
    state.sampler = std::move(system);
  }
  // Nothing left to record (every metric asked for is unavailable): the
  // callbacks stay on the path without metrics, which costs nothing.
  if (state.metrics.recorded.empty()) state.sampler = nullptr;
  state.machine.set_metrics(state.sampler.get(), state.metrics.recorded);
}

const ProfileMetrics& TileLangPassTimingInstrument::metrics() const {
  return state_->metrics;
}

void TileLangPassTimingInstrument::write_files(const OutputSettings& outputs) {
  if (!outputs.metrics.empty()) record_metrics(outputs.metrics);
  if (!outputs.profile_path && !outputs.events_path) return;
  state_->metadata = current_process_metadata();
  state_->profile_path = outputs.profile_path;
  if (!outputs.events_path) return;
  try {
    state_->events = EventLogWriter::open(*outputs.events_path, state_->metadata, state_->metrics);
    state_->machine.set_observer(state_->events.get());
  } catch (const std::exception& e) {
    // The compile goes on without the log; the user learns why.
    get_logger(kTimingLoggerName).error(e.what());
  }
}

PassInstruments build_pass_instruments(std::vector<PassInstrumentPtr> base_instruments,
                                       std::optional<double> threshold_ms,
                                       std::shared_ptr<const Clock> clock) {
  if (!threshold_ms) return {std::move(base_instruments), nullptr};
  auto timing = std::make_shared<TileLangPassTimingInstrument>(*threshold_ms, std::move(clock));
  PassInstruments out;
  out.instruments.reserve(base_instruments.size() + 1);
  out.instruments.push_back(timing->instrument());
  for (auto& instrument : base_instruments) out.instruments.push_back(std::move(instrument));
  out.timing = std::move(timing);
  return out;
}

PassTimingReportGuard::PassTimingReportGuard(
    std::shared_ptr<const TileLangPassTimingInstrument> timing, std::string context)
    : timing_(std::move(timing)), context_(std::move(context)) {}

PassTimingReportGuard::PassTimingReportGuard(PassTimingReportGuard&& other) noexcept
    : timing_(std::move(other.timing_)), context_(std::move(other.context_)) {}

PassTimingReportGuard::~PassTimingReportGuard() {
  if (!timing_) return;
  try {
    timing_->print_report(context_);
  } catch (...) {
    // Building the report failed (out of memory): the exception in flight,
    // if any, is the one the caller needs to see.
    get_logger(kTimingLoggerName).error("could not build the pass timing report");
  }
}

PassTimingReportGuard report_pass_timing_on_exit(
    std::shared_ptr<const TileLangPassTimingInstrument> timing, std::string context) {
  return PassTimingReportGuard(std::move(timing), std::move(context));
}

}  // namespace passtiming
