// `passtiming push` without a server: the table it prints, the rows it sends
// (RowWriter, the rows of `export --to rows`), its usage errors, and a
// refused connection. tests/fleet runs it against a real ClickHouse server.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "browser/sample_profiles.h"
#include "cli_test_support.h"
#include "fleet/closed_port.h"
#include "passtiming/fleet/clickhouse_http.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/profile_json.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;
using ::passtiming::testing::closed_port;
using ::passtiming::testing::pipeline_profile;
using Json = nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RowTableTest, PrintSchemaPrintsTheOneStatement) {
  const auto r = testing::run_tool({"push", "--print-schema"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "CREATE TABLE IF NOT EXISTS pass_executions (schema_version UInt8, run_id String, "
            "host String, start_time DateTime, command String, tool String, commit String, "
            "build_id String, meta_keys Array(String), meta_values Array(String), section "
            "UInt32, context String, sequence UInt32, parent_sequence Int64, pass String, kernel "
            "String, depth UInt16, thread UInt64, start_ns UInt64, inclusive_ns UInt64, self_ns "
            "UInt64, failed UInt8) ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(start_time) "
            "ORDER BY (run_id, section, sequence)\n");
  EXPECT_EQ(r.out, row_table_ddl("pass_executions") + "\n");
  const auto named = testing::run_tool({"push", "--print-schema", "--table", "fleet.runs"});
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_TRUE(named.out.starts_with("CREATE TABLE IF NOT EXISTS fleet.runs (")) << named.out;
}

TEST(RowTableTest, TheColumnsAreTheKeysOfARowInOrder) {
  std::string text;
  write_rows(pipeline_profile(), run_identity(pipeline_profile().metadata, {}),
             [&](std::string_view piece) { text += piece; });
  const std::string line = lines_of(text).at(0);
  EXPECT_EQ(Json::parse(line).size(), row_columns().size());
  std::size_t previous = 0;
  for (const RowColumn& column : row_columns()) {
    const std::size_t at = line.find("\"" + std::string(column.name) + "\":");
    ASSERT_NE(at, std::string::npos) << column.name;
    EXPECT_GE(at, previous) << column.name;
    previous = at;
  }
}

TEST(RowTableTest, RowWriterWritesTheRowsOfWriteRowsInAnyOrder) {
  const Profile profile = pipeline_profile();
  const RunIdentity run = run_identity(profile.metadata, {{"team", "x"}});
  std::string all;
  write_rows(profile, run, [&](std::string_view piece) { all += piece; });
  const std::vector<std::string> expected = lines_of(all);

  RowWriter writer(profile, run);
  std::vector<std::size_t> first_of_section;
  std::size_t n = 0;
  for (const Section& section : profile.sections) {
    first_of_section.push_back(n);
    n += section.records.size();
  }
  ASSERT_GT(profile.sections.size(), 1u);
  // Sections backwards, records backwards: each row is still its record's.
  for (std::size_t s = profile.sections.size(); s-- > 0;) {
    for (std::size_t i = profile.sections[s].records.size(); i-- > 0;) {
      std::string row;
      writer.append(row, s, i);
      EXPECT_EQ(row, expected[first_of_section[s] + i] + "\n");
    }
  }
}

class CliPushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passtiming_push_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    profile_ = (dir_ / "pipeline.json").string();
    std::ofstream(profile_, std::ios::binary) << profile_to_json(pipeline_profile());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string profile_;
};

TEST_F(CliPushTest, UsageErrorsNameTheOption) {
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"push", profile_}, "--clickhouse"},
      {{"push", profile_, "--clickhouse", "127.0.0.1:8123"}, "--clickhouse"},
      {{"push", "--clickhouse", url}, "FILE"},
      {{"push", profile_, "--clickhouse", url, "--table", "a b"}, "--table"},
      {{"push", profile_, "--clickhouse", url, "--table", "t;DROP"}, "--table"},
      {{"push", profile_, "--clickhouse", url, "--batch-rows", "0"}, "--batch-rows"},
      {{"push", profile_, "--clickhouse", url, "--retries", "x"}, "--retries"},
      {{"push", profile_, "--clickhouse", url, "--timeout-s", "0"}, "--timeout-s"},
      {{"push", profile_, "--clickhouse", url, "--timeout-s", "-1"}, "--timeout-s"},
      {{"push", profile_, "--clickhouse", url, "--meta", "novalue"}, "--meta"},
      {{"push", profile_, profile_, "--clickhouse", url, "--meta", "run_id=r"}, "--meta run_id"},
  };
  for (const auto& [args, option] : cases) {
    const auto r = testing::run_tool(args);
    EXPECT_EQ(r.status, 2) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << option << ": " << r.err;
  }
}

TEST_F(CliPushTest, ARefusedConnectionStopsWithStatus3NamingTheUrl) {
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  const auto r = testing::run_tool({"push", profile_, "--clickhouse", url, "--retries", "0"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("passtiming push: stored 0 of 1 profile, 0 rows; gave up after 0 retries: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(" + url + ")"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CliPushTest, CredentialsNeverAppearInAMessage) {
  const std::string port = std::to_string(closed_port());
  const std::string url = "http://pusher:s3cr3t-pw@127.0.0.1:" + port +
                          "/?user=pusher&password=hunter2&Access_Token=tok42&database=ci";
  const auto r = testing::run_tool({"push", profile_, "--clickhouse", url, "--retries", "0"});
  EXPECT_EQ(r.status, 3) << r.err;
  for (const char* secret : {"s3cr3t-pw", "hunter2", "tok42"}) {
    EXPECT_EQ(r.err.find(secret), std::string::npos) << secret << ": " << r.err;
  }
  EXPECT_NE(r.err.find("(http://pusher:***@127.0.0.1:" + port +
                       "/?user=pusher&password=***&Access_Token=***&database=ci)"),
            std::string::npos)
      << r.err;
  // A URL of another scheme is refused without showing its password either.
  const auto refused =
      testing::run_tool({"push", profile_, "--clickhouse", "ftp://u:s3cr3t-pw@host/"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err.find("s3cr3t-pw"), std::string::npos) << refused.err;
}

TEST(RedactedUrlTest, OnlyTheSecretsAreHidden) {
  EXPECT_EQ(fleet::redacted_url("http://127.0.0.1:8123/?database=x"),
            "http://127.0.0.1:8123/?database=x");
  EXPECT_EQ(fleet::redacted_url("https://u:p@h/db?key=1&keyword=2&k=3&pwd"),
            "https://u:***@h/db?key=***&keyword=***&k=3&pwd");
  EXPECT_EQ(fleet::redacted_url("http://u@h/"), "http://u@h/");
  EXPECT_EQ(fleet::redacted_url("not a url"), "<the --clickhouse URL>");
}

}  // namespace
}  // namespace passtiming
