// The whole clang compile with `passtiming run --phases`: real clang-19
// compiles of real C files, whose profiles hold the compile's phases (front
// end, back end, optimizer, code generation), the optimizer's passes in the
// optimizer, code generation's legacy passes per function in code
// generation, and phases that cover the compile. The object file is the one
// a plain compile makes, no file is left beside it, and a user's own
// -ftime-trace keeps working.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "passtiming/engine/phase.h"
#include "passtiming/engine/profile.h"
#include "passtiming/formats/profile_io.h"
#include "shell_test.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;

const std::string kCli = PASSTIMING_CLI;
const std::string kClang = PASSTIMING_CLANG;
const std::string kMake = PASSTIMING_MAKE;
const std::string kMakeProject = PASSTIMING_MAKE_PROJECT;
const std::string kPython = PASSTIMING_PYTHON;
const std::string kGenerator = PASSTIMING_C_GENERATOR;
const std::string kSpinPlugin = PASSTIMING_SPIN_PLUGIN;

using Result = testing::ShellResult;

/// Four functions with loops, calls and a switch: work for every phase.
constexpr const char* kUnit = R"C(
static int weights[64];
int checksum(const unsigned char* p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s = (s * 31 + p[i] * weights[i & 63]) & 0xffffff;
  return s;
}
void init_weights(int seed) {
  for (int i = 0; i < 64; ++i) weights[i] = (seed = seed * 1103515245 + 12345) >> 16;
}
int classify(int c) {
  switch (c % 7) {
    case 0: return checksum((const unsigned char*)"zero", 4);
    case 1:
return c * 3;
case 2: return c ^ 0x55;
default : return -c;
}
}
long run(int n) {
  long t = 0;
  init_weights(n);
  for (int i = 0; i < n; ++i) t += classify(i);
  return t;
}
)C";

/// The files directly in `dir`, by name.
std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

/// The index of the first phase named `name` whose parent is `parent`.
PhaseIndex child_named(const Profile& p, PhaseIndex parent, const std::string& name) {
  for (PhaseIndex i = 0; i < p.phases.size(); ++i) {
    if (p.phases[i].parent == parent && p.phases[i].name == name) return i;
  }
  return kNoPhase;
}

class LlvmPhasesTest : public testing::ShellTest {
 protected:
  LlvmPhasesTest() : ShellTest("phases") {}

  void SetUp() override {
    ShellTest::SetUp();
    std::ofstream(dir / "unit.c") << kUnit;
  }

  /// `passtiming run --phases -o p.json -- clang-19 -O2 -c unit.c -o unit.o EXTRA`.
  Result timed_compile(const std::string& extra = "") {
    return run("'" + kCli + "' run --phases -o p.json -- '" + kClang +
               "' -O2 -c unit.c -o unit.o " + extra);
  }
};

TEST_F(LlvmPhasesTest, TheCompileIsATreeOfPhasesWithThePassesInTheirPhase) {
  const Result r = timed_compile();
  ASSERT_EQ(r.status, 0) << r.err;
  const Profile p = load_profile((dir / "p.json").string());
  EXPECT_EQ(check_phase_tree(p.phases), "");
  ASSERT_FALSE(p.phases.empty());
  const Phase& compile = p.phases[0];
  EXPECT_EQ(compile.name, "compile");
  EXPECT_EQ(compile.parent, kNoPhase);
  EXPECT_EQ(compile.detail, "unit.c -> unit.o");
  const PhaseIndex front = child_named(p, 0, "front end");
  const PhaseIndex back = child_named(p, 0, "back end");
  ASSERT_NE(front, kNoPhase);
  ASSERT_NE(back, kNoPhase);
  const PhaseIndex optimizer = child_named(p, back, "optimizer");
  const PhaseIndex codegen = child_named(p, back, "code generation");
  ASSERT_NE(optimizer, kNoPhase);
  ASSERT_NE(codegen, kNoPhase);
  // The front end per top-level declaration, with IR generation per function.
  EXPECT_NE(child_named(p, front, "parse declaration"), kNoPhase);
  std::set<std::string> generated;
  for (const Phase& phase : p.phases) {
    if (phase.name == "IR generation") generated.insert(phase.detail);
  }
  EXPECT_EQ(generated, (std::set<std::string>{"checksum", "init_weights", "classify", "run"}));

  // The plugin's section ran in the optimizer, code generation's in its own
  // phase: every pass within its phase's time. The phases come from clang's
  // trace, in whole microseconds of the system clock, the passes from the
  // steady clock: they agree to within a few microseconds.
  constexpr Nanoseconds kAlignment = 20'000;
  ASSERT_EQ(p.sections.size(), 2u);
  EXPECT_EQ(p.sections[0].phase, optimizer);
  EXPECT_EQ(p.sections[1].phase, codegen);
  for (const Section& s : p.sections) {
    EXPECT_EQ(s.context, "unit.c -> unit.o");
    const Phase& in = p.phases[s.phase];
    for (const Record& rec : s.records) {
      EXPECT_GE(rec.start_ns + kAlignment, in.start_ns) << s.name_of(rec);
      EXPECT_LE(rec.start_ns + rec.inclusive_ns, in.end_ns() + kAlignment) << s.name_of(rec);
    }
  }
  // The back end's passes per function, as the legacy pass manager ran them.
  std::set<std::string> isel_on;
  for (const Record& rec : p.sections[1].records) {
    if (p.sections[1].name_of(rec) == "X86 DAG->DAG Instruction Selection") {
      isel_on.insert(std::string(p.sections[1].kernel_of(rec)));
    }
  }
  EXPECT_EQ(isel_on, (std::set<std::string>{"checksum", "init_weights", "classify", "run"}));

  // The phase table is printed after the reports.
  EXPECT_NE(r.out.find("\nPhases\nPhase "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n    code generation "), std::string::npos) << r.out;
}

TEST_F(LlvmPhasesTest, TheTopLevelPhasesCoverTheCompileOfALargerUnit) {
  const Result made = run("'" + kPython + "' '" + kGenerator + "' 40 unit.c");
  ASSERT_EQ(made.status, 0) << made.err;
  const Result r = timed_compile();
  ASSERT_EQ(r.status, 0) << r.err;
  const Profile p = load_profile((dir / "p.json").string());
  ASSERT_FALSE(p.phases.empty());
  Nanoseconds covered = 0;
  for (const Phase& phase : p.phases) {
    if (phase.parent == 0) covered += phase.duration_ns;
  }
  EXPECT_GE(static_cast<double>(covered), 0.95 * static_cast<double>(p.phases[0].duration_ns))
      << covered << " of " << p.phases[0].duration_ns;
}

TEST_F(LlvmPhasesTest, TheObjectIsAPlainCompilesAndNoFileIsLeftBesideIt) {
  fs::create_directory(dir / "plain");
  fs::copy_file(dir / "unit.c", dir / "plain/unit.c");
  const Result plain = run("sh -c \"cd plain && '" + kClang + "' -O2 -c unit.c -o unit.o\"");
  ASSERT_EQ(plain.status, 0) << plain.err;
  const Result r = timed_compile();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "unit.o"), testing::read_text(dir / "plain/unit.o"));
  EXPECT_EQ(files_in(dir),
            (std::set<std::string>{"err.txt", "out.txt", "p.json", "plain", "unit.c", "unit.o"}));
}

TEST_F(LlvmPhasesTest, AUsersOwnTimeTraceIsWrittenWhereTheyAskedAndStillRead) {
  const Result r = timed_compile("-ftime-trace");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string trace = testing::read_text(dir / "unit.json");
  EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(trace.find("\"ExecuteCompiler\""), std::string::npos);
  const Profile p = load_profile((dir / "p.json").string());
  ASSERT_FALSE(p.phases.empty());
  EXPECT_EQ(p.phases[0].name, "compile");
}

TEST_F(LlvmPhasesTest, EveryCompileOfAMakeBuildHasItsPhases) {
  fs::copy(kMakeProject, dir / "project");
  const Result r = run("'" + kCli + "' run --phases -o 'profiles/tu-%p.json' -- '" + kMake +
                       "' -C project -j2 CC='" + kClang + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // The build's summary ends with where its time went, phase by phase.
  EXPECT_NE(r.out.find("\ncompile/back end/code generation "), std::string::npos) << r.out;
  std::vector<fs::path> profiles;
  for (const auto& entry : fs::directory_iterator(dir / "profiles")) {
    profiles.push_back(entry.path());
  }
  ASSERT_EQ(profiles.size(), 3u) << r.err;
  std::set<std::string> units;
  for (const fs::path& path : profiles) {
    const Profile p = load_profile(path.string());
    ASSERT_FALSE(p.phases.empty()) << path;
    EXPECT_EQ(p.phases[0].name, "compile") << path;
    units.insert(p.phases[0].detail);
    ASSERT_EQ(p.sections.size(), 2u) << path;
    EXPECT_FALSE(p.sections[1].records.empty()) << path;
  }
  EXPECT_EQ(units, (std::set<std::string>{"sort.c -> sort.o", "strings.c -> strings.o",
                                          "vectors.c -> vectors.o"}));
  // The objects and the sources, nothing else, beside each other.
  for (const std::string& name : files_in(dir / "project")) {
    const std::string ext = fs::path(name).extension().string();
    EXPECT_TRUE(ext == ".c" || ext == ".o" || name == "Makefile") << name;
  }
}

/// The names of the failed phases of `p`, in order.
std::vector<std::string> failed_phases(const Profile& p) {
  std::vector<std::string> names;
  for (const Phase& phase : p.phases) {
    if (phase.failed()) names.push_back(phase.name);
  }
  return names;
}

TEST_F(LlvmPhasesTest, ACompileThatFailsInTheFrontEndStillWritesItsPhasesAndNamesTheFailure) {
  std::ofstream(dir / "unit.c") << "int f(void) { return 1 }\nint g(void) { return 2; }\n";
  const Result r = timed_compile();
  // Clang's own status and error, untouched.
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unit.c:1:23: error: expected ';' after return statement"),
            std::string::npos)
      << r.err;
  const Profile p = load_profile((dir / "p.json").string());
  EXPECT_TRUE(p.sections.empty());  // no pass pipeline ran
  ASSERT_FALSE(p.phases.empty());
  EXPECT_EQ(p.phases[0].name, "compile");
  EXPECT_EQ(p.phases[0].detail, "unit.c -> unit.o");
  EXPECT_EQ(failed_phases(p), (std::vector<std::string>{"compile", "front end"}));
  EXPECT_EQ(child_named(p, 0, "back end"), kNoPhase);
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"err.txt", "out.txt", "p.json", "unit.c"}));
}

TEST_F(LlvmPhasesTest, ACompileThatFailsInCodeGenerationKeepsItsPassesAndNamesTheFailure) {
  std::ofstream(dir / "unit.c")
      << "int f(int x) { __asm__ volatile(\"bogus_insn %0\" :: \"r\"(x)); return x + 1; }\n";
  const Result r = timed_compile();
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("error: invalid instruction mnemonic 'bogus_insn'"), std::string::npos)
      << r.err;
  const Profile p = load_profile((dir / "p.json").string());
  EXPECT_EQ(failed_phases(p), (std::vector<std::string>{"compile", "back end", "code generation"}));
  // What completed: the optimizer's passes and code generation's up to the
  // failure.
  ASSERT_EQ(p.sections.size(), 2u);
  EXPECT_FALSE(p.sections[0].records.empty());
  EXPECT_FALSE(p.sections[1].records.empty());
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"err.txt", "out.txt", "p.json", "unit.c"}));
}

TEST_F(LlvmPhasesTest, ACrashKeepsClangsReportAndItsReproducerWritesNoProfile) {
  std::ofstream(dir / "unit.c") << "int f(void) { return 1; }\n#pragma clang __debug crash\n";
  fs::create_directory(dir / "tmp");
  // The reproducer's files go to TMPDIR, here.
  const Result r = run("env TMPDIR='" + (dir / "tmp").string() + "' '" + kCli +
                       "' run --phases -o 'p-%p.json' -- '" + kClang + "' -O2 -c unit.c -o unit.o");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("PLEASE submit a bug report"), std::string::npos) << r.err;
  // The compile crashed before its first pass: no profile, and none of the
  // preprocessing job that wrote the reproducer.
  for (const std::string& name : files_in(dir)) {
    EXPECT_FALSE(name.starts_with("p-")) << name;
  }
}

TEST_F(LlvmPhasesTest, ACompileAPassStopsGetsThePhasesClangHeldAndNamesTheFailure) {
  fs::create_directory(dir / "tmp");
  // The spin plugin's pass fails as an LLVM pass does: a fatal error, which
  // ends the process before clang writes its trace.
  const Result r = run("env TMPDIR='" + (dir / "tmp").string() +
                       "' PASSTIMING_SPIN_PASS=GVNPass PASSTIMING_SPIN_US=fail '" + kCli +
                       "' run --phases -o 'p-%p.json' -- '" + kClang +
                       "' -O2 -c unit.c -o unit.o -fpass-plugin='" + kSpinPlugin + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("error in backend: passtiming-spin: GVNPass failed"), std::string::npos)
      << r.err;
  std::vector<std::string> profiles;
  for (const std::string& name : files_in(dir)) {
    if (name.starts_with("p-")) profiles.push_back(name);
  }
  ASSERT_EQ(profiles.size(), 1u);  // the reproducer's job writes none
  const Profile p = load_profile((dir / profiles[0]).string());
  EXPECT_EQ(check_phase_tree(p.phases), "");
  EXPECT_EQ(failed_phases(p), (std::vector<std::string>{"compile", "back end", "optimizer"}));
  const PhaseIndex front = child_named(p, 0, "front end");
  ASSERT_NE(front, kNoPhase);
  EXPECT_FALSE(p.phases[front].failed());
  EXPECT_NE(child_named(p, front, "parse declaration"), kNoPhase);
  // The passes that completed, in the optimizer.
  const PhaseIndex optimizer = child_named(p, child_named(p, 0, "back end"), "optimizer");
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].phase, optimizer);
  EXPECT_FALSE(p.sections[0].records.empty());
}

}  // namespace
}  // namespace passtiming
