#include "passtiming/engine/clock.h"

// SteadyClock::read() is inline in the header and calls clock_gettime
// directly: that is the system call std::chrono::steady_clock makes
// (CLOCK_MONOTONIC, answered in user space by the vDSO), without the virtual
// call or the hop through libstdc++. On a compile of 300,000 passes that is
// as many fewer cold instruction-cache lines, which is why the LLVM adapter
// reads it this way when its clock is the steady one.

namespace passtiming {

std::shared_ptr<const Clock> steady_clock() {
  static const auto clock = std::make_shared<const SteadyClock>();
  return clock;
}

void ManualClock::set(Nanoseconds t) {
  std::lock_guard lock(mutex_);
  now_ = t;
}

void ManualClock::advance(Nanoseconds delta) {
  std::lock_guard lock(mutex_);
  now_ += delta;
}

void ManualClock::script(std::vector<Nanoseconds> times) {
  std::lock_guard lock(mutex_);
  script_.erase(script_.begin(), script_.begin() + static_cast<std::ptrdiff_t>(next_));
  next_ = 0;
  script_.insert(script_.end(), times.begin(), times.end());
}

void ManualClock::script_seconds(const std::vector<double>& seconds) {
  std::vector<Nanoseconds> times;
  times.reserve(seconds.size());
  for (double s : seconds)
    times.push_back(static_cast<Nanoseconds>(s * 1e9 + (s < 0 ? -0.5 : 0.5)));
  script(std::move(times));
}

std::size_t ManualClock::reads() const {
  std::lock_guard lock(mutex_);
  return reads_;
}

Nanoseconds ManualClock::now_ns() const noexcept {
  std::lock_guard lock(mutex_);
  ++reads_;
  if (next_ < script_.size()) now_ = script_[next_++];
  return now_;
}

}  // namespace passtiming
