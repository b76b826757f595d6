/// Random callback sequences through a PassContext into the timing
/// instrument: passes and instruments that throw, vetoed passes, unmatched
/// and repeated after-callbacks, enter/exit misuse. The instrument's raw
/// events also drive a second state machine, which must agree with it; after
/// every exit the invariants of fuzz_check.h must hold.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "passtiming/engine/clock.h"
#include "passtiming/engine/logging.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/host/ir_module.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_timing.h"

namespace passtiming::fuzz {
namespace {

/// Reads the input byte by byte; zeros once it runs out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

constexpr std::string_view kNames[] = {"tl.Simplify",         "tl.LowerTileOp", "",
                                       "a\x1b[31mred\x1b[0m", "quote\"\\back",  "\xff\xfe",
                                       "</script>",           "tl.Simplify"};
constexpr std::size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

/// Which callbacks of the hostile instrument throw, and whether it vetoes.
enum Faults : std::uint8_t {
  kThrowEnter = 1,
  kThrowExit = 2,
  kThrowBefore = 4,
  kThrowAfter = 8,
  kVeto = 16,
  kPassThrows = 32,
};

class HostileInstrument final : public PassInstrument {
 public:
  std::uint8_t faults = 0;
  void enter_pass_ctx() override { maybe_throw(kThrowEnter); }
  void exit_pass_ctx() override { maybe_throw(kThrowExit); }
  bool should_run(const IRModule&, const PassInfo&) override { return (faults & kVeto) == 0; }
  void run_before_pass(const IRModule&, const PassInfo&) override { maybe_throw(kThrowBefore); }
  void run_after_pass(const IRModule&, const PassInfo&) override { maybe_throw(kThrowAfter); }

 private:
  void maybe_throw(std::uint8_t fault) const {
    if (faults & fault) throw std::runtime_error("instrument fault");
  }
};

/// Replays the instrument's raw events into a second state machine.
class ShadowObserver final : public EventObserver {
 public:
  TimingStateMachine machine;
  void on_event(const ObservedEvent& e) noexcept override {
    switch (e.kind) {
      case ObservedEvent::Kind::enter: machine.enter(e.t, e.context); break;
      case ObservedEvent::Kind::before: machine.begin(e.t, {e.pass, e.kernel, e.thread}); break;
      case ObservedEvent::Kind::after: machine.end(e.t, {e.pass, e.thread}); break;
      case ObservedEvent::Kind::skip: machine.skip(e.t, e.pass, e.kernel, e.thread); break;
      case ObservedEvent::Kind::exit: machine.exit(e.t); break;
    }
  }
};

void check_same(const Section& live, const Section& shadow) {
  check(live.records.size() == shadow.records.size(), "shadow record count differs");
  check(live.skipped == shadow.skipped, "shadow skip count differs");
  for (std::size_t i = 0; i < live.records.size(); ++i) {
    const Record& a = live.records[i];
    const Record& b = shadow.records[i];
    check(a.sequence == b.sequence && a.depth == b.depth && a.inclusive_ns == b.inclusive_ns &&
              a.self_ns == b.self_ns && live.name_of(a) == shadow.name_of(b),
          "shadow record differs");
  }
}

struct Harness {
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(1000);
  TileLangPassTimingInstrument timing{0.0, clock};
  std::shared_ptr<HostileInstrument> hostile = std::make_shared<HostileInstrument>();
  ShadowObserver shadow;
  std::unique_ptr<PassContext> context;
  IRModule module;
  Nanoseconds entered_at = -1;

  Harness() {
    timing.recorder().set_observer(&shadow);
    timing.recorder().set_context_label("stage=fuzz");
    fresh_context();
  }

  /// TVM clears a context's instruments on exit: a new one for the next use.
  void fresh_context() {
    context = std::make_unique<PassContext>(
        PassContextOptions{.instruments = {timing.instrument(), hostile}});
  }

  void enter() {
    try {
      context->instrument_enter_pass_ctx();
      entered_at = clock->now_ns();
    } catch (const std::runtime_error&) {
      fresh_context();
    }
  }

  void exit(bool render = false) {
    try {
      context->instrument_exit_pass_ctx();
    } catch (const std::runtime_error&) {
    }
    check(shadow.machine.running_passes().empty(), "passes still running after exit");
    verify(render);
    fresh_context();
  }

  /// Checks the invariants; the report is rendered only at the input's last
  /// exit, which keeps the harness fast enough for millions of executions.
  void verify(bool render = false) {
    const Nanoseconds elapsed = entered_at >= 0 ? clock->now_ns() - entered_at : -1;
    check_section(timing.section(), elapsed, render);
    check_same(timing.section(), shadow.machine.section());
  }

  void before(std::string_view name) {
    try {
      context->instrument_before_pass(module, PassInfo{.name = std::string(name)});
    } catch (const std::runtime_error&) {
    }
  }
  void after(std::string_view name) {
    try {
      context->instrument_after_pass(module, PassInfo{.name = std::string(name)});
    } catch (const std::runtime_error&) {
    }
  }

  /// A real pipeline: a Sequential of two passes, the second of which calls
  /// a nested pass; any of them may throw.
  void run_pipeline(std::uint8_t shape) {
    auto leaf = make_module_pass(
        [this, shape](IRModule m, PassContext&) {
          clock->advance(shape);
          if (hostile->faults & kPassThrows) throw std::runtime_error("pass fault");
          return m;
        },
        {.name = std::string(kNames[shape % kNameCount])});
    auto outer = make_module_pass(
        [this, leaf](IRModule m, PassContext& ctx) {
          clock->advance(7);
          return (*leaf)(std::move(m), ctx);
        },
        {.name = "tl.Outer"});
    auto pipeline = make_sequential({leaf, outer}, "tl.fuzz");
    try {
      auto scope = context->enter();
      module = (*pipeline)(module, *context);
      scope.exit();
    } catch (const std::runtime_error&) {
    }
    verify();
    fresh_context();
  }
};

}  // namespace
}  // namespace passtiming::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Warnings about unmatched callbacks are expected by the thousand.
  passtiming::get_logger(passtiming::kTimingLoggerName)
      .set_sink([](passtiming::LogLevel, std::string_view, std::string_view) {});
  passtiming::get_logger("passtiming")
      .set_sink([](passtiming::LogLevel, std::string_view, std::string_view) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace passtiming::fuzz;
  Bytes in(data, size);
  Harness h;
  while (!in.empty()) {
    switch (in.next() % 9) {
      case 0: h.enter(); break;
      case 1: h.before(kNames[in.next() % kNameCount]); break;
      case 2: h.after(kNames[in.next() % kNameCount]); break;
      case 3: h.exit(); break;
      case 4: h.clock->advance(in.next() * 1000); break;
      case 5: h.hostile->faults = in.next(); break;
      case 6: h.run_pipeline(in.next()); break;
      case 7:
        if (in.next() & 1) {
          h.module.clear();
        } else {
          h.module.add_function({"main", std::string(kNames[in.next() % kNameCount])});
        }
        break;
      case 8: h.verify(); break;
    }
  }
  h.exit(/*render=*/true);
  return 0;
}
