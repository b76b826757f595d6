#pragma once
/// \file
/// Helpers shared by the core tests of every room: files, golden files, the
/// spec's example event log and a log capture. It reaches nothing above the
/// engine, so a test of any room may include it; the host's helpers (named
/// passes, a live compile session) are in host_support.h.

#include <fstream>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "passtiming/engine/logging.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The event log of the spec's first example (docs/event-log-format.md); its
/// report is golden("report/spec_example_context.txt").
inline constexpr const char* kSpecExampleEvents =
    R"({"ev":"meta","format":"passtiming-events","version":1,"tool":"passtiming 0.1"}
{"ev":"enter_ctx","t_ns":1000,"context":"stage=jit-lower, kernel=matmul"}
{"ev":"before","t_ns":1000,"pass":"parent"}
{"ev":"before","t_ns":1000001000,"pass":"child","kernel":"matmul"}
{"ev":"after","t_ns":3000001000,"pass":"child"}
{"ev":"after","t_ns":5000001000,"pass":"parent"}
{"ev":"exit_ctx","t_ns":5000002000}
)";

inline std::string golden(const std::string& name) {
  return read_file(std::string(PASSTIMING_GOLDEN_DIR) + "/" + name);
}

/// The set of `metrics`: `set_of({Metric::cpu, Metric::rss})`.
inline MetricSet set_of(std::initializer_list<Metric> metrics) {
  MetricSet set;
  for (Metric m : metrics) set.insert(m);
  return set;
}

/// The order of a clock's and a sampler's reads: one counter that both
/// step, and a letter per read ('W' for the clock, 'C' for the sampler).
struct ReadOrder {
  Nanoseconds tick = 0;
  std::string reads;
};

/// A clock that reads a ReadOrder: each read returns the next tick.
class TickClock final : public Clock {
 public:
  explicit TickClock(std::shared_ptr<ReadOrder> order) : order_(std::move(order)) {}
  Nanoseconds now_ns() const noexcept override {
    order_->reads += 'W';
    return ++order_->tick;
  }

 private:
  std::shared_ptr<ReadOrder> order_;
};

/// A CPU-time sampler that reads the same ReadOrder: a record's wall and
/// CPU figures then tell in which order the two were read.
class TickCpuSampler final : public MetricSampler {
 public:
  explicit TickCpuSampler(std::shared_ptr<ReadOrder> order) : order_(std::move(order)) {}
  void read(MetricSample& sample) noexcept override {
    order_->reads += 'C';
    sample.cpu_ns = ++order_->tick;
  }

 private:
  std::shared_ptr<ReadOrder> order_;
};

/// Hands an observer (an EventLogWriter) raw events one call each, as the
/// state machine does:
///
///     Events to{*log};
///     to.enter(0, "stage=lower");
///     to.before(10, "tl.Simplify", "matmul");
///     to.after(30, "tl.Simplify");
struct Events {
  EventObserver& observer;
  void enter(Nanoseconds t, std::string_view context) const {
    observer.on_event({.kind = ObservedEvent::Kind::enter, .t = t, .context = context});
  }
  void before(Nanoseconds t, std::string_view pass, std::string_view kernel = {},
              ThreadKey thread = 0) const {
    pass_event(ObservedEvent::Kind::before, t, pass, kernel, thread);
  }
  void after(Nanoseconds t, std::string_view pass, ThreadKey thread = 0) const {
    pass_event(ObservedEvent::Kind::after, t, pass, {}, thread);
  }
  void skip(Nanoseconds t, std::string_view pass, std::string_view kernel = {},
            ThreadKey thread = 0) const {
    pass_event(ObservedEvent::Kind::skip, t, pass, kernel, thread);
  }
  void exit(Nanoseconds t) const { observer.on_event({.kind = ObservedEvent::Kind::exit, .t = t}); }
  void pass_event(ObservedEvent::Kind kind, Nanoseconds t, std::string_view pass,
                  std::string_view kernel, ThreadKey thread) const {
    observer.on_event({.kind = kind, .t = t, .pass = pass, .kernel = kernel, .thread = thread});
  }
};

/// Captures what the `tilelang.pass_timing` logger (or another) receives for
/// the capture's lifetime.
class LogCapture {
 public:
  explicit LogCapture(std::string_view name = kTimingLoggerName) : logger_(get_logger(name)) {
    logger_.set_sink([this](LogLevel level, std::string_view, std::string_view message) {
      entries.push_back({level, std::string(message)});
    });
  }
  ~LogCapture() { logger_.set_sink({}); }

  struct Entry {
    LogLevel level;
    std::string message;
  };
  std::vector<Entry> entries;

  std::vector<std::string> messages(LogLevel level) const {
    std::vector<std::string> out;
    for (const auto& e : entries) {
      if (e.level == level) out.push_back(e.message);
    }
    return out;
  }

 private:
  Logger& logger_;
};

}  // namespace passtiming::testing
