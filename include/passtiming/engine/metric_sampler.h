#pragma once
/// \file
/// Where the metrics of metrics.h come from. A sampler is a parameter of the
/// state machine, as the clock is: the live sources use the system's, tests
/// inject exact values, and an event-log replay hands back the values the
/// log recorded.

#include <memory>
#include <string_view>

#include "passtiming/engine/logging.h"
#include "passtiming/engine/metrics.h"

namespace passtiming {

/// One reading at a pass's before- or after-callback. Fields the sampler
/// does not read stay kNotMeasured.
struct MetricSample {
  std::int64_t cpu_ns = kNotMeasured;          ///< the thread's CPU time so far
  std::int64_t rss_bytes = kNotMeasured;       ///< the process's resident set size
  std::int64_t rss_peak_bytes = kNotMeasured;  ///< the process's peak resident set size
  std::int64_t instructions = kNotMeasured;    ///< the thread's retired user instructions
  std::int64_t ir_size = kNotMeasured;         ///< the IR unit's size, from the source
  std::uint8_t ir_flags = 0;                   ///< IrFlags, from the source (after only)
  friend bool operator==(const MetricSample&, const MetricSample&) = default;
};

/// Reads the thread's and the process's figures (not the IR's: the source
/// counts those). Must not throw; called on the thread that runs the pass.
class MetricSampler {
 public:
  virtual ~MetricSampler() = default;
  /// Fills the fields of the metrics this sampler reads.
  virtual void read(MetricSample& sample) noexcept = 0;
};

/// The system's figures on Linux:
/// - cpu: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`;
/// - rss: `/proc/self/statm` (read with one `pread` of a descriptor opened
///   once) and the peak from `getrusage(RUSAGE_SELF)`;
/// - instructions: a per-thread `perf_event_open` counter of retired
///   user-space instructions, opened on a thread's first pass.
///
/// Construction tries each asked metric once; one the machine cannot give is
/// left out of `metrics().recorded` and listed in `metrics().unavailable`
/// with the system's reason. A thread whose own counter cannot be opened
/// later records kNotMeasured for its passes.
class SystemMetricSampler final : public MetricSampler {
 public:
  /// `asked` may include `ir`, which passes through to `metrics()` (the
  /// source measures it). `open_counter` replaces `perf_event_open` for
  /// tests: it returns a descriptor or -1 with errno set.
  using CounterOpener = int (*)();
  explicit SystemMetricSampler(MetricSet asked, CounterOpener open_counter = nullptr);
  ~SystemMetricSampler() override;
  SystemMetricSampler(const SystemMetricSampler&) = delete;
  SystemMetricSampler& operator=(const SystemMetricSampler&) = delete;

  /// What is recorded and what is unavailable, for the profile.
  const ProfileMetrics& metrics() const { return metrics_; }
  void read(MetricSample& sample) noexcept override;

  /// The retired-instructions counter of the calling thread, as the
  /// sampler opens it: a descriptor, or -1 with errno set.
  static int open_instruction_counter();

 private:
  ProfileMetrics metrics_;
  CounterOpener open_counter_;
  int statm_fd_ = -1;
  long page_bytes_ = 4096;
};

/// The process's system sampler for `metrics`, shared by every instrument
/// that asks for the same set. The first time a metric turns out to be
/// unavailable, that is logged once per process on the logger `logger` (the
/// source's: timing_logger_name()) as a warning: "passtiming: metric
/// 'instructions' is unavailable (perf_event_open: No such file or
/// directory); it is not recorded".
std::shared_ptr<SystemMetricSampler> shared_metric_sampler(
    MetricSet metrics, std::string_view logger = kTimingLoggerName);

/// A sampler that returns a given sample: exact values for tests, and the
/// recorded values for a replay (set before each event).
class ManualMetricSampler final : public MetricSampler {
 public:
  /// The sample the next reads return (its IR fields are ignored).
  void set(const MetricSample& sample) { next_ = sample; }
  void read(MetricSample& sample) noexcept override {
    sample.cpu_ns = next_.cpu_ns;
    sample.rss_bytes = next_.rss_bytes;
    sample.rss_peak_bytes = next_.rss_peak_bytes;
    sample.instructions = next_.instructions;
  }

 private:
  MetricSample next_;
};

}  // namespace passtiming
