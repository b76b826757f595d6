#pragma once
/// \file
/// The time source of every timing instrument. It is a parameter, never a
/// hidden global, so tests inject exact times and replays use recorded ones.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <time.h>
#endif

namespace passtiming {

/// Nanoseconds on a monotonic clock. Only differences carry meaning.
using Nanoseconds = std::int64_t;

/// A monotonic time source.
///
///     auto clock = passtiming::steady_clock();
///     Nanoseconds t0 = clock->now_ns();
///     Nanoseconds elapsed = clock->now_ns() - t0;
class Clock {
 public:
  virtual ~Clock() = default;
  /// Reads the clock. Must be monotonic and must not throw.
  virtual Nanoseconds now_ns() const noexcept = 0;
};

/// `std::chrono::steady_clock`, the default of every instrument.
class SteadyClock final : public Clock {
 public:
  /// The reading itself (CLOCK_MONOTONIC on Linux), for a source that knows
  /// its clock is this one and reads it without a virtual call (why: clock.cc).
  static Nanoseconds read() noexcept {
#if defined(__linux__)
    timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return Nanoseconds{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
#endif
  }
  Nanoseconds now_ns() const noexcept override { return read(); }
};

/// The process-wide steady clock, shared by every instrument that is not
/// handed another one.
std::shared_ptr<const Clock> steady_clock();

/// A clock for tests: each read returns the next scripted time, or the
/// current time when no script is left. Thread-safe.
///
///     auto clock = std::make_shared<passtiming::ManualClock>();
///     clock->script({0, 1'000'000'000});  // two reads: 0 s, then 1 s
///     clock->set(5'000'000'000);          // later reads: 5 s
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanoseconds start = 0) : now_(start) {}
  /// Sets the time returned once the script is used up.
  void set(Nanoseconds t);
  /// Moves the current time forward by `delta`.
  void advance(Nanoseconds delta);
  /// Queues the values returned by the next reads, in order.
  void script(std::vector<Nanoseconds> times);
  /// Convenience for tests written in seconds.
  void script_seconds(const std::vector<double>& seconds);
  /// Number of reads so far.
  std::size_t reads() const;
  Nanoseconds now_ns() const noexcept override;

 private:
  mutable std::mutex mutex_;
  mutable Nanoseconds now_;
  mutable std::vector<Nanoseconds> script_;
  mutable std::size_t next_ = 0;
  mutable std::size_t reads_ = 0;
};

}  // namespace passtiming
