#include "passtiming/engine/metric_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#if defined(__linux__)
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

#include "passtiming/engine/logging.h"

namespace passtiming {
namespace {

std::string system_reason(const char* call, int error) {
  return std::string(call) + ": " + std::strerror(error);
}

#if defined(__linux__)
/// The calling thread's counter: opened on its first read, closed when the
/// thread ends. -2: not tried yet; -1: the open failed.
struct ThreadCounter {
  int fd = -2;
  ~ThreadCounter() {
    if (fd >= 0) ::close(fd);
  }
};
thread_local ThreadCounter thread_counter;

/// Parses the second number of /proc/self/statm (resident pages).
std::int64_t resident_pages(const char* text, std::size_t size) {
  std::size_t i = 0;
  while (i < size && text[i] != ' ') ++i;  // total program size
  ++i;
  std::int64_t pages = 0;
  bool any = false;
  for (; i < size && text[i] >= '0' && text[i] <= '9'; ++i) {
    pages = pages * 10 + (text[i] - '0');
    any = true;
  }
  return any ? pages : kNotMeasured;
}
#endif

}  // namespace

int SystemMetricSampler::open_instruction_counter() {
#if defined(__linux__)
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  // User space only: what the compiler's code does, not the kernel's work
  // for it, and allowed at perf_event_paranoid 2.
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any cpu */,
                            -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
  return static_cast<int>(fd);
#else
  errno = ENOSYS;
  return -1;
#endif
}

SystemMetricSampler::SystemMetricSampler(MetricSet asked, CounterOpener open_counter)
    : open_counter_(open_counter != nullptr ? open_counter : &open_instruction_counter) {
  metrics_.recorded = asked;
#if defined(__linux__)
  if (asked.contains(Metric::cpu)) {
    timespec now;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) {
      metrics_.recorded.erase(Metric::cpu);
      metrics_.unavailable.push_back(
          {Metric::cpu, system_reason("clock_gettime(CLOCK_THREAD_CPUTIME_ID)", errno)});
    }
  }
  if (asked.contains(Metric::rss)) {
    statm_fd_ = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (statm_fd_ < 0) {
      metrics_.recorded.erase(Metric::rss);
      metrics_.unavailable.push_back({Metric::rss, system_reason("open /proc/self/statm", errno)});
    }
    page_bytes_ = ::sysconf(_SC_PAGESIZE);
  }
  if (asked.contains(Metric::instructions)) {
    // The constructing thread's counter decides for the process: a machine
    // without hardware counters (a virtual machine that hides them, or a
    // kernel without perf events) fails here, once, with its reason.
    if (thread_counter.fd == -2 || open_counter != nullptr) {
      if (thread_counter.fd >= 0) ::close(thread_counter.fd);
      thread_counter.fd = open_counter_();
    }
    if (thread_counter.fd < 0) {
      metrics_.recorded.erase(Metric::instructions);
      metrics_.unavailable.push_back(
          {Metric::instructions, system_reason("perf_event_open", errno)});
      thread_counter.fd = -2;
    }
  }
#else
  for (Metric m : {Metric::cpu, Metric::rss, Metric::instructions}) {
    if (asked.contains(m)) {
      metrics_.recorded.erase(m);
      metrics_.unavailable.push_back({m, "not supported on this system"});
    }
  }
#endif
}

SystemMetricSampler::~SystemMetricSampler() {
#if defined(__linux__)
  if (statm_fd_ >= 0) ::close(statm_fd_);
#endif
}

void SystemMetricSampler::read(MetricSample& sample) noexcept {
#if defined(__linux__)
  const MetricSet recorded = metrics_.recorded;
  if (recorded.contains(Metric::cpu)) {
    timespec now;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) {
      sample.cpu_ns = std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
    }
  }
  if (recorded.contains(Metric::rss)) {
    char text[128];
    const ssize_t n = ::pread(statm_fd_, text, sizeof text, 0);
    if (n > 0) {
      const std::int64_t pages = resident_pages(text, static_cast<std::size_t>(n));
      if (pages != kNotMeasured) sample.rss_bytes = pages * page_bytes_;
    }
    rusage usage;
    // ru_maxrss is in KiB on Linux.
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
      // The kernel updates the peak from counters it syncs lazily, so it can
      // trail the resident size just read; the peak is at least that.
      sample.rss_peak_bytes = std::max<std::int64_t>(usage.ru_maxrss * 1024, sample.rss_bytes);
    }
  }
  if (recorded.contains(Metric::instructions)) {
    if (thread_counter.fd == -2) thread_counter.fd = open_counter_();
    std::uint64_t count = 0;
    if (thread_counter.fd >= 0 &&
        ::read(thread_counter.fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count)) {
      sample.instructions = static_cast<std::int64_t>(count);
    }
  }
#else
  (void)sample;
#endif
}

std::shared_ptr<SystemMetricSampler> shared_metric_sampler(MetricSet metrics,
                                                           std::string_view logger) {
  static std::mutex mutex;
  static std::array<std::weak_ptr<SystemMetricSampler>, 16> samplers;
  static std::array<bool, 4> warned{};
  std::lock_guard lock(mutex);
  std::shared_ptr<SystemMetricSampler> sampler = samplers[metrics.bits() & 15].lock();
  if (sampler) return sampler;
  sampler = std::make_shared<SystemMetricSampler>(metrics);
  samplers[metrics.bits() & 15] = sampler;
  for (const UnavailableMetric& u : sampler->metrics().unavailable) {
    bool& done = warned[static_cast<std::size_t>(u.metric)];
    if (done) continue;
    done = true;
    get_logger(logger).warning(
        fmt::format("passtiming: metric '{}' is unavailable ({}); it is not recorded",
                    metric_name(u.metric), u.reason));
  }
  return sampler;
}

}  // namespace passtiming
