// Phases through the command line: report prints the phase table after the
// passes' report, summary adds phases up by path, diff compares them, merge
// keeps each input's tree. Exact text; phased_profile() is the compile.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "phase_fixtures.h"

namespace passtiming {
namespace {

using testing::kSecond;
using testing::phased_profile;
using testing::run_tool;
using testing::ScratchDir;
using Json = nlohmann::json;

/// phased_profile() with its phases' times scaled by `factor` (the passes'
/// unchanged).
Profile scaled_phases(double factor) {
  Profile p = phased_profile();
  for (Phase& phase : p.phases) {
    phase.start_ns = static_cast<Nanoseconds>(phase.start_ns * factor);
    phase.duration_ns = static_cast<Nanoseconds>(phase.duration_ns * factor);
  }
  return p;
}

TEST(CliPhasesTest, ReportPrintsThePhaseTableAfterTheUnchangedReport) {
  ScratchDir dir;
  write_profile_file(phased_profile(), dir.file("p.json"));
  write_profile_file(testing::sample_session_profile(), dir.file("old.json"));
  const auto old = run_tool({"report", dir.file("old.json")});
  ASSERT_EQ(old.status, 0) << old.err;
  const auto r = run_tool({"report", dir.file("p.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  // The seed's report, byte for byte, then an empty line and the table.
  EXPECT_EQ(r.out,
            old.out + "\n" +
                "Phases\n"
                "Phase                                              Time (s)   Share  Count\n"
                "compile  matmul.py                                  12.0000  100.0%      1\n"
                "  lower                                              6.0000   50.0%      1\n"
                "  codegen                                            1.0000    8.3%      1\n"
                "  nvcc  kernel.cu  [failed]                          0.5000    4.2%      1\n"
                "  (untimed)                                          4.5000   37.5%       \n");
  EXPECT_EQ(r.out, old.out + "\n" + render_phase_table(phased_profile().phases));
}

TEST(CliPhasesTest, SummaryAddsPhasesUpByPath) {
  ScratchDir dir;
  write_profile_file(phased_profile(), dir.file("a.json"));
  write_profile_file(scaled_phases(2), dir.file("b.json"));
  write_profile_file(testing::sample_session_profile(), dir.file("old.json"));
  const auto old = run_tool({"summary", dir.file("old.json")});
  const auto r =
      run_tool({"summary", dir.file("a.json"), dir.file("b.json"), dir.file("old.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t phases = r.out.find("Phases (");
  ASSERT_NE(phases, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(phases),
            "Phases (2 of 3 profiles recorded phases)\n"
            "Phase                                              Time (s)   Share  Count\n"
            "compile                                             36.0000  100.0%      2\n"
            "compile/lower                                       18.0000   50.0%      2\n"
            "compile/codegen                                      3.0000    8.3%      2\n"
            "compile/nvcc  [failed]                               1.5000    4.2%      2\n"
            "compile/(untimed)                                   13.5000   37.5%       \n");
  // Without phases, the summary is what it was.
  EXPECT_EQ(old.out.find("Phases"), std::string::npos);

  const auto json =
      run_tool({"summary", "--format", "json", dir.file("a.json"), dir.file("b.json")});
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j.at("phases").at("profiles_with_phases"), 2);
  EXPECT_EQ(j.at("phases").at("root_ns"), 36 * kSecond);
  const Json& rows = j.at("phases").at("rows");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[3].dump(),
            "{\"count\":2,\"depth\":1,\"failed\":true,\"path\":\"compile/nvcc\",\"share\":"
            "0.041666666666666664,\"total_ns\":1500000000}");
  EXPECT_EQ(rows[4].dump(),
            "{\"count\":0,\"depth\":1,\"path\":\"compile/(untimed)\",\"share\":0.375,\"total_ns\":"
            "13500000000,\"untimed\":true}");
  const auto old_json = run_tool({"summary", "--format", "json", dir.file("old.json")});
  EXPECT_FALSE(Json::parse(old_json.out).contains("phases"));
}

TEST(CliPhasesTest, ALongPathWidensTheSummarysColumnRatherThanShiftingTheNumbers) {
  ScratchDir dir;
  Profile p = phased_profile();
  p.phases[1].name = "parse declaration with a name long enough to pass the column";
  write_profile_file(p, dir.file("a.json"));
  const auto r = run_tool({"summary", dir.file("a.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string table = r.out.substr(r.out.find("Phases ("));
  // The column is as wide as the longest path (68 characters), and every
  // row's numbers stay in line.
  EXPECT_EQ(table,
            "Phases (1 of 1 profiles recorded phases)\n"
            "Phase" +
                std::string(63, ' ') +
                "   Time (s)   Share  Count\n"
                "compile" +
                std::string(61, ' ') +
                "    12.0000  100.0%      1\n"
                "compile/parse declaration with a name long enough to pass the column"
                "     6.0000   50.0%      1\n"
                "compile/codegen" +
                std::string(53, ' ') +
                "     1.0000    8.3%      1\n"
                "compile/nvcc  [failed]" +
                std::string(46, ' ') +
                "     0.5000    4.2%      1\n"
                "compile/(untimed)" +
                std::string(51, ' ') + "     4.5000   37.5%       \n");
}

TEST(CliPhasesTest, DiffComparesPhaseTimesByPath) {
  ScratchDir dir;
  write_profile_file(phased_profile(), dir.file("base.json"));
  write_profile_file(scaled_phases(1.5), dir.file("new.json"));
  const auto r = run_tool(
      {"diff", dir.file("base.json"), dir.file("new.json"), "--fail-above", "10", "--min-ms", "1"});
  // The passes did not change; the phases all got 50% slower.
  EXPECT_EQ(r.status, 1) << r.err;
  const std::size_t phases = r.out.find("Phases:");
  ASSERT_NE(phases, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(phases),
            "Phases: medians of each phase path's time\n"
            "----------------------------------------------------------------------------------"
            "--------------------------\n"
            "Phase                       Base (ms)     New (ms)   Delta (ms)   Delta %  Count "
            "base -> new  Status\n"
            "----------------------------------------------------------------------------------"
            "--------------------------\n"
            "compile                     12000.000    18000.000    +6000.000    +50.0%             "
            "1 -> 1  regression\n"
            "compile/lower                6000.000     9000.000    +3000.000    +50.0%             "
            "1 -> 1  regression\n"
            "compile/(untimed)            4500.000     6750.000    +2250.000    +50.0%             "
            "0 -> 0  regression\n"
            "compile/codegen              1000.000     1500.000     +500.000    +50.0%             "
            "1 -> 1  regression\n"
            "compile/nvcc                  500.000      750.000     +250.000    +50.0%             "
            "1 -> 1  regression\n"
            "5 phase regression(s): phases of at least 1.000 ms that got more than 10.0% slower\n"
            "=================================================================================="
            "==========================\n");
  const auto json =
      run_tool({"diff", "--format", "json", dir.file("base.json"), dir.file("new.json")});
  EXPECT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j.at("regressions"), 0);
  EXPECT_EQ(j.at("phase_regressions"), 0);
  ASSERT_EQ(j.at("phases").size(), 5u);
  EXPECT_EQ(j.at("phases")[0].at("key"), "compile");
  EXPECT_EQ(j.at("phases")[0].at("base_self_ns"), 12e9);
  EXPECT_EQ(j.at("phases")[0].at("new_self_ns"), 18e9);
  EXPECT_EQ(j.at("phases")[0].at("status"), "ok");
}

TEST(CliPhasesTest, MergeKeepsEachInputsTreeUnderAnInputPhase) {
  ScratchDir dir;
  write_profile_file(phased_profile(), dir.file("a.json"));
  write_profile_file(testing::sample_session_profile(), dir.file("old.json"));
  write_profile_file(scaled_phases(2), dir.file("b.json"));
  const auto r = run_tool({"merge", dir.file("a.json"), dir.file("old.json"), dir.file("b.json"),
                           "-o", dir.file("m.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  const Profile m = load_profile(dir.file("m.json"));
  ASSERT_EQ(m.phases.size(), 10u);
  EXPECT_EQ(m.phases[0].name, "input");
  EXPECT_EQ(m.phases[0].detail, dir.file("a.json"));
  EXPECT_EQ(m.phases[0].parent, kNoPhase);
  EXPECT_EQ(m.phases[0].duration_ns, 12 * kSecond);
  EXPECT_EQ(m.phases[1].name, "compile");
  EXPECT_EQ(m.phases[1].parent, 0u);
  EXPECT_EQ(m.phases[2].parent, 1u);
  EXPECT_EQ(m.phases[5].name, "input");
  EXPECT_EQ(m.phases[5].detail, dir.file("b.json"));
  EXPECT_EQ(m.phases[5].duration_ns, 24 * kSecond);
  EXPECT_EQ(m.phases[6].parent, 5u);
  EXPECT_EQ(m.phases[9].parent, 6u);
  ASSERT_EQ(m.sections.size(), 6u);
  EXPECT_EQ(m.sections[0].phase, 2u);
  EXPECT_EQ(m.sections[1].phase, 3u);
  EXPECT_EQ(m.sections[2].phase, kNoPhase);  // old.json: no phases
  EXPECT_EQ(m.sections[3].phase, kNoPhase);
  EXPECT_EQ(m.sections[4].phase, 7u);
  EXPECT_EQ(m.sections[5].phase, 8u);
  // A merge of the merge keeps the inputs' trees as they are.
  const auto again = run_tool({"merge", dir.file("m.json"), "-o", dir.file("m2.json")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(load_profile(dir.file("m2.json")).phases, m.phases);
}

/// A run of the gate: one pass (30 ms, interleaved over the runs: no
/// change) in a compile of a front end, a back end and 10 ms in neither.
Profile gate_run(std::int64_t pid, Nanoseconds front_ms, Nanoseconds back_ms, Nanoseconds pass_ms) {
  constexpr Nanoseconds kMs = 1'000'000;
  Profile p;
  p.metadata = {"passtiming 0.1.0", "clang-19 -O2 -c a.c", "build-host", "", pid};
  Section& s = p.sections.emplace_back();
  s.context = "a.c";
  s.threads = {1};
  Record r;
  r.name = s.names.intern("GVNPass");
  r.start_ns = front_ms * kMs;
  r.inclusive_ns = r.self_ns = pass_ms * kMs;
  s.records.push_back(r);
  s.phase = 2;
  const Nanoseconds total = (front_ms + back_ms + 10) * kMs;
  p.phases = {{"compile", "a.c", kNoPhase, 1, 0, total, -1, 0},
              {"front end", "", 0, 1, 0, front_ms * kMs, -1, 0},
              {"back end", "", 0, 1, front_ms * kMs, back_ms * kMs, -1, 0}};
  return p;
}

TEST(CliPhasesTest, TheGateTestsEachPhasePathAsRowsOfTheirOwn) {
  ScratchDir dir;
  const Nanoseconds front_base[] = {100, 102, 98, 101, 99};
  const Nanoseconds front_new[] = {99, 101, 100, 98, 102};
  const Nanoseconds pass_base[] = {28, 30, 32, 29, 31};
  const Nanoseconds pass_new[] = {31, 29, 30, 32, 28};
  std::vector<std::string> args = {"diff", "--gate", "--format", "json", "--base"};
  for (int i = 0; i < 5; ++i) {
    const std::string path = dir.file(fmt::format("base-{}.json", i));
    write_profile_file(gate_run(100 + i, front_base[i], 200 + i, pass_base[i]), path);
    args.push_back(path);
  }
  args.push_back("--new");
  for (int i = 0; i < 5; ++i) {
    // The back end got 100 ms slower.
    const std::string path = dir.file(fmt::format("new-{}.json", i));
    write_profile_file(gate_run(200 + i, front_new[i], 300 + i, pass_new[i]), path);
    args.push_back(path);
  }
  const auto r = run_tool(args);
  EXPECT_EQ(r.status, 1) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j.at("verdict"), "regression");
  EXPECT_EQ(j.at("regressions"), 0);  // no pass regressed
  const Json& phases = j.at("phases");
  EXPECT_EQ(phases.at("measure"), "wall");
  EXPECT_EQ(phases.at("regressions"), 2);
  std::vector<std::string> rows;
  for (const Json& row : phases.at("rows")) {
    rows.push_back(fmt::format(
        "{} {} {} {}", row.at("key").get<std::string>(), row.at("status").get<std::string>(),
        row.at("base_median").get<double>() / 1e6, row.at("new_median").get<double>() / 1e6));
  }
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "compile regression 313 412",
                      "compile/back end regression 202 302",
                      "compile/(untimed) ok 10 10",
                      "compile/front end ok 100 100",
                  }));

  args[3] = "text";
  const auto text = run_tool(args);
  EXPECT_EQ(text.status, 1);
  EXPECT_NE(text.out.find("phase: compile/back end "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Verdict: no regression, 2 phase regressions\n"), std::string::npos);
  EXPECT_NE(text.out.find("Phase verdict: 2 phase regressions\n"), std::string::npos) << text.out;
  args[3] = "markdown";
  const auto markdown = run_tool(args);
  // The first line, a pull request's verdict, names the phases too.
  EXPECT_EQ(markdown.out.substr(0, markdown.out.find('\n')),
            "**passtiming gate: no regression, 2 phase regressions** (wall self time by pass, 5 "
            "base and 5 new runs)");
  EXPECT_NE(markdown.out.find("**Phases: 2 phase regressions** (wall time per run, 2 phase paths "
                              "tested)\n\n| Phase | Base (ms) |"),
            std::string::npos)
      << markdown.out;
  EXPECT_NE(markdown.out.find("| `phase: compile/back end` | 202.000 | 302.000 | +100.000 | "
                              "+49.5% | 0.004 | 0.004 | **regression** |"),
            std::string::npos);
}

}  // namespace
}  // namespace passtiming
