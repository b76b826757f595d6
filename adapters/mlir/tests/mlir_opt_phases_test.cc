// passtiming-mlir-opt's phases, end to end: the real tool on the bundled
// tiled-matmul example and on inputs that fail to parse or to lower, with
// mlir-opt-19 as the reference for MLIR's own messages and exit status.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mlir_opt_support.h"
#include "passtiming/engine/phase.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/report.h"

namespace {

namespace fs = std::filesystem;
using passtiming::kNoPhase;
using passtiming::Phase;
using passtiming::PhaseIndex;
using passtiming::Profile;

using passtiming::testing::example;
using passtiming::testing::pipeline_arg;
using passtiming::testing::read_text;
using passtiming::testing::ToolRun;

std::string data(const std::string& name) {
  return std::string(PASSTIMING_MLIR_TEST_DATA) + "/" + name;
}

fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("passtiming-mlir-phases-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

/// Runs `program` with `args` (already shell-quoted).
ToolRun run(const std::string& program, const std::string& args) {
  return passtiming::testing::run_program(program, args, scratch());
}

/// passtiming-mlir-opt writing its profile; the profile read back.
struct Timed {
  ToolRun run;
  Profile profile;
};

Timed run_timed(const std::string& args) {
  const fs::path profile = scratch() / "profile.json";
  fs::remove(profile);
  Timed t;
  t.run = run(PASSTIMING_MLIR_OPT, args + " --passtiming-profile=" + profile.string());
  if (fs::exists(profile)) t.profile = passtiming::load_profile(profile.string());
  return t;
}

/// The children of `parent`, in order, as "name" or "name [failed]".
std::vector<std::string> children(const Profile& p, PhaseIndex parent) {
  std::vector<std::string> out;
  for (const Phase& phase : p.phases) {
    if (phase.parent == parent) out.push_back(phase.name + (phase.failed() ? " [failed]" : ""));
  }
  return out;
}

PhaseIndex find_phase(const Profile& p, const std::string& name) {
  for (PhaseIndex i = 0; i < p.phases.size(); ++i) {
    if (p.phases[i].name == name) return i;
  }
  return kNoPhase;
}

/// Top-level phases' time over the root's.
double coverage(const Profile& p) {
  passtiming::Nanoseconds covered = 0;
  for (const Phase& phase : p.phases) {
    if (phase.parent == 0) covered += phase.duration_ns;
  }
  return static_cast<double>(covered) / static_cast<double>(p.phases.at(0).duration_ns);
}

class ExamplePhases : public ::testing::TestWithParam<bool> {};

TEST_P(ExamplePhases, CompileHoldsParsePipelineOutputTeardownAndThePassesInThePipeline) {
  const bool threads = GetParam();
  const std::string input = example("matmul_tiled.mlir");
  const Timed t = run_timed(input + " " + pipeline_arg() + " --passtiming -o /dev/null" +
                            (threads ? "" : " --mlir-disable-threading"));
  ASSERT_EQ(t.run.status, 0) << t.run.err;
  const Profile& p = t.profile;
  ASSERT_FALSE(p.phases.empty()) << t.run.err;
  EXPECT_EQ(passtiming::check_phase_tree(p.phases), "");
  EXPECT_EQ(p.phases[0].name, "compile");
  EXPECT_EQ(p.phases[0].detail, input);
  EXPECT_EQ(p.phases[0].parent, kNoPhase);
  EXPECT_FALSE(p.phases[0].failed());
  EXPECT_EQ(children(p, kNoPhase), std::vector<std::string>{"compile"});
  EXPECT_EQ(children(p, 0), (std::vector<std::string>{"parse", "pipeline", "output", "teardown"}));
  // Each phase begins where the one before it ended, on one thread.
  for (PhaseIndex i = 2; i < p.phases.size(); ++i) {
    EXPECT_GE(p.phases[i].start_ns, p.phases[i - 1].end_ns()) << p.phases[i].name;
    EXPECT_LT(p.phases[i].start_ns - p.phases[i - 1].end_ns(), 1'000'000) << p.phases[i].name;
    EXPECT_EQ(p.phases[i].thread, p.phases[0].thread);
  }
  EXPECT_GE(coverage(p), 0.95);

  // The one section belongs to the pipeline, and each of its 37 passes ran
  // inside it, whichever thread ran it.
  const PhaseIndex pipeline = find_phase(p, "pipeline");
  ASSERT_EQ(p.sections.size(), 1u);
  const passtiming::Section& s = p.sections[0];
  EXPECT_EQ(s.phase, pipeline);
  ASSERT_EQ(s.records.size(), 37u);
  std::set<std::uint64_t> threads_seen;
  for (const passtiming::Record& r : s.records) {
    threads_seen.insert(s.threads.at(r.thread));
    EXPECT_EQ(passtiming::innermost_phase(p.phases, 0, r.start_ns), pipeline) << s.name_of(r);
    EXPECT_LE(r.start_ns + r.inclusive_ns, p.phases[pipeline].end_ns()) << s.name_of(r);
  }
  if (!threads) {
    EXPECT_EQ(threads_seen, std::set<std::uint64_t>{p.phases[0].thread});
  }

  // The passes' report is the one it always printed; the phase table follows.
  const std::string report = passtiming::render_session_report(p, 0.0);
  EXPECT_EQ(t.run.err, report + "\n" + passtiming::render_phase_table(p.phases) + "\n");
  EXPECT_EQ(report.find("Phases"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Threading, ExamplePhases, ::testing::Values(false, true),
                         [](const auto& param_info) {
                           return param_info.param ? "Threads" : "NoThreads";
                         });

TEST(MlirOptPhasesTest, TheOutputIsMlirOptsOutput) {
  const std::string args = example("matmul_tiled.mlir") + " " + pipeline_arg();
  const Timed t = run_timed(args + " --passtiming");
  const ToolRun reference = run("mlir-opt-19", args);
  ASSERT_EQ(t.run.status, 0);
  ASSERT_EQ(reference.status, 0);
  EXPECT_EQ(t.run.out, reference.out);
  EXPECT_EQ(children(t.profile, 0),
            (std::vector<std::string>{"parse", "pipeline", "output", "teardown"}));
}

TEST(MlirOptPhasesTest, AParseFailureFailsParseWithMlirOptsErrorAndStatus) {
  const fs::path bad = scratch() / "unparsable.mlir";
  std::ofstream(bad) << "func.func @f(%x: i32) -> i32 {\n  return %y : i32\n}\n";
  const Timed t = run_timed(bad.string() + " --passtiming -o /dev/null");
  const ToolRun reference = run("mlir-opt-19", bad.string() + " -o /dev/null");
  EXPECT_EQ(reference.status, 1);
  EXPECT_EQ(t.run.status, reference.status);
  ASSERT_NE(reference.err.find("error: use of undeclared SSA value name"), std::string::npos);
  // MLIR's diagnostic comes first, unchanged; the (empty) report and the
  // phase table follow it.
  EXPECT_EQ(t.run.err.rfind(reference.err, 0), 0u) << t.run.err;
  const Profile& p = t.profile;
  ASSERT_EQ(p.phases.size(), 2u) << t.run.err;
  EXPECT_EQ(children(p, kNoPhase), std::vector<std::string>{"compile [failed]"});
  EXPECT_EQ(children(p, 0), std::vector<std::string>{"parse [failed]"});
  EXPECT_EQ(passtiming::check_phase_tree(p.phases), "");
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_TRUE(p.sections[0].records.empty());
  EXPECT_NE(t.run.err.find("parse  [failed]"), std::string::npos) << t.run.err;
}

TEST(MlirOptPhasesTest, APassFailureFailsThePipelineWithMlirOptsErrorAndStatus) {
  const std::string args = data("unbufferizable.mlir") + " " + pipeline_arg() + " -o /dev/null";
  const Timed t = run_timed(args + " --passtiming");
  const ToolRun reference = run("mlir-opt-19", args);
  EXPECT_EQ(reference.status, 1);
  EXPECT_EQ(t.run.status, reference.status);
  ASSERT_NE(reference.err.find("error: op was not bufferized"), std::string::npos);
  EXPECT_EQ(t.run.err.rfind(reference.err, 0), 0u) << t.run.err;
  const Profile& p = t.profile;
  EXPECT_EQ(passtiming::check_phase_tree(p.phases), "");
  EXPECT_EQ(children(p, kNoPhase), std::vector<std::string>{"compile [failed]"});
  // Nothing is printed after a failed pipeline; the IR is still torn down.
  EXPECT_EQ(children(p, 0), (std::vector<std::string>{"parse", "pipeline [failed]", "teardown"}));
  const PhaseIndex pipeline = find_phase(p, "pipeline");
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].phase, pipeline);
  ASSERT_EQ(p.sections[0].records.size(), 3u);
  // The failing pass ends the pipeline phase.
  const passtiming::Record& last = p.sections[0].records.back();
  EXPECT_EQ(p.sections[0].name_of(last), "OneShotBufferize");
  EXPECT_NE(last.flags & passtiming::kRecordFailed, 0);
  EXPECT_LE(last.start_ns + last.inclusive_ns, p.phases[pipeline].end_ns());
  EXPECT_NE(t.run.err.find("pipeline  [failed]"), std::string::npos) << t.run.err;
}

TEST(MlirOptPhasesTest, EachSplitInputChunkHasItsOwnPhases) {
  const fs::path input = scratch() / "split.mlir";
  std::ofstream(input) << "func.func @a(%x: i32) -> i32 {\n  %c = arith.constant 0 : i32\n"
                          "  %y = arith.addi %x, %c : i32\n  return %y : i32\n}\n// -----\n"
                          "func.func @b() {\n  return\n}\n";
  const Timed t =
      run_timed(input.string() + " --split-input-file --canonicalize --passtiming -o /dev/null");
  ASSERT_EQ(t.run.status, 0) << t.run.err;
  const Profile& p = t.profile;
  EXPECT_EQ(passtiming::check_phase_tree(p.phases), "");
  EXPECT_EQ(children(p, 0), (std::vector<std::string>{"parse", "pipeline", "output", "teardown",
                                                      "parse", "pipeline", "output", "teardown"}));
  // One section for both chunks' pass managers, in compile, which holds both
  // pipelines; each pass lies in one of them.
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].phase, 0u);
  ASSERT_EQ(p.sections[0].records.size(), 2u);
  for (const passtiming::Record& r : p.sections[0].records) {
    EXPECT_EQ(p.phases[passtiming::innermost_phase(p.phases, 0, r.start_ns)].name, "pipeline");
  }
}

TEST(MlirOptPhasesTest, AnEmptyPipelineEndsAtOnce) {
  const Timed t = run_timed(data("fold.mlir") + " --passtiming -o /dev/null");
  ASSERT_EQ(t.run.status, 0) << t.run.err;
  const Profile& p = t.profile;
  EXPECT_EQ(children(p, 0), (std::vector<std::string>{"parse", "pipeline", "output", "teardown"}));
  EXPECT_LT(p.phases[find_phase(p, "pipeline")].duration_ns, 1'000'000);
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].phase, find_phase(p, "pipeline"));
}

}  // namespace
