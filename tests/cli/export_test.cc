// `passtiming export --to rows|otlp`: golden rows and spans of the library's
// pipeline profile, the run identity, and bad input.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "browser/sample_profiles.h"
#include "cli_test_support.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/profile_json.h"
#include "test_support.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;
using ::passtiming::testing::pipeline_profile;
using ::passtiming::testing::read_file;
using Json = nlohmann::json;

class CliExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passtiming_export_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pipeline_ = (dir_ / "pipeline.json").string();
    std::ofstream(pipeline_, std::ios::binary) << profile_to_json(pipeline_profile());
  }
  void TearDown() override { fs::remove_all(dir_); }
  /// Compares with tests/golden/fleet/NAME, or rewrites it when
  /// PASSTIMING_UPDATE_GOLDEN is set (then review the diff).
  static void expect_golden(const std::string& name, const std::string& actual) {
    const std::string path = std::string(PASSTIMING_GOLDEN_DIR) + "/fleet/" + name;
    if (std::getenv("PASSTIMING_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << actual;
    EXPECT_EQ(actual, read_file(path)) << "golden file " << path;
  }
  fs::path dir_;
  std::string pipeline_;
};

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

TEST_F(CliExportTest, RowsMatchTheGoldenFile) {
  const auto r =
      testing::run_tool({"export", pipeline_, "--to", "rows", "--meta", "commit=c0ffee", "--meta",
                         "team=compilers", "--meta", "run_id=run-1", "--meta", "build_id=b-9"});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_golden("pipeline.rows.jsonl", r.out);
}

TEST_F(CliExportTest, RowsCarryEveryRecordWithItsFigures) {
  const auto r = testing::run_tool({"export", pipeline_, "--to", "rows"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<Json> rows = json_lines(r.out);
  const Profile profile = pipeline_profile();
  ASSERT_EQ(rows.size(), profile.record_count());
  std::size_t i = 0;
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    const Section& section = profile.sections[s];
    for (const Record& record : section.records) {
      const Json& row = rows[i++];
      EXPECT_EQ(row["schema_version"], kRowSchemaVersion);
      EXPECT_EQ(row["section"], s);
      EXPECT_EQ(row["context"], section.context);
      EXPECT_EQ(row["pass"], std::string(section.name_of(record)));
      EXPECT_EQ(row["kernel"], std::string(section.kernel_of(record)));
      EXPECT_EQ(row["sequence"], record.sequence);
      EXPECT_EQ(row["parent_sequence"],
                record.parent == kNoParent ? std::int64_t{-1} : std::int64_t{record.parent});
      EXPECT_EQ(row["depth"], record.depth);
      EXPECT_EQ(row["start_ns"], record.start_ns);
      EXPECT_EQ(row["inclusive_ns"], record.inclusive_ns);
      EXPECT_EQ(row["self_ns"], record.self_ns);
      EXPECT_EQ(row["run_id"], rows[0]["run_id"]);
    }
  }
}

TEST_F(CliExportTest, OtlpMatchesTheGoldenFile) {
  const auto r = testing::run_tool({"export", pipeline_, "--to", "otlp", "--meta", "run_id=run-1",
                                    "--meta", "commit=c0ffee", "--meta", "build_id=b-9"});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_golden("pipeline.otlp.json", r.out);
}

/// The span tree is the profile's: one root per section, one span per
/// record under the span of its parent record, ends within the parent's.
TEST_F(CliExportTest, OtlpSpanTreeIsTheProfilesTree) {
  const auto r = testing::run_tool({"export", pipeline_, "--to", "otlp"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"];
  const Profile profile = pipeline_profile();
  ASSERT_EQ(spans.size(), profile.record_count() + profile.sections.size());
  std::map<std::string, Json> by_id;
  for (const Json& span : spans) {
    EXPECT_TRUE(by_id.emplace(span["spanId"].get<std::string>(), span).second) << "repeated id";
    EXPECT_EQ(span["spanId"].get<std::string>().size(), 16u);
    EXPECT_EQ(span["traceId"].get<std::string>().size(), 32u);
  }
  std::size_t roots = 0;
  for (const Json& span : spans) {
    if (!span.contains("parentSpanId")) {
      ++roots;
      continue;
    }
    const Json& parent = by_id.at(span["parentSpanId"].get<std::string>());
    EXPECT_EQ(parent["traceId"], span["traceId"]);
    EXPECT_LE(std::stoull(parent["startTimeUnixNano"].get<std::string>()),
              std::stoull(span["startTimeUnixNano"].get<std::string>()));
    EXPECT_GE(std::stoull(parent["endTimeUnixNano"].get<std::string>()),
              std::stoull(span["endTimeUnixNano"].get<std::string>()));
  }
  EXPECT_EQ(roots, profile.sections.size());
}

TEST_F(CliExportTest, TheSameProfileGetsTheSameRunIdAndSpans) {
  const auto a = testing::run_tool({"export", pipeline_, "--to", "otlp"});
  const auto b = testing::run_tool({"export", pipeline_, "--to", "otlp"});
  ASSERT_EQ(a.status, 0);
  EXPECT_EQ(a.out, b.out);
}

/// `--max-line-bytes`: every line at most that, newline included, each a
/// whole document; the spans of all lines are those of the one line the
/// default limit gives this small profile.
TEST_F(CliExportTest, OtlpLinesStayWithinMaxLineBytes) {
  const auto whole = testing::run_tool({"export", pipeline_, "--to", "otlp"});
  ASSERT_EQ(whole.status, 0) << whole.err;
  const auto split =
      testing::run_tool({"export", pipeline_, "--to", "otlp", "--max-line-bytes", "4096"});
  ASSERT_EQ(split.status, 0) << split.err;
  auto spans = [](const std::string& text) {
    Json all = Json::array();
    for (const Json& line : json_lines(text)) {
      for (const Json& span : line["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
        all.push_back(span);
      }
    }
    return all;
  };
  std::istringstream in(split.out);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) EXPECT_LE(line.size() + 1, 4096u);
  EXPECT_GT(lines, 1u);
  EXPECT_EQ(spans(split.out), spans(whole.out));
}

TEST_F(CliExportTest, ASpanTooLargeForALineNamesItsInputAndSpan) {
  Profile profile = pipeline_profile();
  Section& section = profile.sections[0];
  section.records[0].name = section.names.intern(std::string(5000, 'p'));
  const std::string large = (dir_ / "large_name.json").string();
  std::ofstream(large, std::ios::binary) << profile_to_json(profile);
  const std::string out = (dir_ / "spans.jsonl").string();
  const auto r =
      testing::run_tool({"export", large, "--to", "otlp", "--max-line-bytes", "4096", "-o", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(large + ": OTLP: the span of pass 'ppp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(section 0, sequence " + std::to_string(section.records[0].sequence)),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  const auto fits = testing::run_tool({"export", large, "--to", "otlp", "-o", out});
  EXPECT_EQ(fits.status, 0) << fits.err;
}

TEST_F(CliExportTest, MaxLineBytesIsCheckedAndOnlyForOtlp) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--to", "otlp", "--max-line-bytes", "4095"},
        std::vector<std::string>{"--to", "otlp", "--max-line-bytes", "1MiB"},
        std::vector<std::string>{"--to", "rows", "--max-line-bytes", "4096"}}) {
    std::vector<std::string> command{"export", pipeline_};
    command.insert(command.end(), args.begin(), args.end());
    const auto r = testing::run_tool(command);
    EXPECT_EQ(r.status, 2) << args[3];
    EXPECT_NE(r.err.find("--max-line-bytes"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(RunIdentityTest, MetaWinsThenTheCiVariablesThenTheGuess) {
  ProfileMetadata metadata;
  metadata.host = "builder-7";
  metadata.start_time = "2026-12-06T04:39:43Z";
  metadata.command = "/usr/bin/clang-19 -O2 -c a.c";
  metadata.pid = 42;
  const MapEnvironment ci{{"GITHUB_SHA", "abc123"}, {"CI_PIPELINE_ID", "77"}};
  const RunIdentity from_ci = run_identity(metadata, {}, ci);
  EXPECT_EQ(from_ci.tool, "clang");
  EXPECT_EQ(from_ci.commit, "abc123");
  EXPECT_EQ(from_ci.build_id, "77");
  EXPECT_EQ(from_ci.start_time, "2026-12-06 04:39:43");
  EXPECT_EQ(from_ci.run_id.size(), 16u);
  EXPECT_EQ(run_identity(metadata, {}, MapEnvironment()).run_id, from_ci.run_id);

  const RunIdentity given =
      run_identity(metadata, {{"commit", "def"}, {"tool", "tvm"}, {"team", "x"}}, ci);
  EXPECT_EQ(given.commit, "def");
  EXPECT_EQ(given.tool, "tvm");
  ASSERT_EQ(given.meta.size(), 1u);
  EXPECT_EQ(given.meta[0], std::make_pair(std::string("team"), std::string("x")));

  ProfileMetadata other = metadata;
  other.pid = 43;
  EXPECT_NE(run_identity(other, {}, ci).run_id, from_ci.run_id);
  other.command = "python3 gemm.py";
  EXPECT_EQ(run_identity(other, {}, ci).tool, "tilelang");
  other.command = "passtiming-mlir-opt in.mlir";
  EXPECT_EQ(run_identity(other, {}, ci).tool, "mlir");
}

TEST_F(CliExportTest, BadMetaIsAUsageErrorNamingIt) {
  const auto r = testing::run_tool({"export", pipeline_, "--to", "rows", "--meta", "novalue"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--meta 'novalue': expected KEY=VALUE"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CliExportTest, AMalformedInputNamesTheFileAndLine) {
  const std::string bad = (dir_ / "bad.json").string();
  std::ofstream(bad) << "{\"format\": \"passtiming-profile\", \"version\": 1, \"sections\": [}\n";
  const auto r = testing::run_tool({"export", bad, "--to", "rows"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad + ":"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace passtiming
