#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "cli_test_support.h"
#include "host_support.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::LogCapture;
using testing::run_sample_session;
using testing::run_tool;
using testing::sample_session_profile;
using testing::ScratchDir;

/// Two compiles of the sample session, the second with a slower tl.LowerHost.
struct TwoProfiles {
  ScratchDir dir;
  std::string fast, slow;
  TwoProfiles() {
    fast = dir.file("fast.json");
    slow = dir.file("slow.json");
    write_profile_file(sample_session_profile(0.25), fast);
    write_profile_file(sample_session_profile(0.5), slow);
  }
};

TEST(CliSummaryTest, ByPassText) {
  TwoProfiles p;
  const auto r = run_tool({"summary", p.fast, p.slow});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, golden("profile/summary_by_pass.txt"));
  EXPECT_EQ(r.err, "");
}

TEST(CliSummaryTest, ByKernelJsonWithTopAndThreshold) {
  TwoProfiles p;
  auto r = run_tool({"summary", "--by", "kernel", "--format", "json", p.fast, p.slow});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"by\":\"kernel\",\"profiles\":2,\"total_self_ns\":11000000000,\"hidden_rows\":0,"
            "\"rows\":[\n"
            "{\"key\":\"\",\"executions\":4,\"total_inclusive_ns\":10750000000,"
            "\"total_self_ns\":6750000000,\"mean_self_ns\":1687500000,\"p50_self_ns\":500000000,"
            "\"p95_self_ns\":3000000000,\"max_self_ns\":3000000000,\"self_share\":"
            "0.6136363636363636},\n"
            "{\"key\":\"matmul\",\"executions\":4,\"total_inclusive_ns\":4250000000,"
            "\"total_self_ns\":4250000000,\"mean_self_ns\":1062500000,\"p50_self_ns\":125000000,"
            "\"p95_self_ns\":2000000000,\"max_self_ns\":2000000000,\"self_share\":"
            "0.38636363636363635}\n"
            "]}\n");
  r = run_tool({"summary", "--top", "1", "--threshold-ms", "800", p.fast, p.slow, "-o",
                p.dir.file("s.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string text = testing::read_file(p.dir.file("s.txt"));
  EXPECT_NE(text.find("  1  parent "), std::string::npos) << text;
  EXPECT_EQ(text.find("child"), std::string::npos) << text;
  EXPECT_NE(text.find("(3 pass rows not shown)"), std::string::npos) << text;
}

TEST(CliSummaryTest, ByPassAndKernelHasAColumnPerKey) {
  TwoProfiles p;
  auto r = run_tool({"summary", "--by", "pass,kernel", p.fast, p.slow});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, golden("profile/summary_by_pass_kernel.txt"));
  r = run_tool({"summary", "--by", "pass,pass", p.fast});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'pass,pass' is not a grouping: pass, kernel, context or file, or several "
                       "of them joined by commas, each once"),
            std::string::npos)
      << r.err;
}

TEST(CliSummaryTest, ReadsEventLogsToo) {
  ScratchDir dir;
  const Settings outputs = testing::output_settings("", dir.file("e.jsonl"));
  {
    LogCapture quiet;
    run_sample_session(outputs);
  }
  const auto r = run_tool({"summary", "--by", "context", "--format", "json", outputs.events->path});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("{\"key\":\"stage=jit-lower, kernel=matmul\",\"executions\":2,"
                       "\"total_inclusive_ns\":5000000000,"),
            std::string::npos)
      << r.out;
}

TEST(CliSummaryTest, MalformedInputsEndInAClearErrorAndStatus2) {
  ScratchDir dir;
  const std::string good = golden("profile/session.json");
  struct Case {
    std::string name, text, error;
  };
  std::string wrong_type = good, bad_utf8 = good, big_number = good;
  wrong_type.replace(wrong_type.find("\"depth\":1"), 9, "\"depth\":true");
  bad_utf8.replace(bad_utf8.find("tl.LowerHost"), 2, "t\xFE");
  big_number.replace(big_number.find("\"self_ns\":2000000000"), 20,
                     "\"self_ns\":99999999999999999999");
  const std::vector<Case> cases = {
      {"truncated.json", good.substr(0, good.size() / 2),
       ":6: unexpected end of input inside a string (truncated file?)"},
      {"wrong_type.json", wrong_type, ":5: field 'depth' must be an integer from 0 to 65535"},
      {"bad_utf8.json", bad_utf8, ":8: invalid UTF-8"},
      {"big_number.json", big_number,
       ":5: field 'self_ns' must be an integer from 0 to 9223372036854775807"},
      {"long_line.jsonl",
       "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"" +
           std::string(100u << 20, 'x') + "\"}\n",
       ":2: line is longer than 1048576 bytes"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.write(c.name, c.text);
    const auto r = run_tool({"summary", path});
    EXPECT_EQ(r.status, 2) << c.name;
    EXPECT_EQ(r.out, "") << c.name;
    EXPECT_EQ(r.err, path + c.error + "\n") << c.name;
  }
  const auto missing = run_tool({"summary", dir.file("absent.json")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, dir.file("absent.json") + ": cannot open: No such file or directory\n");
  EXPECT_EQ(run_tool({"summary", "--by", "function", dir.file("x")}).status, 2);
  EXPECT_EQ(run_tool({"summary", "--threshold-ms", "nan", dir.file("x")}).status, 2);
}

TEST(CliSummaryTest, HelpOnEveryCommand) {
  for (const char* command : {"summary", "merge", "diff", "report"}) {
    const auto r = run_tool({command, "--help"});
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << command << r.out;
  }
}

TEST(CliReportInputsTest, JsonFormatAndJsonProfileInput) {
  TwoProfiles p;
  auto r = run_tool({"report", "--format", "json", p.fast});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, testing::read_file(p.fast));
  r = run_tool({"report", p.fast});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("\n\n") + 1),
            golden("report/spec_example_context.txt").substr(0, r.out.find("\n\n")) + "\n");
}

TEST(CliReportInputsTest, ReportOfAKilledCompileListsCompletedAndRunningPasses) {
  ScratchDir dir;
  const std::string path = dir.file("killed.jsonl");
  const pid_t child = ::fork();
  if (child == 0) {
    auto log = EventLogWriter::open(path, current_process_metadata());
    const testing::Events to{*log};
    to.enter(0, "stage=lower");
    to.before(0, "tl.Simplify", "", 0);
    to.after(1'000'000, "tl.Simplify", 0);
    to.before(2'000'000, "tl.Pipeline", "", 0);
    std::raise(SIGKILL);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const auto r = run_tool({"report", path});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("  1  tl.Simplify "), std::string::npos) << r.out;
  EXPECT_EQ(r.err,
            "WARNING:tilelang.pass_timing:Discarding 1 incomplete pass timing frame(s): "
            "tl.Pipeline\n");
}

}  // namespace
}  // namespace passtiming
