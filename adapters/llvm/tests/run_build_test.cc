// `passtiming run` over a whole real build: a CMake project of two
// directories configured for clang-19 and built through `passtiming run`,
// whose compilers each work in their own directory. The profiles land where
// run was asked (relative to run's working directory, the directories
// made), and a profile that cannot be written is counted, named and ends
// run with a non-zero status.

#include <gtest/gtest.h>

#include <algorithm>
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
const std::string kCmake = PASSTIMING_CMAKE;
const std::string kMake = PASSTIMING_MAKE;

using Result = testing::ShellResult;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// The JSON files directly in `dir`, sorted.
std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class RunBuildTest : public testing::ShellTest {
 protected:
  RunBuildTest() : ShellTest("runbuild") {}

  /// Writes the project into `project/`: a library in lib/, a program in
  /// app/, two translation units each.
  void write_project() {
    write_file(dir / "project/CMakeLists.txt",
               "cmake_minimum_required(VERSION 3.20)\n"
               "project(runbuild C)\n"
               "add_subdirectory(lib)\n"
               "add_subdirectory(app)\n");
    write_file(dir / "project/lib/CMakeLists.txt", "add_library(shapes STATIC area.c scale.c)\n");
    write_file(dir / "project/lib/area.c",
               "double area(double w, double h) { return w * h; }\n"
               "double total_area(const double* w, const double* h, int n) {\n"
               "  double t = 0;\n"
               "  for (int i = 0; i < n; ++i) t += area(w[i], h[i]);\n"
               "  return t;\n"
               "}\n");
    write_file(dir / "project/lib/scale.c",
               "void scale(double* v, int n, double k) {\n"
               "  for (int i = 0; i < n; ++i) v[i] *= k;\n"
               "}\n");
    write_file(dir / "project/app/CMakeLists.txt",
               "add_executable(app main.c fill.c)\n"
               "target_link_libraries(app PRIVATE shapes)\n");
    write_file(dir / "project/app/fill.c",
               "void fill(double* v, int n) {\n"
               "  for (int i = 0; i < n; ++i) v[i] = i * 0.5;\n"
               "}\n");
    write_file(dir / "project/app/main.c",
               "void fill(double*, int);\n"
               "void scale(double*, int, double);\n"
               "double total_area(const double*, const double*, int);\n"
               "int main(void) {\n"
               "  double w[8], h[8];\n"
               "  fill(w, 8); fill(h, 8); scale(h, 8, 2.0);\n"
               "  return total_area(w, h, 8) > 0 ? 0 : 1;\n"
               "}\n");
  }

  /// Configures `project/` into `build` for clang-19 (writing the project
  /// first when it is not there).
  void configure(const std::string& build = "build") {
    if (!fs::exists(dir / "project")) write_project();
    const Result r =
        run("'" + kCmake + "' -S project -B " + build +
            " -G 'Unix Makefiles' -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER='" + kClang + "'");
    ASSERT_EQ(r.status, 0) << r.err << r.out;
  }

  /// `passtiming run --no-report -o PATTERN -- BUILD_COMMAND` in the scratch
  /// directory.
  Result timed_build(const std::string& pattern, const std::string& build_command) {
    return run("'" + kCli + "' run --no-report -o '" + pattern + "' -- " + build_command);
  }
};

constexpr std::size_t kUnits = 4;

TEST_F(RunBuildTest, CmakeBuildWritesOneProfilePerUnitUnderRunsDirectory) {
  ASSERT_NO_FATAL_FAILURE(configure());
  ASSERT_FALSE(fs::exists(dir / "profiles"));
  const Result r = timed_build("profiles/tu-%p.json", "'" + kCmake + "' --build build -j2");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const std::vector<fs::path> profiles = json_files(dir / "profiles");
  ASSERT_EQ(profiles.size(), kUnits) << r.err;
  for (const fs::path& path : profiles) {
    const Profile profile = load_profile(path.string());
    ASSERT_FALSE(profile.sections.empty()) << path;
    EXPECT_FALSE(profile.sections.front().records.empty()) << path;
  }
  // The compilers worked in build/lib and build/app: nothing went there.
  EXPECT_FALSE(fs::exists(dir / "build/lib/profiles"));
  EXPECT_FALSE(fs::exists(dir / "build/app/profiles"));
  EXPECT_EQ(count_of(r.err, "passtiming run: "), 1u) << r.err;
  EXPECT_NE(r.err.find("passtiming run: wrote 4 profiles\n"), std::string::npos) << r.err;
}

/// The contexts of `profiles`' sections, sorted.
std::vector<std::string> contexts_of(const std::vector<fs::path>& profiles) {
  std::vector<std::string> contexts;
  for (const fs::path& path : profiles) {
    for (const Section& s : load_profile(path.string()).sections) contexts.push_back(s.context);
  }
  std::sort(contexts.begin(), contexts.end());
  return contexts;
}

TEST_F(RunBuildTest, EachUnitsSectionNamesItsSourceAndObjectAndMergeKeepsWhoRecordedIt) {
  ASSERT_NO_FATAL_FAILURE(configure());
  Result r = timed_build("profiles/tu-%p.json", "'" + kCmake + "' --build build -j2");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const std::vector<fs::path> profiles = json_files(dir / "profiles");
  ASSERT_EQ(profiles.size(), kUnits) << r.err;
  // CMake names each source by its absolute path and each object relative
  // to the target's directory.
  const std::string project = (dir / "project").string();
  EXPECT_EQ(
      contexts_of(profiles),
      (std::vector<std::string>{project + "/app/fill.c -> CMakeFiles/app.dir/fill.c.o",
                                project + "/app/main.c -> CMakeFiles/app.dir/main.c.o",
                                project + "/lib/area.c -> CMakeFiles/shapes.dir/area.c.o",
                                project + "/lib/scale.c -> CMakeFiles/shapes.dir/scale.c.o"}));

  // Merged, each section still says which profile, process and host it
  // came from.
  std::string inputs;
  for (const fs::path& path : profiles) inputs += " 'profiles/" + path.filename().string() + "'";
  r = run("'" + kCli + "' merge" + inputs + " -o merged.json");
  ASSERT_EQ(r.status, 0) << r.err;
  const Profile merged = load_profile((dir / "merged.json").string());
  ASSERT_EQ(merged.sections.size(), kUnits);
  for (std::size_t i = 0; i < kUnits; ++i) {
    const Profile input = load_profile(profiles[i].string());
    const Section& s = merged.sections[i];
    EXPECT_EQ(s.context, input.sections.front().context);
    EXPECT_EQ(s.origin.file, "profiles/" + profiles[i].filename().string());
    EXPECT_EQ(s.origin.metadata.pid, input.metadata.pid);
    EXPECT_EQ(s.origin.metadata.command, input.metadata.command);
    EXPECT_EQ(s.origin.metadata.source, "llvm");
  }
  // The report names each section's origin under its context, with the
  // neutral title of a compiler other than TileLang's.
  r = run("'" + kCli + "' report merged.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "\nPass Timing Report\n"), kUnits) << r.out;
  EXPECT_EQ(count_of(r.out, "TileLang"), 0u) << r.out;
  EXPECT_EQ(count_of(r.out, "Top 10 Slowest Passes by Self Time:"), kUnits) << r.out;
  const Profile first = load_profile(profiles[0].string());
  EXPECT_NE(r.out.find("Context: " + first.sections.front().context + "\nFrom: profiles/" +
                       profiles[0].filename().string() + " (pid " +
                       std::to_string(first.metadata.pid) + " on " + first.metadata.host + ")\n"),
            std::string::npos)
      << r.out;
  // summary by file and pass: each profile file's passes, as the inputs
  // named them, in the merged profile too.
  r = run("'" + kCli + "' summary merged.json --by file,pass --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"by\":\"file,pass\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"keys\":{\"file\":\"profiles/" + profiles[0].filename().string() +
                       "\",\"pass\":\"InstCombinePass\"}"),
            std::string::npos)
      << r.out;
}

TEST_F(RunBuildTest, MakeDashCWithRepeatMakesEachRunsDirectory) {
  ASSERT_NO_FATAL_FAILURE(configure());
  const Result r = run("'" + kCli + "' run --no-report --repeat 2 -o 'runs/%r/tu-%p.json' -- '" +
                       kMake + "' -s -B -C build");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(json_files(dir / "runs/1").size(), kUnits);
  EXPECT_EQ(json_files(dir / "runs/2").size(), kUnits);
  EXPECT_NE(r.err.find("passtiming run: wrote 8 profiles\n"), std::string::npos) << r.err;
}

// A build of several compiles ends with one summary of them all, not a
// report each; --reports asks for each compile's report.
TEST_F(RunBuildTest, ABuildEndsWithOneSummaryOfItsCompilesAndReportsOnRequest) {
  ASSERT_NO_FATAL_FAILURE(configure());
  Result r = run("'" + kCli + "' run --metrics cpu -- '" + kMake + "' -s -B -C build");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "Pass Timing Report"), 0u) << r.out;
  EXPECT_NE(r.out.find("passtiming run: 4 compiles timed; the passes, the files and the functions "
                       "with the most self CPU time among them (each compile's report: "
                       "--reports)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Pass Timing Summary by pass, measure: cpu\n"), std::string::npos) << r.out;
  // The files are the translation units, each named with its object.
  EXPECT_NE(r.out.find("Pass Timing Summary by context, measure: cpu\n"), std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find((dir / "project/lib/scale.c").string() + " -> CMakeFiles/shapes.dir/scale.c.o "),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Pass Timing Summary by kernel, measure: cpu\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Profiles: 4 "), std::string::npos) << r.out;
  // The summary's profiles were run's own: nothing was left in the project.
  EXPECT_TRUE(json_files(dir).empty());
  EXPECT_TRUE(json_files(dir / "build").empty());

  r = run("'" + kCli + "' run --reports -- '" + kMake + "' -s -B -C build");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "Pass Timing Report"), kUnits) << r.out;
  EXPECT_EQ(r.out.find("Pass Timing Summary"), std::string::npos) << r.out;
}

TEST_F(RunBuildTest, AWorkingDirectoryWithAPercentSignIsTakenLiterally) {
  // run's own directory enters every pattern: its '%p' must not become a pid.
  const std::string work = "work%p%n";
  fs::create_directories(dir / work);
  std::ofstream(dir / work / "one.c") << "int one(int x) { return x * 3 + 1; }\n";
  const Result r =
      run("sh -c \"cd '" + work + "' && '" + kCli + "' run --no-report -o 'out/%p.json' -- '" +
          kClang + "' -O2 -c one.c -o one.o\"");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_files(dir / work / "out").size(), 1u) << r.err;
  EXPECT_NE(r.err.find("passtiming run: wrote 1 profile\n"), std::string::npos) << r.err;
}

TEST_F(RunBuildTest, AProfileDirectoryThatCannotBeMadeIsCountedAndFailsRun) {
  ASSERT_NO_FATAL_FAILURE(configure());
  std::ofstream(dir / "blocker") << "a regular file\n";
  const Result r = timed_build("blocker/profiles/tu-%p.json", "'" + kCmake + "' --build build -j2");
  // The build itself succeeded; the missing profiles are run's status 3.
  EXPECT_EQ(r.status, 3) << r.err << r.out;
  EXPECT_TRUE(fs::exists(dir / "build/app/app"));
  EXPECT_EQ(count_of(r.err, "passtiming run: "), 1u) << r.err;
  const std::string summary = "passtiming run: wrote 0 profiles, 4 failed: PASSTIMING_PROFILE: " +
                              (dir / "blocker/profiles/tu-").string();
  EXPECT_NE(r.err.find(summary), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Not a directory\n"), std::string::npos) << r.err;
  // The summary is the last line.
  EXPECT_EQ(r.err.rfind("passtiming run: "), r.err.rfind('\n', r.err.size() - 2) + 1) << r.err;
}

TEST_F(RunBuildTest, APlaceholderDirectoryIsNotMadeAheadAndItsFailuresAreCounted) {
  ASSERT_NO_FATAL_FAILURE(configure());
  const Result r = timed_build("profiles/%p/tu.json", "'" + kCmake + "' --build build -j2");
  EXPECT_EQ(r.status, 3) << r.err;
  // The placeholder-free part was made; the per-compile one cannot be.
  EXPECT_TRUE(fs::is_directory(dir / "profiles"));
  EXPECT_TRUE(fs::is_empty(dir / "profiles"));
  EXPECT_NE(r.err.find("passtiming run: wrote 0 profiles, 4 failed: PASSTIMING_PROFILE: " +
                       (dir / "profiles/").string()),
            std::string::npos)
      << r.err;
}

TEST_F(RunBuildTest, AFailingCompileKeepsMakesStatusAndTheCompilersError) {
  write_project();
  write_file(dir / "project/lib/scale.c", "void scale(double* v, int n, double k) { v[0] = k }\n");
  ASSERT_NO_FATAL_FAILURE(configure());
  ASSERT_NO_FATAL_FAILURE(configure("plain"));
  // The same build without passtiming, for the status make gives.
  const Result plain = run("'" + kMake + "' -C plain");
  ASSERT_NE(plain.status, 0) << plain.err;

  const Result r = timed_build("profiles/tu-%p.json", "'" + kMake + "' -C build");
  EXPECT_EQ(r.status, plain.status) << r.err;
  EXPECT_NE(r.err.find("scale.c:1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error: expected ';'"), std::string::npos) << r.err;
  // The units compiled before the error still wrote their profiles.
  const std::vector<fs::path> profiles = json_files(dir / "profiles");
  EXPECT_FALSE(profiles.empty());
  for (const fs::path& path : profiles) EXPECT_NO_THROW(load_profile(path.string())) << path;
  EXPECT_NE(r.err.find("passtiming run: wrote " + std::to_string(profiles.size()) + " profile"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace passtiming
