#include "passtiming/host/pass_timing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_support.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"

namespace passtiming {
namespace {

using ::passtiming::testing::golden;
using ::passtiming::testing::LogCapture;
using ::passtiming::testing::named_pass;

constexpr Nanoseconds kS = 1'000'000'000;
constexpr Nanoseconds kMs = 1'000'000;

/// Runs `parent` containing `child` on a module with one function "matmul".
void run_nested(PassContext& ctx) {
  auto child = named_pass("child");
  auto parent = make_module_pass(
      [child](IRModule m, PassContext& c) { return (*child)(std::move(m), c); }, {"parent", 0, {}});
  auto scope = ctx.enter();
  IRModule mod({{"f", "matmul"}});
  (*parent)(std::move(mod));
}

TEST(PassTimingInstrumentTest, NestedSelfTimeThroughPassContext) {
  auto clock = std::make_shared<ManualClock>();
  // Reads: enter, before parent, before child, after child, after parent, exit.
  clock->script({0, 0, 1 * kS, 3 * kS, 5 * kS, 5 * kS});
  TileLangPassTimingInstrument timing(0.0, clock);
  PassContext ctx({.instruments = {timing.instrument()}});
  run_nested(ctx);
  EXPECT_EQ(timing.records(), (std::vector<PassTimingRecord>{{"parent", 5.0, 0, 3.0, 0, "matmul"},
                                                             {"child", 2.0, 1, 2.0, 1, "matmul"}}));
  EXPECT_DOUBLE_EQ(timing.total_duration_s(), 5.0);
  EXPECT_EQ(clock->reads(), 6u);
}

TEST(PassTimingInstrumentTest, ReportMatchesGolden) {
  auto clock = std::make_shared<ManualClock>();
  clock->script({0, 0, 1 * kS, 3 * kS, 5 * kS, 5 * kS});
  TileLangPassTimingInstrument timing(0.0, clock);
  PassContext ctx({.instruments = {timing.instrument()}});
  // The spec's example has no kernel on the parent: run it on an empty
  // module and the child on "matmul".
  auto child = named_pass("child");
  auto parent = make_module_pass(
      [child](IRModule, PassContext& c) { return (*child)(IRModule({{"f", "matmul"}}), c); },
      {"parent", 0, {}});
  {
    auto scope = ctx.enter();
    (*parent)(IRModule());
  }
  EXPECT_EQ(timing.report("stage=jit-lower, kernel=matmul"),
            golden("report/spec_example_context.txt"));
}

TEST(PassTimingInstrumentTest, PrintReportLogsAtInfoWithLeadingNewline) {
  LogCapture log;
  TileLangPassTimingInstrument timing;
  timing.print_report("ctx");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].level, LogLevel::info);
  EXPECT_EQ(log.entries[0].message, "\n[tilelang pass timing] No passes recorded. Context: ctx");
}

/// An instrument whose after-callback takes 7 ms of (scripted) time.
class SlowAfterInstrument : public PassInstrument {
 public:
  explicit SlowAfterInstrument(std::shared_ptr<ManualClock> clock) : clock_(std::move(clock)) {}
  void run_after_pass(const IRModule&, const PassInfo&) override { clock_->advance(7 * kMs); }

 private:
  std::shared_ptr<ManualClock> clock_;
};

TEST(BuildPassInstrumentsTest, TimingComesFirstSoLaterAfterCallbacksAreExcluded) {
  auto clock = std::make_shared<ManualClock>();
  auto slow = std::make_shared<SlowAfterInstrument>(clock);
  auto [instruments, timing] = build_pass_instruments({slow}, 0.0, clock);
  ASSERT_NE(timing, nullptr);
  ASSERT_EQ(instruments.size(), 2u);
  EXPECT_EQ(instruments[1], slow);
  PassContext ctx({.instruments = instruments});
  auto pass = make_module_pass(
      [clock](IRModule m, PassContext&) {
        clock->advance(2 * kMs);
        return m;
      },
      {"work", 0, {}});
  {
    auto scope = ctx.enter();
    (*pass)(IRModule());
    (*pass)(IRModule());
  }
  auto records = timing->records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_DOUBLE_EQ(records[0].duration_s, 0.002);  // not 0.009
  EXPECT_DOUBLE_EQ(records[1].duration_s, 0.002);
}

TEST(BuildPassInstrumentsTest, NoThresholdMeansNoTimingAndBaseUnchanged) {
  std::vector<std::string> journal;
  auto a = std::make_shared<PassInstrument>();
  auto b = std::make_shared<PassInstrument>();
  auto [instruments, timing] = build_pass_instruments({a, b}, std::nullopt);
  EXPECT_EQ(timing, nullptr);
  EXPECT_EQ(instruments, (std::vector<PassInstrumentPtr>{a, b}));
}

TEST(BuildPassInstrumentsTest, ThresholdIsPassedOn) {
  auto [instruments, timing] = build_pass_instruments({}, 10.0);
  ASSERT_NE(timing, nullptr);
  EXPECT_EQ(timing->threshold_ms(), 10.0);
  EXPECT_EQ(instruments.size(), 1u);
}

TEST(PassTimingInstrumentTest, ThresholdHidesFastPasses) {
  auto clock = std::make_shared<ManualClock>();
  TileLangPassTimingInstrument timing(10.0, clock);
  PassContext ctx({.instruments = {timing.instrument()}});
  auto slow = make_module_pass(
      [clock](IRModule m, PassContext&) {
        clock->advance(20 * kMs);
        return m;
      },
      {"slow", 0, {}});
  auto fast = make_module_pass(
      [clock](IRModule m, PassContext&) {
        clock->advance(5 * kMs);
        return m;
      },
      {"fast", 0, {}});
  {
    auto scope = ctx.enter();
    (*slow)(IRModule());
    (*fast)(IRModule());
  }
  const std::string report = timing.report();
  EXPECT_NE(report.find("  1  slow "), std::string::npos);
  EXPECT_EQ(report.find(" fast "), std::string::npos);
  EXPECT_NE(report.find("(1 passes skipped - under 10.0ms inclusive threshold)"),
            std::string::npos);
  EXPECT_NE(report.find("Total: 0.0250s (2 passes)"), std::string::npos);
}

TEST(PassTimingInstrumentTest, FailingPassLeavesNoFrameAndWarnsOnExit) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  TileLangPassTimingInstrument timing(0.0, clock);
  PassContext ctx({.instruments = {timing.instrument()}});
  auto boom = named_pass("boom", [] { throw std::runtime_error("lowering failed"); });
  auto pipeline = make_sequential({named_pass("ok"), boom}, "pipeline");
  EXPECT_THROW(
      {
        auto scope = ctx.enter();
        (*pipeline)(IRModule());
      },
      std::runtime_error);
  EXPECT_EQ(
      log.messages(LogLevel::warning),
      std::vector<std::string>{"Discarding 2 incomplete pass timing frame(s): pipeline, boom"});
  ASSERT_EQ(timing.records().size(), 1u);
  EXPECT_EQ(timing.records()[0].name, "ok");
}

TEST(PassTimingInstrumentTest, ReportGuardFiresDuringException) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  auto timing = std::make_shared<TileLangPassTimingInstrument>(0.0, clock);
  PassContext ctx({.instruments = {timing->instrument()}});
  auto boom = named_pass("boom", [] { throw std::runtime_error("codegen failed"); });
  bool caught = false;
  try {
    auto guard = report_pass_timing_on_exit(timing, "stage=codegen");
    auto scope = ctx.enter();
    (*named_pass("ok"))(IRModule());
    (*boom)(IRModule());
  } catch (const std::runtime_error& e) {
    caught = true;
    EXPECT_STREQ(e.what(), "codegen failed");  // the exception is not hidden
  }
  EXPECT_TRUE(caught) << "the pass's exception did not reach the caller";
  auto infos = log.messages(LogLevel::info);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0], "\n" + timing->report("stage=codegen"));
  EXPECT_NE(infos[0].find("Context: stage=codegen"), std::string::npos);
  EXPECT_NE(infos[0].find("  1  ok "), std::string::npos);
}

TEST(PassTimingInstrumentTest, ReportGuardWithNullTimingDoesNothing) {
  LogCapture log;
  {
    auto guard = report_pass_timing_on_exit(nullptr, "ctx");
  }
  EXPECT_TRUE(log.entries.empty());
}

/// Sees the events of an instrument whose wrapper is gone.
struct PassNames final : EventObserver {
  std::vector<std::string> seen;
  void on_event(const ObservedEvent& e) noexcept override {
    switch (e.kind) {
      case ObservedEvent::Kind::enter: seen.emplace_back("enter"); break;
      case ObservedEvent::Kind::before: seen.push_back("before " + std::string(e.pass)); break;
      case ObservedEvent::Kind::after: seen.push_back("after " + std::string(e.pass)); break;
      case ObservedEvent::Kind::skip: break;
      case ObservedEvent::Kind::exit: seen.emplace_back("exit"); break;
    }
  }
};

TEST(PassTimingInstrumentTest, WrapperDestroyedWhileInstrumentLives) {
  PassNames observer;
  PassInstrumentPtr instrument;
  {
    TileLangPassTimingInstrument timing;
    timing.recorder().set_observer(&observer);
    instrument = timing.instrument();
  }
  {
    PassContext ctx({.instruments = {instrument}});
    auto scope = ctx.enter();
    (*named_pass("still_fine"))(IRModule());  // callbacks use only their own state
  }
  EXPECT_EQ(observer.seen,
            (std::vector<std::string>{"enter", "before still_fine", "after still_fine", "exit"}));
}

TEST(PassTimingInstrumentTest, InstrumentDestroyedWhileWrapperLives) {
  TileLangPassTimingInstrument timing;
  {
    PassContext ctx({.instruments = {timing.instrument()}});
    auto scope = ctx.enter();
    (*named_pass("p"))(IRModule());
  }  // context and instrument are gone
  ASSERT_EQ(timing.records().size(), 1u);
  EXPECT_EQ(timing.records()[0].name, "p");
  EXPECT_NE(timing.report().find("  1  p "), std::string::npos);
}

TEST(PassTimingInstrumentTest, RecordsPersistAfterExitAndClearOnNextEnter) {
  TileLangPassTimingInstrument timing;
  PassContext first({.instruments = {timing.instrument()}});
  {
    auto scope = first.enter();
    (*named_pass("a"))(IRModule());
  }
  EXPECT_EQ(timing.records().size(), 1u);
  PassContext second({.instruments = {timing.instrument()}});
  auto scope = second.enter();
  EXPECT_TRUE(timing.records().empty());
}

TEST(PassTimingInstrumentTest, SkippedPassesAreCountedNotRecorded) {
  struct Veto : PassInstrument {
    bool should_run(const IRModule&, const PassInfo& info) override { return info.name != "no"; }
  };
  TileLangPassTimingInstrument timing;
  PassContext ctx({.instruments = {timing.instrument(), std::make_shared<Veto>()}});
  {
    auto scope = ctx.enter();
    (*named_pass("no"))(IRModule());
    (*named_pass("yes"))(IRModule());
  }
  EXPECT_EQ(timing.section().skipped, 1u);
  ASSERT_EQ(timing.records().size(), 1u);
  EXPECT_EQ(timing.records()[0].name, "yes");
}

/// Any threshold is taken as the seed takes it: a row is hidden when its
/// time is under the threshold, and the top 10 ranks the rows at or above it.
TEST(PassTimingInstrumentTest, ThresholdsOutsideTheUsualRangeBehaveAsTheSeeds) {
  auto report_with = [](double threshold_ms) {
    auto clock = std::make_shared<ManualClock>();
    TileLangPassTimingInstrument timing(threshold_ms, clock);
    std::shared_ptr<PassEventSink> events = timing.events();
    clock->script({0, 0, 2'000'000, 2'000'000});
    events->enter_pass_ctx();
    events->run_before_pass("p", "");
    events->run_after_pass("p");
    events->exit_pass_ctx();
    return timing.report();
  };
  const std::string negative = report_with(-1.0);
  EXPECT_NE(negative.find("  1  p "), std::string::npos) << negative;
  EXPECT_NE(negative.find("Top 1 Slowest"), std::string::npos) << negative;
  EXPECT_EQ(negative.find("threshold"), std::string::npos) << negative;

  const std::string nan = report_with(std::nan(""));
  EXPECT_NE(nan.find("  1  p "), std::string::npos) << nan;
  EXPECT_EQ(nan.find("Top"), std::string::npos) << nan;
  EXPECT_EQ(nan.find("skipped"), std::string::npos) << nan;

  const std::string infinite = report_with(std::numeric_limits<double>::infinity());
  EXPECT_EQ(infinite.find("  1  p "), std::string::npos) << infinite;
  EXPECT_NE(infinite.find("(inclusive threshold: infms)"), std::string::npos) << infinite;
  EXPECT_NE(infinite.find("(1 passes skipped - under infms inclusive threshold)"),
            std::string::npos)
      << infinite;
}

}  // namespace
}  // namespace passtiming
