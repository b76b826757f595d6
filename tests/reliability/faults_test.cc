/// Faults around the profiler: a pass that throws, instruments that throw,
/// a log sink that throws, outputs that cannot be written. The profiler
/// never crashes its host, never hides the host's own error and never loses
/// what it recorded.

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "host_support.h"
#include "passtiming/engine/clock.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/host/session.h"

namespace passtiming {
namespace {

using testing::LogCapture;
using testing::named_pass;

struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An instrument that throws from the callback named by `where`.
class ThrowingInstrument final : public PassInstrument {
 public:
  explicit ThrowingInstrument(std::string where) : where_(std::move(where)) {}
  void enter_pass_ctx() override { maybe("enter"); }
  void exit_pass_ctx() override { maybe("exit"); }
  void run_before_pass(const IRModule&, const PassInfo& info) override {
    if (info.name == "b") maybe("before");
  }
  void run_after_pass(const IRModule&, const PassInfo& info) override {
    if (info.name == "b") maybe("after");
  }

 private:
  void maybe(const char* where) const {
    if (where_ == where) throw CompileError(std::string("instrument failed in ") + where);
  }
  std::string where_;
};

/// a (1 ms), b (2 ms) and c (4 ms) on a manual clock, in `instruments`.
IRModule run_abc(PassContext& ctx, ManualClock& clock, bool b_throws = false) {
  auto a = named_pass("a", [&] { clock.advance(1'000'000); });
  auto b = named_pass("b", [&] {
    clock.advance(2'000'000);
    if (b_throws) throw CompileError("b: the host compiler's own error");
  });
  auto c = named_pass("c", [&] { clock.advance(4'000'000); });
  auto pipeline = make_sequential({a, b, c}, "pipeline");
  auto scope = ctx.enter();
  return (*pipeline)(IRModule{}, ctx);
}

TEST(Faults, APassThatThrowsKeepsItsErrorAndTheCompletedPasses) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  TileLangPassTimingInstrument timing(0.0, clock);
  PassContext ctx({.instruments = {timing.instrument()}});
  EXPECT_THROW(
      {
        try {
          run_abc(ctx, *clock, /*b_throws=*/true);
        } catch (const CompileError& e) {
          EXPECT_STREQ(e.what(), "b: the host compiler's own error");
          throw;
        }
      },
      CompileError);
  const auto records = timing.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].name, "a");
  EXPECT_DOUBLE_EQ(records[0].duration_s, 0.001);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Discarding 2 incomplete pass timing frame(s): pipeline, b"});
}

/// TVM's rules: an instrument that throws from run_before_pass or
/// run_after_pass fails the compile with its exception; the timing
/// instrument, which comes first, keeps what completed.
class ThrowingCallback : public ::testing::TestWithParam<const char*> {};

TEST_P(ThrowingCallback, PropagatesAndTheTimingKeepsWhatCompleted) {
  LogCapture log;
  LogCapture host_log("passtiming");
  auto clock = std::make_shared<ManualClock>();
  TileLangPassTimingInstrument timing(0.0, clock);
  PassContext ctx(
      {.instruments = {timing.instrument(), std::make_shared<ThrowingInstrument>(GetParam())}});
  const std::string where = GetParam();
  try {
    run_abc(ctx, *clock);
    // Leaving a scope by its destructor never throws: the failure is logged.
    EXPECT_EQ(where, "exit");
    ASSERT_EQ(host_log.messages(LogLevel::error).size(), 1u);
    EXPECT_NE(host_log.messages(LogLevel::error)[0].find("instrument failed in exit"),
              std::string::npos);
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "instrument failed in " + where);
  }
  const auto records = timing.records();
  if (where == "enter") {
    EXPECT_TRUE(records.empty());  // the context never started
  } else if (where == "before" || where == "after") {
    ASSERT_GE(records.size(), 1u);
    EXPECT_EQ(records[0].name, "a");
    // After the after-callbacks of b ran (timing first), b is complete too.
    EXPECT_EQ(records.size(), where == "after" ? 2u : 1u);
  } else {
    // exit: the whole pipeline completed and nothing was lost.
    EXPECT_EQ(records.size(), 4u);
  }
}

INSTANTIATE_TEST_SUITE_P(Faults, ThrowingCallback,
                         ::testing::Values("enter", "before", "after", "exit"));

TEST(Faults, ALogSinkThatThrowsNeverReachesTheHost) {
  auto& logger = get_logger(kTimingLoggerName);
  logger.set_sink([](LogLevel, std::string_view, std::string_view) {
    throw std::runtime_error("sink failed");
  });
  ::testing::internal::CaptureStderr();
  {
    auto clock = std::make_shared<ManualClock>();
    PassTimingTool session(0.0, clock, Settings{});
    PassContext ctx({.instruments = session.instruments_for("stage=lower")});
    EXPECT_NO_THROW(run_abc(ctx, *clock));
    // An unmatched callback warns through the throwing sink.
    EXPECT_NO_THROW(ctx.instrument_after_pass(IRModule{}, PassInfo{"ghost", 0, {}}));
    EXPECT_NO_THROW(session.finish());
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  logger.set_sink({});
  // The report is not lost: it goes to stderr after the sink's failure.
  EXPECT_NE(err.find("ERROR:tilelang.pass_timing:log sink threw; message follows"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("TileLang Pass Timing Report"), std::string::npos) << err;
}

/// A profile that cannot be written is logged naming the path; the compile
/// goes on and its own exception still propagates.
class UnwritableProfile : public ::testing::TestWithParam<std::string> {};

TEST_P(UnwritableProfile, IsLoggedNamingThePathAndNeverHidesTheCompileError) {
  const std::string path = GetParam();
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  try {
    PassTimingTool session(0.0, clock, testing::output_settings(path));
    PassContext ctx({.instruments = session.instruments_for("stage=lower")});
    run_abc(ctx, *clock, /*b_throws=*/true);
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "b: the host compiler's own error");
  }
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("PASSTIMING_PROFILE: " + path), std::string::npos) << errors[0];
}

INSTANTIATE_TEST_SUITE_P(Faults, UnwritableProfile,
                         ::testing::Values("/dev/full", "/nonexistent-dir/profile.json",
                                           "/proc/version"));

TEST(Faults, AProfileWrittenToADeviceLeavesTheDeviceInPlace) {
  // Renaming a temporary file over /dev/null would replace the device node.
  auto clock = std::make_shared<ManualClock>();
  Profile profile;
  ASSERT_NO_THROW(write_profile_file(profile, "/dev/null"));
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  EXPECT_THROW(write_profile_file(profile, "/dev/full"), std::runtime_error);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

TEST(Faults, AnEventLogThatCannotBeCreatedIsLoggedAndTheCompileGoesOn) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  {
    PassTimingTool session(0.0, clock,
                           testing::output_settings("", "/nonexistent-dir/events.jsonl"));
    PassContext ctx({.instruments = session.instruments_for("stage=lower")});
    EXPECT_NO_THROW(run_abc(ctx, *clock));
    EXPECT_EQ(session.profile().sections[0].records.size(), 4u);
  }
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("/nonexistent-dir/events.jsonl"), std::string::npos) << errors[0];
}

TEST(Faults, AnEventLogOnAFullDeviceIsLoggedAndTheCompileGoesOn) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  {
    PassTimingTool session(0.0, clock, testing::output_settings("", "/dev/full"));
    PassContext ctx({.instruments = session.instruments_for("stage=lower")});
    EXPECT_NO_THROW(run_abc(ctx, *clock));
    EXPECT_EQ(session.profile().sections[0].records.size(), 4u);
  }
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  const auto errors = log.messages(LogLevel::error);
  ASSERT_GE(errors.size(), 1u);
  EXPECT_NE(errors.back().find("/dev/full"), std::string::npos) << errors.back();
}

}  // namespace
}  // namespace passtiming
