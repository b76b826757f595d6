// The phases of a compile: a session opens and closes them on each thread,
// nests sections in them, closes the ones a failure left open, and writes
// them into the JSON profile and the phase table beside the report. Every
// time comes from a ManualClock.

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "passtiming/engine/phase.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/recorder/compile_session.h"
#include "profile_fixtures.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::ScratchDir;

constexpr Nanoseconds kMs = 1'000'000;

Settings quiet() {
  Settings s;
  s.report = ReportTarget::off;
  return s;
}

TEST(PhasesTest, NestOnTheirThreadAndHoldTheSectionsMadeInThem) {
  auto clock = std::make_shared<ManualClock>(0);
  CompileSession session(quiet(), clock);
  const PhaseIndex compile = session.begin_phase("compile", "gemm");
  clock->set(1 * kMs);
  const PhaseIndex lower = session.begin_phase("lower");
  EXPECT_EQ(session.current_phase(), lower);
  auto section = session.new_section("kernel=gemm");
  clock->set(4 * kMs);
  session.end_phase(lower);
  const PhaseIndex build = session.begin_phase("nvcc", "gemm.cu");
  clock->set(9 * kMs);
  session.end_phase(build);
  clock->set(10 * kMs);
  session.end_phase(compile);
  EXPECT_EQ(session.current_phase(), kNoPhase);

  const Profile p = session.profile();
  ASSERT_EQ(p.phases.size(), 3u);
  EXPECT_EQ(p.phases[0].name, "compile");
  EXPECT_EQ(p.phases[0].detail, "gemm");
  EXPECT_EQ(p.phases[0].parent, kNoPhase);
  EXPECT_EQ(p.phases[0].duration_ns, 10 * kMs);
  EXPECT_EQ(p.phases[1].parent, 0u);
  EXPECT_EQ(p.phases[1].start_ns, 1 * kMs);
  EXPECT_EQ(p.phases[1].duration_ns, 3 * kMs);
  EXPECT_EQ(p.phases[2].parent, 0u);
  EXPECT_EQ(p.phases[2].duration_ns, 5 * kMs);
  EXPECT_GE(p.phases[2].cpu_ns, 0);  // ended on its own thread
  EXPECT_EQ(p.sections.at(0).phase, lower);
  EXPECT_EQ(check_phase_tree(p.phases), "");
  EXPECT_EQ(innermost_phase(p.phases, 0, 2 * kMs), 1u);
  EXPECT_EQ(innermost_phase(p.phases, 0, 6 * kMs), 2u);
  EXPECT_EQ(innermost_phase(p.phases, 0, 9 * kMs + 1), 0u);
  EXPECT_EQ(innermost_phase(p.phases, 1, 6 * kMs), kNoPhase);
  session.finish();
}

TEST(PhasesTest, EachThreadKeepsItsOwnTree) {
  auto clock = std::make_shared<ManualClock>(0);
  CompileSession session(quiet(), clock);
  const PhaseIndex main_root = session.begin_phase("compile", "a");
  PhaseIndex other_root = kNoPhase, other_child = kNoPhase;
  std::thread([&] {
    other_root = session.begin_phase("compile", "b");
    other_child = session.begin_phase("codegen");
    session.end_phase(other_child);
    session.end_phase(other_root);
  }).join();
  const PhaseIndex main_child = session.begin_phase("codegen");
  session.end_phase(main_child);
  session.end_phase(main_root);
  const Profile p = session.profile();
  EXPECT_EQ(p.phases[other_root].parent, kNoPhase);
  EXPECT_EQ(p.phases[other_child].parent, other_root);
  EXPECT_EQ(p.phases[main_child].parent, main_root);
  EXPECT_NE(p.phases[main_root].thread, p.phases[other_root].thread);
}

TEST(PhasesTest, AFailureClosesWhatItLeftOpenAndFinishNamesIt) {
  auto clock = std::make_shared<ManualClock>(0);
  ScratchDir dir;
  Settings s = quiet();
  s.profile = OutputPath{dir.file("p.json"), "PASSTIMING_PROFILE"};
  CompileSession session(s, clock);
  const PhaseIndex compile = session.begin_phase("compile");
  const PhaseIndex build = session.begin_phase("build");
  session.begin_phase("nvcc");
  clock->set(7 * kMs);
  // The build failed: the nvcc phase still open inside it fails with it.
  session.end_phase(build, /*failed=*/true);
  clock->set(8 * kMs);
  session.begin_phase("wrapper");  // never ended: the compile stopped in it
  clock->set(9 * kMs);
  EXPECT_TRUE(session.finish());
  const Profile p = load_profile(dir.file("p.json"));
  ASSERT_EQ(p.phases.size(), 4u);
  EXPECT_TRUE(p.phases[build].failed());
  EXPECT_TRUE(p.phases[2].failed());
  EXPECT_EQ(p.phases[2].duration_ns, 7 * kMs);
  EXPECT_TRUE(p.phases[3].failed());
  EXPECT_EQ(p.phases[3].duration_ns, 1 * kMs);
  EXPECT_TRUE(p.phases[compile].failed());
  EXPECT_EQ(p.phases[compile].duration_ns, 9 * kMs);
}

TEST(PhasesTest, TheProfileKeepsThemByteForByte) {
  Profile p;
  p.metadata.tool = "passtiming 0.1.0";
  p.phases.push_back({.name = "compile",
                      .detail = "lvm.c -> lvm.o",
                      .thread = 7,
                      .start_ns = 0,
                      .duration_ns = 100,
                      .cpu_ns = 90});
  p.phases.push_back({.name = "front end",
                      .parent = 0,
                      .thread = 7,
                      .start_ns = 5,
                      .duration_ns = 20,
                      .flags = kPhaseFailed});
  Section& s = p.sections.emplace_back();
  s.context = "lvm.c";
  s.phase = 1;
  const std::string json = profile_to_json(p);
  EXPECT_NE(json.find("\"version\":3,"), std::string::npos);
  EXPECT_NE(json.find("\"phases\":[{\"name\":\"compile\",\"detail\":\"lvm.c -> lvm.o\","
                      "\"parent\":null,\"thread\":7,\"start_ns\":0,\"duration_ns\":100,"
                      "\"cpu_ns\":90},{\"name\":\"front end\",\"parent\":0,\"thread\":7,"
                      "\"start_ns\":5,\"duration_ns\":20,\"failed\":true}],\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"context\":\"lvm.c\",\"phase\":1,"), std::string::npos);
  const Profile back = parse_profile_json(json, "p.json");
  EXPECT_EQ(back.phases, p.phases);
  EXPECT_EQ(back.sections.at(0).phase, 1u);
  EXPECT_EQ(profile_to_json(back), json);
}

TEST(PhasesTest, AProfileWhosePhasesAreNoTreeIsRefusedByName) {
  const std::string head = "{\"format\":\"passtiming-profile\",\"version\":3,\n\"phases\":[";
  auto error = [&](const std::string& phases, const std::string& sections = "") {
    try {
      parse_profile_json(head + phases + "],\n\"sections\":[" + sections + "]}", "x.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{\"name\":\"a\",\"parent\":0,\"start_ns\":0,\"duration_ns\":1}"),
            "x.json:2: phase 0 ('a') has parent 0, which is not an earlier phase");
  EXPECT_EQ(error("{\"name\":\"a\",\"start_ns\":0,\"duration_ns\":5},"
                  "{\"name\":\"b\",\"parent\":0,\"start_ns\":3,\"duration_ns\":5}"),
            "x.json:2: phase 1 ('b') does not lie within its parent 0 ('a')");
  EXPECT_EQ(error("{\"name\":\"a\",\"start_ns\":0}"),
            "x.json:2: phase without field 'duration_ns'");
  EXPECT_NE(error("", "{\"context\":\"\",\"phase\":2,\"records\":[]}")
                .find("section 0 is in phase 2 but the profile has 0 phase(s)"),
            std::string::npos);
}

TEST(PhasesTest, TheTableGroupsSiblingsAndShowsWhatNoPhaseCovers) {
  std::vector<Phase> phases;
  phases.push_back({.name = "compile", .detail = "lvm.c", .start_ns = 0, .duration_ns = 1000});
  phases.push_back({.name = "front end", .parent = 0, .start_ns = 0, .duration_ns = 300});
  for (int i = 0; i < 3; ++i) {
    phases.push_back(
        {.name = "parse declaration", .parent = 1, .start_ns = 100 * i, .duration_ns = 100});
  }
  phases.push_back({.name = "back end",
                    .parent = 0,
                    .start_ns = 300,
                    .duration_ns = 650,
                    .flags = kPhaseFailed});
  Profile p;
  p.phases = phases;
  EXPECT_EQ(render_phase_table(p.phases),
            "Phases\n"
            "Phase                                              Time (s)   Share  Count\n"
            "compile  lvm.c                                       0.0000  100.0%      1\n"
            "  front end                                          0.0000   30.0%      1\n"
            "    parse declaration                                0.0000   30.0%      3\n"
            "  back end  [failed]                                 0.0000   65.0%      1\n"
            "  (untimed)                                          0.0000    5.0%       \n");
  const std::vector<PhaseRow> rows = phase_table(phases);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[2].count, 3u);
  EXPECT_EQ(rows[2].duration_ns, 300);
  EXPECT_TRUE(rows[4].untimed);
  EXPECT_EQ(rows[4].duration_ns, 50);
  EXPECT_EQ(render_phase_table({}), "");
}

}  // namespace
}  // namespace passtiming
