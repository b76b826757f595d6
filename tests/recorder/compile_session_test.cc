// CompileSession, the home of one timed compile's outputs: its sections, the
// report where the settings send it, the JSON profile and the event log,
// written once by finish() (or after each section), and finished at process
// exit when its host never got there. Every time comes from a ManualClock.

#include "passtiming/recorder/compile_session.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/logging.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/report.h"
#include "profile_fixtures.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;
using ::passtiming::testing::read_file;
using ::passtiming::testing::ScratchDir;

/// One context on `section`: `outer` (0..5 s) around `inner(kernel)` (1..3 s).
void run_context(Recorder& section, ManualClock& clock, std::string_view kernel = "matmul") {
  const Nanoseconds s = 1'000'000'000;
  const Nanoseconds t0 = clock.now_ns();
  clock.script({t0, t0, t0 + s, t0 + 3 * s, t0 + 5 * s, t0 + 5 * s});
  section.enter_pass_ctx();
  section.run_before_pass("outer", "");
  section.run_before_pass("inner", kernel);
  section.run_after_pass("inner");
  section.run_after_pass("outer");
  section.exit_pass_ctx();
  clock.set(t0 + 10 * s);
}

OutputPath file(const ScratchDir& dir, const std::string& name, std::string setting) {
  return OutputPath{dir.file(name), std::move(setting)};
}

TEST(CompileSession, SectionsAreKeptInOrderWithTheSessionsThreshold) {
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.threshold_ms = 2500.0}, clock);
  run_context(*session.new_section("stage=lower"), *clock);
  run_context(*session.new_section("stage=codegen"), *clock, "host");
  ASSERT_EQ(session.section_count(), 2u);
  const Profile profile = session.profile();
  ASSERT_EQ(profile.sections.size(), 2u);
  EXPECT_EQ(profile.sections[0].context, "stage=lower");
  EXPECT_EQ(profile.sections[1].context, "stage=codegen");
  EXPECT_EQ(profile.sections[0].records.size(), 2u);
  EXPECT_EQ(profile.sections[1].total_seconds(), 5.0);
  EXPECT_EQ(profile.metadata.pid, static_cast<long>(::getpid()));
  // inner (2 s) is under the threshold, outer (5 s) is not.
  EXPECT_EQ(session.report(), render_session_report(profile, 2500.0));
  EXPECT_EQ(session.report().find("inner"), std::string::npos);
}

TEST(CompileSession, FinishLogsTheReportAndWritesTheProfileOnce) {
  ScratchDir dir;
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.profile = file(dir, "p.json", "PASSTIMING_PROFILE")}, clock);
  run_context(*session.new_section("stage=lower"), *clock);
  EXPECT_FALSE(std::filesystem::exists(dir.file("p.json")));  // not before finish()
  const std::string report = session.report();
  EXPECT_TRUE(session.finish());
  EXPECT_TRUE(session.finish());  // later calls do nothing
  ASSERT_EQ(log.messages(LogLevel::info).size(), 1u);
  EXPECT_EQ(log.messages(LogLevel::info)[0], "\n" + report);
  const Profile written = load_profile(dir.file("p.json"));
  ASSERT_EQ(written.sections.size(), 1u);
  EXPECT_EQ(written.sections[0].records.size(), 2u);
  EXPECT_EQ(written.sections[0].context, "stage=lower");
}

// A named source (LLVM, MLIR) is not TileLang: its report and its warnings,
// the machine's included, go to the logger `passtiming`.
TEST(CompileSession, ANamedSourceLogsOnPasstimingsLogger) {
  LogCapture seed;
  LogCapture own(kPasstimingLoggerName);
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.source = "llvm"}, clock);
  std::shared_ptr<Recorder> section = session.new_section("a.c");
  run_context(*section, *clock);
  section->enter_pass_ctx();
  section->run_after_pass("stray");
  section->exit_pass_ctx();
  EXPECT_TRUE(session.finish());
  EXPECT_TRUE(seed.entries.empty());
  ASSERT_EQ(own.messages(LogLevel::warning).size(), 1u);
  EXPECT_EQ(own.messages(LogLevel::warning)[0],
            "Ignoring unmatched pass timing callback for stray (expected <none>)");
  EXPECT_EQ(own.messages(LogLevel::info).size(), 1u);
}

// The TileLang and TVM sources name none: upstream's logger.
TEST(CompileSession, AnUnnamedSourceLogsOnTheSeedsLogger) {
  LogCapture seed;
  LogCapture own(kPasstimingLoggerName);
  Recorder recorder(Settings{}, std::make_shared<ManualClock>());
  recorder.enter_pass_ctx();
  recorder.run_after_pass("stray");
  recorder.exit_pass_ctx();
  EXPECT_TRUE(own.entries.empty());
  EXPECT_EQ(seed.messages(LogLevel::warning).size(), 1u);
}

TEST(CompileSession, CloseOutputsWritesTheFilesWithoutTheReport) {
  ScratchDir dir;
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.profile = file(dir, "p.json", "profile")}, clock);
  run_context(*session.new_section("x"), *clock);
  EXPECT_TRUE(session.close_outputs());
  EXPECT_TRUE(log.entries.empty());
  EXPECT_EQ(load_profile(dir.file("p.json")).sections.size(), 1u);
  EXPECT_TRUE(session.finish());  // already finished: nothing more
  EXPECT_TRUE(log.entries.empty());
}

TEST(CompileSession, EachSectionWritesItsReportAndTheProfileSoFar) {
  ScratchDir dir;
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.profile = file(dir, "p.json", "PASSTIMING_PROFILE"),
                                  .report = ReportTarget::file,
                                  .report_file = file(dir, "r.txt", "PASSTIMING_REPORT"),
                                  .write_each_section = true},
                         clock);
  auto first = session.new_section("tu=a.c");
  run_context(*first, *clock);
  EXPECT_EQ(load_profile(dir.file("p.json")).sections.size(), 1u);
  EXPECT_EQ(read_file(dir.file("r.txt")), first->report("tu=a.c") + "\n");
  auto second = session.new_section("tu=b.c");
  run_context(*second, *clock, "b");
  EXPECT_EQ(load_profile(dir.file("p.json")).sections.size(), 2u);
  EXPECT_EQ(read_file(dir.file("r.txt")),
            first->report("tu=a.c") + "\n\n" + second->report("tu=b.c") + "\n");
  // finish() writes no report again: each section wrote its own.
  EXPECT_TRUE(session.finish());
  EXPECT_EQ(read_file(dir.file("r.txt")),
            first->report("tu=a.c") + "\n\n" + second->report("tu=b.c") + "\n");
}

TEST(CompileSession, FinishClosesAContextStillOpenAndKeepsWhatCompleted) {
  ScratchDir dir;
  LogCapture log;
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.profile = file(dir, "p.json", "profile")}, clock);
  auto section = session.new_section("stage=lower");
  clock->script({0, 0, 10, 30});
  section->enter_pass_ctx();
  section->run_before_pass("outer", "");
  section->run_before_pass("inner", "k");
  section->run_after_pass("inner");  // outer never ends: the compile died in it
  EXPECT_TRUE(section->in_context());
  EXPECT_TRUE(session.finish());
  EXPECT_FALSE(section->in_context());
  const Profile written = load_profile(dir.file("p.json"));
  ASSERT_EQ(written.sections[0].records.size(), 1u);
  EXPECT_EQ(written.sections[0].name_of(written.sections[0].records[0]), "inner");
  const auto warnings = log.messages(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("outer"), std::string::npos) << warnings[0];
}

TEST(CompileSession, TheEventLogStreamsEverySectionAndReplaysToTheProfile) {
  ScratchDir dir;
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.events = file(dir, "e.jsonl", "PASSTIMING_EVENTS")}, clock);
  run_context(*session.new_section("one"), *clock);
  run_context(*session.new_section("two"), *clock, "b");
  EXPECT_TRUE(session.close_outputs());
  std::ifstream in(dir.file("e.jsonl"));
  const Profile replayed = replay_event_log(in, "e.jsonl");
  const Profile live = session.profile();
  ASSERT_EQ(replayed.sections.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(render_report(replayed.sections[i], 0.0, std::nullopt),
              render_report(live.sections[i], 0.0, std::nullopt));
  }
}

TEST(CompileSession, AnEventLogThatCannotBeCreatedIsAConfigErrorNamingTheSetting) {
  ScratchDir dir;
  const std::string path = dir.file("missing/e.jsonl");
  try {
    CompileSession session(Settings{.events = OutputPath{path, "--passtiming-events"}});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "--passtiming-events: cannot create the event log " + path +
                                         ": No such file or directory");
  }
}

TEST(CompileSession, AnUnwritableProfileIsOneMessageNamingTheSettingAndFinishSaysSo) {
  ScratchDir dir;
  LogCapture log;
  const std::string path = dir.file("missing/p.json");
  auto clock = std::make_shared<ManualClock>();
  CompileSession session(Settings{.profile = OutputPath{path, "PASSTIMING_PROFILE"}}, clock);
  run_context(*session.new_section("x"), *clock);
  EXPECT_FALSE(session.finish());
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "PASSTIMING_PROFILE: " + path +
                ": cannot create a temporary file next to it: No such file or directory");
}

TEST(CompileSession, SectionsRecordTheSessionsMetricsFromItsSampler) {
  auto clock = std::make_shared<ManualClock>();
  auto sampler = std::make_shared<ManualMetricSampler>();
  MetricSet cpu;
  cpu.insert(Metric::cpu);
  CompileSession session(Settings{.metrics = cpu}, clock, sampler);
  EXPECT_EQ(session.metrics().recorded, cpu);
  auto section = session.new_section("x");
  EXPECT_EQ(section->metrics().recorded, cpu);
  sampler->set(MetricSample{100});
  clock->script({0, 0, 10});
  section->enter_pass_ctx();
  section->run_before_pass("p", "");
  sampler->set(MetricSample{350});
  section->run_after_pass("p");
  section->exit_pass_ctx();
  ASSERT_EQ(section->section().metrics.size(), 1u);
  EXPECT_EQ(section->section().metrics[0].cpu_ns, 250);
  EXPECT_EQ(session.profile().metrics.recorded, cpu);
}

TEST(CompileSession, ASessionLeftUnfinishedIsFinishedAtProcessExit) {
  ScratchDir dir;
  const std::string path = dir.file("p.json");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A compile that calls exit() half-way: its host never finishes the
    // session, which is never destroyed.
    auto clock = std::make_shared<ManualClock>();
    auto* session = new CompileSession(
        Settings{.profile = OutputPath{path, "PASSTIMING_PROFILE"}, .report = ReportTarget::off},
        clock);
    auto section = session->new_section("stage=lower");
    clock->script({0, 0, 10});
    section->enter_pass_ctx();
    section->run_before_pass("done", "");
    section->run_after_pass("done");
    section->run_before_pass("running", "");
    std::exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);  // the host's own status is kept
  const Profile written = load_profile(path);
  ASSERT_EQ(written.sections.size(), 1u);
  ASSERT_EQ(written.sections[0].records.size(), 1u);
  EXPECT_EQ(written.sections[0].name_of(written.sections[0].records[0]), "done");
}

TEST(CompileSession, ADestroyedSessionLeavesTheExitHook) {
  ScratchDir dir;
  const std::string path = dir.file("p.json");
  {
    CompileSession session(
        Settings{.profile = OutputPath{path, "profile"}, .report = ReportTarget::off});
    run_context(*session.new_section("x"), *std::make_shared<ManualClock>());
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove(path);
  CompileSession::finish_all();  // nothing left to finish: nothing written
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(CompileSession, TheStatusFileGetsOneLinePerProfileOutcome) {
  ScratchDir dir;
  auto clock = std::make_shared<ManualClock>();
  const std::string status = dir.file("status");
  {
    // Written after each of two sections: one line, not two.
    CompileSession session(Settings{.profile = file(dir, "p.json", "PASSTIMING_PROFILE"),
                                    .report = ReportTarget::off,
                                    .status = file(dir, "status", "PASSTIMING_STATUS"),
                                    .write_each_section = true},
                           clock);
    run_context(*session.new_section("a"), *clock);
    run_context(*session.new_section("b"), *clock);
  }
  EXPECT_EQ(read_file(status), "written\t" + dir.file("p.json") + "\n");
  const std::string missing = dir.file("missing/q.json");
  {
    LogCapture log;
    CompileSession session(Settings{.profile = OutputPath{missing, "PASSTIMING_PROFILE"},
                                    .report = ReportTarget::off,
                                    .status = file(dir, "status", "PASSTIMING_STATUS")},
                           clock);
    run_context(*session.new_section("a"), *clock);
    EXPECT_FALSE(session.finish());
  }
  EXPECT_EQ(read_file(status), "written\t" + dir.file("p.json") + "\nfailed\t" + missing +
                                   "\tPASSTIMING_PROFILE: " + missing +
                                   ": cannot create a temporary file next to it: No such file or "
                                   "directory\n");
}

}  // namespace
}  // namespace passtiming
