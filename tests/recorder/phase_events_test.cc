// A session streams its phases into its event log as they open and close,
// and the replay of that log makes the session's phases again. Every time
// from a ManualClock.

#include <gtest/gtest.h>

#include <fstream>

#include "passtiming/formats/event_log.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/recorder/compile_session.h"
#include "profile_fixtures.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::ScratchDir;

constexpr Nanoseconds kMs = 1'000'000;

TEST(PhaseEventsSessionTest, TheLogOfASessionReplaysToItsPhases) {
  ScratchDir dir;
  Settings settings;
  settings.report = ReportTarget::off;
  settings.events = OutputPath{dir.file("e.jsonl"), "PASSTIMING_EVENTS"};
  auto clock = std::make_shared<ManualClock>(0);
  Profile recorded;
  {
    CompileSession session(settings, clock);
    const PhaseIndex compile = session.begin_phase("compile", "a.c");
    clock->set(1 * kMs);
    const PhaseIndex back = session.begin_phase("back end");
    auto section = session.new_section("a.c");
    section->enter_pass_ctx();
    section->run_before_pass("ISel", "");
    clock->set(2 * kMs);
    section->run_after_pass("ISel");
    section->exit_pass_ctx();
    clock->set(3 * kMs);
    session.begin_phase("function", "main");  // left open: ends, failed, with the back end
    clock->set(4 * kMs);
    session.end_phase(back);
    Phase imported{"parse", "", compile, 0, 0, kMs, -1, 0};
    session.add_phase(imported);
    clock->set(5 * kMs);
    session.end_phase(compile);
    recorded = session.profile();
    session.finish();
  }
  std::ifstream in(dir.file("e.jsonl"));
  const Profile replayed = replay_event_log(in, "e.jsonl");
  ASSERT_EQ(recorded.phases.size(), 4u);
  EXPECT_TRUE(recorded.phases[2].failed());
  // Thread and CPU time as recorded, every phase in the same place.
  EXPECT_EQ(replayed.phases, recorded.phases);
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.sections[0].phase, 1u);
  EXPECT_EQ(replayed.sections[0].records.at(0).inclusive_ns, 1 * kMs);
}

TEST(PhaseEventsSessionTest, PhasesOpenAtFinishAreEndedInTheLogAsInTheProfile) {
  ScratchDir dir;
  Settings settings;
  settings.report = ReportTarget::off;
  settings.events = OutputPath{dir.file("e.jsonl"), "PASSTIMING_EVENTS"};
  settings.profile = OutputPath{dir.file("p.json"), "PASSTIMING_PROFILE"};
  auto clock = std::make_shared<ManualClock>(0);
  {
    CompileSession session(settings, clock);
    session.begin_phase("compile", "a.c");
    clock->set(1 * kMs);
    session.begin_phase("nvcc");
    clock->set(3 * kMs);
    session.finish();  // the compile stopped in nvcc
  }
  const std::string log = testing::read_file(dir.file("e.jsonl"));
  EXPECT_NE(log.find("{\"ev\":\"phase_end\",\"t_ns\":3000000,\"phase\":1,"), std::string::npos)
      << log;
  std::ifstream in(dir.file("e.jsonl"));
  const Profile replayed = replay_event_log(in, "e.jsonl");
  const Profile written = load_profile(dir.file("p.json"));
  ASSERT_EQ(written.phases.size(), 2u);
  EXPECT_TRUE(written.phases[0].failed());
  EXPECT_TRUE(written.phases[1].failed());
  EXPECT_EQ(written.phases[1].duration_ns, 2 * kMs);
  EXPECT_EQ(replayed.phases, written.phases);
}

}  // namespace
}  // namespace passtiming
