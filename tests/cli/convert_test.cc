#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "browser/sample_profiles.h"
#include "cli_test_support.h"
#include "passtiming/formats/chrome_trace.h"
#include "passtiming/formats/html_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "test_support.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;
using ::passtiming::testing::pipeline_profile;
using ::passtiming::testing::read_file;
using Json = nlohmann::json;

auto run(std::vector<std::string> args) {
  return testing::run_tool(std::move(args));
}

class CliConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passtiming_convert_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return path(name);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// The library's pipeline profile, written as a JSON profile.
  std::string pipeline_file() {
    return write("pipeline.json", profile_to_json(pipeline_profile()));
  }
  fs::path dir_;
};

TEST_F(CliConvertTest, ProfileToChromeMatchesTheGoldenTrace) {
  const auto r = run({"convert", pipeline_file(), "--to", "chrome", "-o", path("out.trace.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(path("out.trace.json")),
            read_file(std::string(PASSTIMING_GOLDEN_DIR) + "/chrome/pipeline.json"));
}

TEST_F(CliConvertTest, EventLogToChromeOnStdout) {
  const auto r = run(
      {"convert", write("log.jsonl", ::passtiming::testing::kSpecExampleEvents), "--to", "chrome"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Json trace = Json::parse(r.out);
  std::vector<Json> complete;
  for (const Json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") complete.push_back(e);
  }
  ASSERT_EQ(complete.size(), 2u);
  EXPECT_EQ(complete[0].at("name"), "parent");
  EXPECT_EQ(complete[0].at("ts"), 0);
  EXPECT_EQ(complete[0].at("dur"), 5000000);
  EXPECT_EQ(complete[1].at("name"), "child");
  EXPECT_EQ(complete[1].at("ts"), 1000000);
  EXPECT_EQ(complete[1].at("args").at("kernel"), "matmul");
  EXPECT_EQ(complete[1].at("args").at("context"), "stage=jit-lower, kernel=matmul");
}

TEST_F(CliConvertTest, ProfileToHtmlIsTheLibrarysPage) {
  const std::string input = pipeline_file();
  const auto r = run({"convert", input, "--to", "html", "--top", "3", "-o", path("r.html")});
  ASSERT_EQ(r.status, 0) << r.err;
  HtmlOptions options;
  options.title = "Pass timing report: pipeline.json";
  options.top_n = 3;
  // The page of the profile as read back (its name table is in file order).
  EXPECT_TRUE(read_file(path("r.html")) == render_html_report(load_profile(input), options));
  const auto titled = run({"convert", input, "--to", "html", "--title", "Nightly <build>"});
  ASSERT_EQ(titled.status, 0);
  EXPECT_NE(titled.out.find("<title>Nightly &lt;build&gt;</title>"), std::string::npos);
}

TEST_F(CliConvertTest, ProfileWithMetricsToHtmlCarriesThem) {
  const Profile profile = ::passtiming::testing::metrics_profile();
  const auto r = run({"convert", write("metrics.json", profile_to_json(profile)), "--to", "html"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string open = "id=\"passtiming-data\">";
  const std::size_t begin = r.out.find(open) + open.size();
  const Json page = Json::parse(r.out.substr(begin, r.out.find("</script>", begin) - begin));
  EXPECT_EQ(page.at("metrics").at("recorded"), Json({"cpu", "rss", "ir"}));
  EXPECT_EQ(page.at("metrics").at("unavailable"),
            Json({{"instructions", "perf_event_open: No such file or directory"}}));
  // Each record's numbers sit beside it: found by sequence in the profile.
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    const Section& section = profile.sections[s];
    const Json& records = page.at("sections").at(s).at("records");
    const Json& metrics = page.at("sections").at(s).at("metrics");
    ASSERT_EQ(metrics.size(), section.records.size());
    for (std::size_t j = 0; j < records.size(); ++j) {
      std::size_t i = 0;
      while (section.records.at(i).sequence != records.at(j).at(0).get<std::uint32_t>()) ++i;
      const RecordMetrics& m = section.metrics.at(i);
      EXPECT_EQ(metrics.at(j),
                Json({m.cpu_ns, m.cpu_self_ns, m.rss_start_bytes, m.rss_end_bytes, m.rss_peak_bytes,
                      m.ir_before, m.ir_after, -1, -1, static_cast<int>(m.ir_flags)}))
          << "section " << s << " record " << j;
    }
  }
}

TEST_F(CliConvertTest, ToJsonRoundTripsAProfileByteForByte) {
  const std::string input = pipeline_file();
  const auto r = run({"convert", input, "--to", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, read_file(input));
  const auto from_log = run(
      {"convert", write("log.jsonl", ::passtiming::testing::kSpecExampleEvents), "--to", "json"});
  ASSERT_EQ(from_log.status, 0) << from_log.err;
  EXPECT_NE(from_log.out.find("\"parent\""), std::string::npos);
}

TEST_F(CliConvertTest, MalformedInputsNameFileAndLine) {
  const std::string truncated =
      write("cut.json", profile_to_json(pipeline_profile()).substr(0, 300));
  auto r = run({"convert", truncated, "--to", "chrome", "-o", path("never.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(truncated + ":", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(path("never.json")));

  const std::string bad_log = write("bad.jsonl",
                                    "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n"
                                    "{\"ev\":\"before\",\"t_ns\":\"soon\",\"pass\":\"p\"}\n");
  r = run({"convert", bad_log, "--to", "html"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(bad_log + ":2:", 0), 0u) << r.err;
  EXPECT_EQ(r.out, "");

  r = run({"convert", path("missing.json"), "--to", "chrome"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(path("missing.json")), std::string::npos) << r.err;
}

TEST_F(CliConvertTest, UsageErrorsExitTwo) {
  const std::string input = pipeline_file();
  EXPECT_EQ(run({"convert", input, "--to", "svg"}).status, 2);
  EXPECT_EQ(run({"convert", input}).status, 2);
  EXPECT_EQ(run({"convert", input, "--to", "html", "--top", "0"}).status, 2);
  const auto r = run({"convert", input, "--to", "chrome", "-o", path("no/such/dir/out.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no/such/dir/out.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace passtiming
