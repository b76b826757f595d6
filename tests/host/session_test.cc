#include "passtiming/host/session.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "host_support.h"
#include "passtiming/host/pass.h"

namespace passtiming {
namespace {

using ::passtiming::testing::golden;
using ::passtiming::testing::LogCapture;
using ::passtiming::testing::named_pass;

constexpr Nanoseconds kS = 1'000'000'000;

void run_in(PassTimingTool& session, std::string label, const PassPtr& pass) {
  PassContext ctx({.instruments = session.instruments_for(std::move(label))});
  auto scope = ctx.enter();
  (*pass)(IRModule());
}

TEST(PassTimingToolTest, ReportsEverySectionOnceWhenItEnds) {
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  {
    PassTimingTool session(0.0, clock);
    // Section 1 is the spec's example; section 2 runs nothing.
    auto child = named_pass("child");
    auto parent = make_module_pass(
        [child](IRModule, PassContext& c) { return (*child)(IRModule({{"f", "matmul"}}), c); },
        {"parent", 0, {}});
    clock->script({0, 0, 1 * kS, 3 * kS, 5 * kS, 5 * kS});
    run_in(session, "stage=jit-lower, kernel=matmul", parent);
    PassContext empty({.instruments = session.instruments_for("stage=codegen")});
    {
      auto scope = empty.enter();
    }
    EXPECT_TRUE(log.entries.empty());
  }
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].level, LogLevel::info);
  EXPECT_EQ(log.entries[0].message,
            "\n" + golden("report/spec_example_context.txt") +
                "\n\n[tilelang pass timing] No passes recorded. Context: stage=codegen");
}

TEST(PassTimingToolTest, ReportsWhenTheSessionEndsByAnExceptionAndKeepsIt) {
  LogCapture log;
  try {
    PassTimingTool session;
    run_in(session, "stage=lower", named_pass("lower"));
    run_in(session, "stage=codegen",
           named_pass("codegen", [] { throw std::runtime_error("no target"); }));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no target");
  }
  auto infos = log.messages(LogLevel::info);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_NE(infos[0].find("Context: stage=lower"), std::string::npos);
  EXPECT_NE(infos[0].find("  1  lower "), std::string::npos);
  EXPECT_NE(infos[0].find("[tilelang pass timing] No passes recorded. Context: stage=codegen"),
            std::string::npos);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Discarding 1 incomplete pass timing frame(s): codegen"});
}

TEST(PassTimingToolTest, FinishReportsOnlyOnce) {
  LogCapture log;
  {
    PassTimingTool session;
    run_in(session, "a", named_pass("p"));
    session.finish();
    session.finish();
  }
  EXPECT_EQ(log.messages(LogLevel::info).size(), 1u);
}

TEST(PassTimingToolTest, ProfileHasOneLabelledSectionPerContext) {
  LogCapture log;
  PassTimingTool session;
  run_in(session, "one", named_pass("p"));
  run_in(session, "two", named_pass("q"));
  Profile profile = session.profile();
  ASSERT_EQ(profile.sections.size(), 2u);
  EXPECT_EQ(profile.sections[0].context, "one");
  EXPECT_EQ(profile.sections[1].context, "two");
  EXPECT_EQ(profile.sections[1].name_of(profile.sections[1].records[0]), "q");
  session.finish();
}

TEST(PassTimingToolTest, FromSettings) {
  EXPECT_EQ(PassTimingTool::from_settings({}, MapEnvironment()), nullptr);
  auto session = PassTimingTool::from_settings(
      {}, MapEnvironment(
              {{"TILELANG_PASS_PROFILE", "1"}, {"TILELANG_PASS_PROFILE_THRESHOLD_MS", "3"}}));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->threshold_ms(), 3.0);
  LogCapture log;
  session.reset();
  EXPECT_EQ(log.messages(LogLevel::info),
            std::vector<std::string>{"\n[tilelang pass timing] No passes recorded."});
}

}  // namespace
}  // namespace passtiming
