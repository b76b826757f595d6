#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli_test_support.h"
#include "test_support.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;
using ::passtiming::testing::kSpecExampleEvents;

auto run(std::vector<std::string> args) {
  return testing::run_tool(std::move(args));
}

class CliReportTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passtiming_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CliReportTest, PrintsTheSessionReport) {
  auto r = run({"report", write("ok.jsonl", kSpecExampleEvents)});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, testing::golden("report/spec_example_context.txt") + "\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(CliReportTest, ThresholdOption) {
  auto r = run({"report", write("ok.jsonl", kSpecExampleEvents), "--threshold-ms", "3000"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("(inclusive threshold: 3000.0ms)"), std::string::npos);
  EXPECT_NE(r.out.find("(1 passes skipped - under 3000.0ms inclusive threshold)"),
            std::string::npos);
}

TEST_F(CliReportTest, WarningsGoToStderr) {
  auto r = run({"report", write("cut.jsonl",
                                "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n"
                                "{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"done\"}\n"
                                "{\"ev\":\"after\",\"t_ns\":5,\"pass\":\"done\"}\n"
                                "{\"ev\":\"before\",\"t_ns\":6,\"pass\":\"running\"}\n")});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("  1  done "), std::string::npos);
  EXPECT_EQ(r.err,
            "WARNING:tilelang.pass_timing:Discarding 1 incomplete pass timing frame(s): running\n");
}

TEST_F(CliReportTest, MalformedLogIsOneLineOnStderrAndExitTwo) {
  const std::string path = write("bad.jsonl",
                                 "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n{\"ev\":\"launch\",\"t_ns\":1}"
                                 "\n{\"ev\":\"exit_ctx\",\"t_ns\":2}\n");
  auto r = run({"report", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, path + ":2: unknown event 'launch'\n");
}

TEST_F(CliReportTest, BadThresholdIsExitTwo) {
  for (const char* bad : {"-1", "nan", "inf", "5ms"}) {
    auto r = run({"report", write("ok.jsonl", kSpecExampleEvents), "--threshold-ms", bad});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_EQ(r.out, "");
    // Refused while parsing: one line naming the option and the value.
    EXPECT_EQ(r.err, std::string("passtiming report: --threshold-ms: must be a finite "
                                 "non-negative number (got '") +
                         bad + "') (see 'passtiming report --help')\n");
  }
}

TEST_F(CliReportTest, MissingFileAndMissingArgument) {
  auto r = run({"report", (dir_ / "absent.jsonl").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("absent.jsonl"), std::string::npos);
  auto usage = run({"report"});
  EXPECT_EQ(usage.status, 2);
  EXPECT_NE(usage.err.find("EVENTS is required"), std::string::npos) << usage.err;
}

}  // namespace
}  // namespace passtiming
