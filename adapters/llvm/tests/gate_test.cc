// `passtiming run --repeat` and `passtiming diff --gate` on real clang-19
// compiles of examples/c/particles.c, one pass made slower on purpose by the
// spin plugin (bench/gate/spin_plugin.cc).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/profile_io.h"
#include "shell_test.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;

const std::string kCli = PASSTIMING_CLI;
const std::string kClang = PASSTIMING_CLANG;
const std::string kSpinPlugin = PASSTIMING_SPIN_PLUGIN;
const std::string kExample = std::string(PASSTIMING_EXAMPLES_DIR) + "/particles.c";

using Result = testing::ShellResult;

class GateTest : public testing::ShellTest {
 protected:
  GateTest() : ShellTest("gate") {}

  /// `runs` compiles of particles.c into NAME-%r.json, IPSCCPPass spinning
  /// `spin_us` before each of its executions (once per compile).
  Result compile_side(const std::string& name, int runs, int spin_us) {
    return run(spin_settings(spin_us) + " '" + kCli + "' run --no-report --repeat " +
               std::to_string(runs) + " -o '" + name + "-%r.json' -- " + compile_command());
  }
  /// `runs` compiles on each side, the sides alternating, each pair in the
  /// order the last one ended with (a-1, b-1, b-2, a-2, a-3, ...), recording
  /// CPU time: so a change of the machine's load during the test falls on
  /// both sides alike, as docs/gate.md advises, and neither side is always
  /// the first of its pair (the one after the other side's compile, whose
  /// caches it inherits). Side b spins `spin_us` in IPSCCPPass.
  bool compile_alternating(int runs, int spin_us) {
    for (int i = 1; i <= runs; ++i) {
      const std::pair<const char*, int> a{"a", 0}, b{"b", spin_us};
      for (const auto& [side, spin] : i % 2 ? std::array{a, b} : std::array{b, a}) {
        const Result r =
            run(spin_settings(spin) + " '" + kCli + "' run --no-report --metrics cpu -o '" + side +
                "-" + std::to_string(i) + ".json' -- " + compile_command());
        if (r.status != 0) {
          ADD_FAILURE() << r.err;
          return false;
        }
      }
    }
    return true;
  }
  static std::string spin_settings(int spin_us) {
    return "PASSTIMING_SPIN_PASS=IPSCCPPass PASSTIMING_SPIN_US=" + std::to_string(spin_us);
  }
  static std::string compile_command() {
    return "'" + kClang + "' -O2 -c -fpass-plugin='" + kSpinPlugin + "' '" + kExample +
           "' -o out.o";
  }
  /// The nice values the runs of a 3-run gate with `flags` had, one a line:
  /// each run's command is nice.sh, which appends its own (field 19 of
  /// /proc/PID/stat) to nice.txt and then runs the compile.
  std::vector<std::string> nice_values_of_runs(const std::string& flags) {
    std::ofstream(dir / "nice.sh") << "cut -d' ' -f19 /proc/$$/stat >> nice.txt\nexec \"$@\"\n";
    const std::string side = "sh nice.sh " + compile_command();
    const Result r = run("'" + kCli + "' gate --runs 3 --max-runs 3 --seed 1 --dir runs " + flags +
                         " --base \"" + side + "\" --new \"" + side + "\"");
    EXPECT_TRUE(fs::exists(dir / "runs" / "new-003.json")) << r.err;
    last_err = r.err;
    std::ifstream in(dir / "nice.txt");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::string last_err;
  Result gate(const std::string& flags = "") {
    return run("'" + kCli + "' diff --gate --format json --base a-*.json --new b-*.json " + flags);
  }
};

TEST_F(GateTest, RepeatWritesOneProfilePerRun) {
  const Result r = compile_side("a", 3, 0);
  ASSERT_EQ(r.status, 0) << r.err;
  for (int run = 1; run <= 3; ++run) {
    const fs::path path = dir / ("a-" + std::to_string(run) + ".json");
    ASSERT_TRUE(fs::exists(path)) << path;
    const Profile profile = load_profile(path.string());
    EXPECT_GT(profile.record_count(), 100u) << path;
  }
  EXPECT_FALSE(fs::exists(dir / "a-4.json"));
  EXPECT_FALSE(fs::exists(dir / "a-0.json"));
}

TEST_F(GateTest, RepeatStopsAtTheFirstFailingRun) {
  // The second compile fails: its input disappears after the first.
  std::ofstream(dir / "once.c") << "int f(int x) { return x * 3; }\n";
  const Result r = run("'" + kCli + "' run --no-report --repeat 4 -o 'once-%r.json' -- sh -c '" +
                       kClang + " -O2 -c once.c -o once.o && rm once.c'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("passtiming run: run 2 of 4 exited with status"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir / "once-1.json"));
  EXPECT_FALSE(fs::exists(dir / "once-2.json"));
  EXPECT_FALSE(fs::exists(dir / "once-3.json"));
  // Without %r, several runs would write one file: refused.
  const Result usage = run("'" + kCli + "' run --repeat 2 -o same.json -- true");
  EXPECT_EQ(usage.status, 2);
  EXPECT_NE(usage.err.find("--repeat 2 needs %r in --profile"), std::string::npos) << usage.err;
}

// 8 runs per side: with 5, a loaded machine can spread enough passes over
// more than the 1 ms floor that Holm's correction asks for more runs (status
// 2); 8 runs carry up to 643 tested passes.
constexpr int kRuns = 8;

TEST_F(GateTest, SameCompileOnBothSidesIsNoRegression) {
  ASSERT_TRUE(compile_alternating(kRuns, 0));
  const Result r = gate();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"verdict\":\"ok\""), std::string::npos) << r.out;
  // CPU time is the default measure when the profiles recorded it.
  EXPECT_NE(r.out.find("\"measure\":\"cpu\""), std::string::npos) << r.out;
}

TEST_F(GateTest, ASlowerPassIsFlaggedAndNoOther) {
  ASSERT_TRUE(compile_alternating(kRuns, 20000));  // 20 ms in IPSCCPPass
  const Result r = gate();
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\"regressions\":1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"key\":\"IPSCCPPass\",\"status\":\"regression\""), std::string::npos)
      << r.out;
}

TEST_F(GateTest, TheGateCommandRunsTheSidesInPairsAndJudgesThem) {
  // The new side spins 20 ms in IPSCCPPass; `env` runs clang, so the plugin
  // reaches it as it reaches a build's compiles.
  auto side = [](int spin_us) {
    return "env PASSTIMING_SPIN_PASS=IPSCCPPass PASSTIMING_SPIN_US=" + std::to_string(spin_us) +
           " " + compile_command();
  };
  // --max-runs as --runs: the series is not extended, whatever the
  // machine's noise (python/test_gate_runs.py tests the extension).
  const Result r =
      run("'" + kCli + "' gate --runs " + std::to_string(kRuns) + " --max-runs " +
          std::to_string(kRuns) + " --seed 7 --metrics cpu --dir runs --format json --base \"" +
          side(0) + "\" --new \"" + side(20000) + "\"");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\"regressions\":1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"key\":\"IPSCCPPass\",\"status\":\"regression\""), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("passtiming gate: 8 runs per side, alternated in pairs of random order "
                       "(--seed 7); the profiles are in runs"),
            std::string::npos)
      << r.err;
  // One profile per run and side, and each pair done before the next began.
  fs::file_time_type previous_pair_end = fs::file_time_type::min();
  for (int run = 1; run <= kRuns; ++run) {
    char number[8];
    std::snprintf(number, sizeof number, "%03d", run);
    const fs::path base = dir / "runs" / (std::string("base-") + number + ".json");
    const fs::path next = dir / "runs" / (std::string("new-") + number + ".json");
    ASSERT_TRUE(fs::exists(base) && fs::exists(next)) << run;
    const auto first = std::min(fs::last_write_time(base), fs::last_write_time(next));
    const auto last = std::max(fs::last_write_time(base), fs::last_write_time(next));
    EXPECT_LT(previous_pair_end, first) << run;
    previous_pair_end = last;
  }
  EXPECT_FALSE(fs::exists(dir / "runs" / "base-009.json"));
}

TEST_F(GateTest, TheGateCommandRunsTheSidesAtTheNiceValueAsked) {
  // A higher nice value needs no privilege: every run gets it.
  EXPECT_EQ(nice_values_of_runs("--nice 5"), std::vector<std::string>(6, "5"));
}

TEST_F(GateTest, TheGateCommandRunsTheSidesAtTheHighestPriorityWhereAllowed) {
  const std::vector<std::string> values = nice_values_of_runs("");
  if (::geteuid() == 0) {
    EXPECT_EQ(values, std::vector<std::string>(6, "-20"));
  } else {
    // Without the privilege the runs keep the test's own nice value, and a
    // warning says so.
    ASSERT_EQ(values.size(), 6u);
    EXPECT_NE(values[0], "-20");
    EXPECT_NE(last_err.find("passtiming gate: warning: the runs keep the nice value"),
              std::string::npos)
        << last_err;
  }
}

TEST_F(GateTest, TheGateCommandStopsAtAFailingRunAndSaysWhich) {
  const Result r = run("'" + kCli + "' gate --runs 3 --dir runs --base \"" + compile_command() +
                       "\" --new \"'" + kClang + "' -c missing.c -o out.o\"");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("passtiming gate: the new command's run 1 of 3 exited with status 1; "
                       "stopped (the profiles so far are in runs)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(GateTest, ARunOfSeveralCompilesIsOneProfileOfThemAll) {
  // Each run compiles two files, the second first: the run's profile holds
  // both compiles, ordered by what was compiled, whatever the order of
  // their processes.
  std::ofstream(dir / "two.c") << "int two(int x) { return 2 * x; }\n";
  std::ofstream(dir / "build.sh") << "'" << kClang << "' -O2 -c two.c -o two.o && '" << kClang
                                  << "' -O2 -c '" << kExample << "' -o particles.o\n";
  const Result r = run("'" + kCli +
                       "' gate --runs 3 --max-runs 3 --seed 1 --dir runs --format json "
                       "--base 'sh build.sh' --new 'sh build.sh'");
  ASSERT_TRUE(fs::exists(dir / "runs" / "new-003.json")) << r.err;
  for (const char* name : {"base-001.json", "new-003.json"}) {
    const Profile profile = load_profile((dir / "runs" / name).string());
    ASSERT_EQ(profile.sections.size(), 2u) << name;
    EXPECT_EQ(profile.sections[0].context, kExample + " -> particles.o") << name;
    EXPECT_EQ(profile.sections[1].context, "two.c -> two.o") << name;
    // The run is described by its first compile, and each section names
    // the file its compile wrote.
    EXPECT_EQ(profile.metadata.command, kClang + " -O2 -c two.c -o two.o") << name;
    EXPECT_NE(profile.sections[1].origin.file.find(std::string(name) + ".parts/"),
              std::string::npos);
  }
  EXPECT_FALSE(fs::exists(dir / "runs" / "base-001.json.parts"));
}

TEST_F(GateTest, TheGateCommandStopsAtARunThatTimedNothing) {
  const Result r = run("'" + kCli + "' gate --runs 3 --dir runs --base \"" + compile_command() +
                       "\" --new true");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("passtiming gate: the new command's run 1 of 3: it wrote no profile: "
                       "nothing in it was timed"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace passtiming
