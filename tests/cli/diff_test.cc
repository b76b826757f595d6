#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "passtiming/formats/profile_json.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::run_tool;
using testing::sample_session_profile;
using testing::ScratchDir;

/// Profiles of the sample session with tl.LowerHost at the given seconds.
std::string write_run(const ScratchDir& dir, const std::string& name, double host_s) {
  const std::string path = dir.file(name);
  write_profile_file(sample_session_profile(host_s), path);
  return path;
}

TEST(CliDiffTest, RegressionAboveTheLimitExitsWith1) {
  ScratchDir dir;
  const std::string base = write_run(dir, "base.json", 0.25);
  const std::string slow = write_run(dir, "new.json", 0.5);
  auto r = run_tool({"diff", base, slow, "--fail-above", "50"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, golden("profile/diff_regression.txt"));
  EXPECT_EQ(run_tool({"diff", base, slow, "--fail-above", "100"}).status, 0);  // exactly +100 %
  EXPECT_EQ(run_tool({"diff", base, slow, "--fail-above", "50", "--min-ms", "600"}).status, 0);
  EXPECT_EQ(run_tool({"diff", base, slow}).status, 0);  // no gate without --fail-above
  EXPECT_EQ(run_tool({"diff", slow, base, "--fail-above", "0"}).status, 0);  // faster is fine
}

TEST(CliDiffTest, SeveralProfilesPerSideCompareMedians) {
  ScratchDir dir;
  const auto r = run_tool({"diff", "--format", "json", "--fail-above", "10", "--base",
                           write_run(dir, "b1.json", 0.25), write_run(dir, "b2.json", 0.3),
                           write_run(dir, "b3.json", 0.9), "--new", write_run(dir, "n1.json", 0.3),
                           write_run(dir, "n2.json", 0.3)});
  EXPECT_EQ(r.status, 0) << r.err;  // medians 0.3 s and 0.3 s: the 0.9 s outlier is ignored
  EXPECT_NE(r.out.find("{\"key\":\"tl.LowerHost\",\"status\":\"ok\",\"base_self_ns\":300000000,"
                       "\"new_self_ns\":300000000,\"delta_ns\":0,\"delta_percent\":0,"
                       "\"base_executions\":1,\"new_executions\":1}"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "{\"by\":\"pass\",\"base_profiles\":3,\"new_profiles\":2,\"fail_above_pct\":10,"
            "\"min_ms\":0,\"regressions\":0,\"rows\":[");
}

TEST(CliDiffTest, AddedAndRemovedPasses) {
  ScratchDir dir;
  const std::string base = write_run(dir, "base.json", 0.25);
  Profile renamed = parse_profile_json(testing::read_file(base), "base.json");
  renamed.sections[1].names = NameTable();
  for (Record& r : renamed.sections[1].records) {
    r.name =
        renamed.sections[1].names.intern(r.sequence == 0 ? "tl.LowerHostV2" : "tl.LowerDevice");
    r.kernel = renamed.sections[1].names.intern(r.sequence == 0 ? "" : "matmul");
  }
  const std::string next = dir.file("renamed.json");
  write_profile_file(renamed, next);
  const auto r = run_tool({"diff", base, next, "--fail-above", "1", "--format", "json"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("{\"key\":\"tl.LowerHost\",\"status\":\"removed\""), std::string::npos);
  EXPECT_NE(r.out.find("{\"key\":\"tl.LowerHostV2\",\"status\":\"added\""), std::string::npos);
}

TEST(CliDiffTest, UsageErrorsExitWith2) {
  ScratchDir dir;
  const std::string base = write_run(dir, "base.json", 0.25);
  EXPECT_EQ(run_tool({"diff", base}).status, 2);
  EXPECT_EQ(run_tool({"diff", base, base, "--base", base, "--new", base}).status, 2);
  EXPECT_EQ(run_tool({"diff", base, base, "--fail-above", "-5"}).status, 2);
  const auto r = run_tool({"diff", base, dir.file("absent.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, dir.file("absent.json") + ": cannot open: No such file or directory\n");
}

}  // namespace
}  // namespace passtiming
