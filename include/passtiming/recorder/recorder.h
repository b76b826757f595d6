#pragma once
/// \file
/// The one recorder every source times through: the clock, the timing state
/// machine, the context label, the threshold, the metrics, the files asked
/// for, and what is read back (section, records, report, profile). A source
/// keeps only what translates its framework's callbacks into the recorder's
/// events (docs/architecture.md).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/logging.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/recorder/pass_event_sink.h"
#include "passtiming/recorder/settings.h"

/// Whether the compiler reads the thread pointer itself (Recorder::caller).
#if defined(__has_builtin) && (defined(__x86_64__) || defined(__aarch64__))
#if __has_builtin(__builtin_thread_pointer)
#define PASSTIMING_THREAD_POINTER 1
#endif
#endif

namespace passtiming {

/// One completed pass execution, as the seed's dataclass has it
/// (docs/report-format.md says what the seed is).
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
/// durations in seconds.
std::vector<PassTimingRecord> pass_timing_records(const Section& section);

/// Records the passes of one PassContext at a time, and reads them back.
///
/// Sources drive it in one of two ways. A source in another library or
/// language (the PassContext host, the TVM adapter, Python) calls the
/// PassEventSink callbacks, which never throw and refuse a second thread
/// while one is inside the context. A source whose callbacks are the
/// compile's hot path (LLVM) or that serialises its threads itself (MLIR)
/// drives machine() with clock() directly and calls finish_context() when
/// it is done.
///
///     passtiming::Recorder recorder(/*threshold_ms=*/1.0);
///     recorder.enter_pass_ctx();
///     recorder.run_before_pass("tl.Simplify", "matmul");
///     recorder.run_after_pass("tl.Simplify");
///     recorder.exit_pass_ctx();
///     recorder.print_report();
class Recorder final : public PassEventSink {
 public:
  /// Any `threshold_ms` is taken, as the seed takes it: passes whose
  /// inclusive time is under it are hidden from the report, so a negative or
  /// NaN threshold hides none and an infinite one hides all. Sources whose
  /// settings promise a finite non-negative threshold check it first
  /// (check_threshold_ms()).
  explicit Recorder(double threshold_ms = 0.0, std::shared_ptr<const Clock> clock = steady_clock());
  /// A recorder as `settings` describe it: threshold, context label,
  /// metrics (read by `sampler`, null: the process's) and, for the LLVM
  /// source, record_analyses. The files are a CompileSession's.
  explicit Recorder(const Settings& settings, std::shared_ptr<const Clock> clock = steady_clock(),
                    std::shared_ptr<MetricSampler> sampler = nullptr);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  ~Recorder() override;

  // --- The engine, for sources that drive it directly ---------------------

  TimingStateMachine& machine() { return machine_; }
  const TimingStateMachine& machine() const { return machine_; }
  const Clock& clock() const { return *clock_; }
  /// Opens the context: the records of the previous one are cleared and the
  /// section is labelled with context_label().
  void begin_context();
  /// Closes the context: frames still running are discarded with a warning,
  /// then the close listener is told.
  void finish_context();
  /// Whether a context is open (begin_context() or enter_pass_ctx() ran,
  /// and neither finish_context() nor exit_pass_ctx() since).
  bool in_context() const noexcept { return in_context_.load(std::memory_order_relaxed); }

  // --- PassEventSink: the callbacks of a live pass host --------------------

  void enter_pass_ctx() noexcept override;
  void exit_pass_ctx() noexcept override;
  void run_before_pass(std::string_view pass, std::string_view kernel) noexcept override;
  void run_after_pass(std::string_view pass) noexcept override;
  void run_after_pass_counting_ir(std::string_view pass, IrCounter count,
                                  void* context) noexcept override;
  bool records_ir_size() const noexcept override { return metrics_.recorded.contains(Metric::ir); }
  void note_ir(std::int64_t size, std::uint8_t flags) noexcept override;
  /// `should_run` vetoed `pass` (counted in Section::skipped).
  void run_skipped_pass(std::string_view pass, std::string_view kernel) noexcept;

  // --- What is recorded ----------------------------------------------------

  /// The current (or last) context's records so far. Not to be read while
  /// another thread records; such sources read a copy made under their lock.
  const Section& section() const { return machine_.section(); }
  /// The completed records, sorted by sequence.
  std::vector<PassTimingRecord> records() const { return pass_timing_records(section()); }
  /// Sum of the depth-0 inclusive durations.
  double total_duration_s() const { return section().total_seconds(); }
  double threshold_ms() const { return threshold_ms_; }
  /// What the recorder was made with (threshold and label as given then).
  const Settings& settings() const { return settings_; }
  /// The report text of section() (docs/report-format.md), with a
  /// `Context:` line when `context` is given.
  std::string report(std::optional<std::string_view> context = std::nullopt) const;
  /// Logs "\n" + report(context) at INFO on the source's logger
  /// (timing_logger_name(): `tilelang.pass_timing` for TileLang and TVM).
  void print_report(std::optional<std::string_view> context = std::nullopt) const;
  /// section() as a one-section Profile, labelled with context_label(), with
  /// the metadata and metrics() of this recorder.
  Profile profile() const;
  /// What the records carry besides wall time: the metrics recorded and
  /// those asked for that the machine cannot give, with the reason.
  const ProfileMetrics& metrics() const { return metrics_; }

  // --- Settings --------------------------------------------------------------

  /// Labels the sections of the contexts entered from now on.
  void set_context_label(std::string label) { label_ = std::move(label); }
  const std::string& context_label() const { return label_; }
  /// Hands every raw event to `observer` as well (not owned; null for none).
  void set_observer(EventObserver* observer) { machine_.set_observer(observer); }
  /// Records `metrics` (metrics.h) for every pass of the contexts entered
  /// from now on, read by `sampler` (null: the system's, see
  /// shared_metric_sampler()). The empty set records none again.
  void record_metrics(MetricSet metrics, std::shared_ptr<MetricSampler> sampler = nullptr);
  /// Called with this recorder each time a context closes, after the
  /// machine has ended it (a CompileSession writes its files then). Empty
  /// for none; not to be changed while a context is open on another thread.
  void set_close_listener(std::function<void(const Recorder&)> listener) {
    close_listener_ = std::move(listener);
  }

 private:
  /// The calling thread, as owner_ holds it: distinct for every running
  /// thread, and never 0.
  static std::uintptr_t caller() noexcept {
#ifdef PASSTIMING_THREAD_POINTER
    // The thread's own control block, read from its register: a call into
    // the C library (pthread_self) costs a pass a cache line of code more.
    return reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
#else
    static thread_local const char tag = 0;
    return reinterpret_cast<std::uintptr_t>(&tag);
#endif
  }
  /// Whether the calling thread may drive the machine now; the first
  /// refusal is logged. Inline: every callback asks it.
  bool admits_caller() noexcept {
    const std::uintptr_t current = owner_.load(std::memory_order_relaxed);
    if (current == 0 || current == caller()) [[likely]]
      return true;
    refuse();
    return false;
  }
  bool claim() noexcept;
  bool release() noexcept;
  [[gnu::cold, gnu::noinline]] void refuse() noexcept;
  void context_closed() noexcept;

  Settings settings_;
  double threshold_ms_;
  std::shared_ptr<const Clock> clock_;
  /// Whether clock_ is the process's steady clock, which the pass callbacks
  /// then read without a virtual call (a cache line of code fewer a read).
  bool steady_;
  /// The caller() inside enter_pass_ctx..exit_pass_ctx, or 0. One machine
  /// times one PassContext on one thread at a time. Beside the clock: both
  /// are read at every callback.
  std::atomic<std::uintptr_t> owner_{0};
  /// Where its messages and the machine's go: timing_logger_name() of the
  /// settings' source.
  const Logger* logger_;
  TimingStateMachine machine_;
  std::string label_;
  std::atomic<bool> warned_foreign_{false};
  std::shared_ptr<MetricSampler> sampler_;
  ProfileMetrics metrics_;
  std::atomic<bool> in_context_{false};
  std::function<void(const Recorder&)> close_listener_;
};

}  // namespace passtiming
