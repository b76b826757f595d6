// passtiming-mlir-opt end to end: the real tool on the bundled tiled-matmul
// example, with and without threads, against -mlir-timing, and on input the
// pipeline cannot lower.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "mlir_opt_support.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"

namespace {

namespace fs = std::filesystem;

using passtiming::testing::example;
using passtiming::testing::pipeline_arg;
using passtiming::testing::read_text;
using passtiming::testing::ToolRun;

/// Runs passtiming-mlir-opt with `args` (already shell-quoted).
ToolRun run_tool(const std::string& args) {
  return passtiming::testing::run_program(
      PASSTIMING_MLIR_OPT, args,
      fs::temp_directory_path() / ("passtiming-mlir-" + std::to_string(::getpid())));
}

struct Row {
  int index;
  int depth;
  std::string display;
};

/// The rows of the report's table: index, depth from the indentation, and
/// the displayed name.
std::vector<Row> report_rows(const std::string& report) {
  static const std::regex row(
      R"(^ *(\d+)  ((?:  )*)(\S.*?) +\d+\.\d{4}s +\d+\.\d{4}s +\d+\.\d% +\d+\.\d%$)");
  std::vector<Row> rows;
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      rows.push_back({std::stoi(m[1]), static_cast<int>(m[2].length() / 2), m[3]});
    }
  }
  return rows;
}

/// What the example's report must contain, in tree order, with the func.func
/// pipelines in the order given.
std::vector<std::pair<int, std::string>> expected_rows(const std::vector<std::string>& kernels) {
  const std::string module = "(matmul_128 +3 more)";
  std::vector<std::pair<int, std::string>> rows = {
      {0, "InterpreterPass(matmul_128 +4 more)"},  // the schedule is still a function
      {0, "SymbolDCE(matmul_128 +4 more)"},
      {0, "OneShotBufferize" + module},
      {0, "BufferResultsToOutParams" + module},
      {0, "Pipeline Collection : ['func.func']" + module}};
  for (const std::string& k : kernels) {
    rows.push_back({1, "'func.func' Pipeline(" + k + ")"});
    for (const char* pass : {"Canonicalizer", "CSE", "ConvertLinalgToLoopsPass",
                             "LoopInvariantCodeMotion", "ConvertAffineToStandard"}) {
      rows.push_back({2, std::string(pass) + "(" + k + ")"});
    }
  }
  for (const char* pass :
       {"SCFToControlFlow", "ExpandStridedMetadata", "FinalizeMemRefToLLVMConversionPass",
        "ArithToLLVMConversionPass", "ConvertFuncToLLVMPass", "ConvertControlFlowToLLVMPass",
        "ReconcileUnrealizedCasts", "Canonicalizer"}) {
    rows.push_back({0, std::string(pass) + module});
  }
  return rows;
}

std::vector<std::pair<int, std::string>> depth_and_names(const std::vector<Row>& rows) {
  std::vector<std::pair<int, std::string>> out;
  for (const Row& r : rows) out.emplace_back(r.depth, r.display);
  return out;
}

TEST(MlirOptToolTest, ExampleWithoutThreads) {
  const ToolRun run = run_tool(example("matmul_tiled.mlir") + " " + pipeline_arg() +
                               " --mlir-disable-threading --passtiming -o /dev/null");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("Total: "), std::string::npos);
  EXPECT_NE(run.err.find("s (37 passes)\n"), std::string::npos) << run.err;
  const std::vector<Row> rows = report_rows(run.err);
  EXPECT_EQ(depth_and_names(rows),
            expected_rows({"matmul_128", "matmul_256", "matmul_qk", "matmul_pv"}));
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].index, static_cast<int>(i + 1));
}

TEST(MlirOptToolTest, ExampleWithThreads) {
  const ToolRun run =
      run_tool(example("matmul_tiled.mlir") + " " + pipeline_arg() + " --passtiming -o /dev/null");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("s (37 passes)\n"), std::string::npos) << run.err;
  std::vector<Row> rows = report_rows(run.err);
  ASSERT_EQ(rows.size(), 37u) << run.err;
  // Pipelines may start in any order on the workers; each is still followed
  // by its own passes.
  std::vector<std::string> kernels;
  for (const Row& r : rows) {
    if (r.display.rfind("'func.func' Pipeline(", 0) == 0) {
      kernels.push_back(r.display.substr(21, r.display.size() - 22));
    }
  }
  EXPECT_EQ(depth_and_names(rows), expected_rows(kernels));
  std::vector<std::string> sorted = kernels;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted,
            (std::vector<std::string>{"matmul_128", "matmul_256", "matmul_pv", "matmul_qk"}));
}

/// Sum of the wall times of -mlir-timing's top-level pass rows: its total
/// without Parser, Output and Rest, which are not passes.
double mlir_timing_pass_total(const std::string& text) {
  static const std::regex row(R"(^ +\d+\.\d+ \( *[\d.]+%\) +(\d+\.\d+) \( *[\d.]+%\)  (\S.*)$)");
  double total = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string name = m[2];
    if (name == "Total") return total;
    if (name == "Parser" || name == "Output" || name == "Rest") continue;
    total += std::stod(m[1]);
  }
  ADD_FAILURE() << "no -mlir-timing total in:\n" << text;
  return 0;
}

/// The example repeated eight times (32 kernels), so that the pipeline runs
/// long enough for the 4-decimal figures of -mlir-timing.
std::string larger_example() {
  const std::string text = read_text(example("matmul_tiled.mlir"));
  const std::string head = "module attributes {transform.with_named_sequence} {\n";
  const auto body_begin = text.find(head) + head.size();
  const auto body_end = text.find("  transform.named_sequence");
  const std::string body = text.substr(body_begin, body_end - body_begin);
  std::string out = head;
  for (int i = 0; i < 8; ++i) {
    out += std::regex_replace(body, std::regex("@matmul_"), "@r" + std::to_string(i) + "_matmul_");
  }
  out += text.substr(body_end);
  const fs::path path = fs::temp_directory_path() / "passtiming-mlir-larger.mlir";
  std::ofstream(path) << out;
  return path.string();
}

TEST(MlirOptToolTest, TotalAgreesWithMlirTiming) {
  // Both timings of the same run: the top-level passes, each counted once.
  const fs::path profile = fs::temp_directory_path() / "passtiming-mlir-total.json";
  const ToolRun run = run_tool(larger_example() + " " + pipeline_arg() +
                               " --passtiming-profile=" + profile.string() +
                               " -mlir-timing -mlir-timing-display=tree -o /dev/null");
  ASSERT_EQ(run.status, 0) << run.err;
  const passtiming::Profile p =
      passtiming::parse_profile_json(read_text(profile), profile.string());
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].records.size(), 5u + 32 * 6 + 8);
  const double ours = p.sections[0].total_seconds();
  const double theirs = mlir_timing_pass_total(run.err);
  EXPECT_GT(ours, 0.0);
  EXPECT_NEAR(ours, theirs, 0.10 * theirs) << run.err;
}

TEST(MlirOptToolTest, FailingPipelineReportsCompletedPasses) {
  const fs::path profile = fs::temp_directory_path() / "passtiming-mlir-failed.json";
  const ToolRun run =
      run_tool(std::string(PASSTIMING_MLIR_TEST_DATA) + "/unbufferizable.mlir " + pipeline_arg() +
               " --passtiming --passtiming-profile=" + profile.string() + " -o /dev/null");
  EXPECT_EQ(run.status, 1);
  // MLIR's own error stays visible, and the report follows it.
  const auto error_at = run.err.find("error: op was not bufferized");
  const auto report_at = run.err.find("\nPass Timing Report\n");
  ASSERT_NE(error_at, std::string::npos) << run.err;
  ASSERT_NE(report_at, std::string::npos) << run.err;
  EXPECT_LT(error_at, report_at);
  EXPECT_NE(run.err.find("(3 passes)"), std::string::npos) << run.err;
  EXPECT_EQ(
      depth_and_names(report_rows(run.err)),
      (std::vector<std::pair<int, std::string>>{{0, "InterpreterPass(matmul_128 +2 more)"},
                                                {0, "SymbolDCE(matmul_128 +2 more)"},
                                                {0, "OneShotBufferize(matmul_128 +1 more)"}}));
  const passtiming::Profile p =
      passtiming::parse_profile_json(read_text(profile), profile.string());
  ASSERT_EQ(p.sections.size(), 1u);
  ASSERT_EQ(p.sections[0].records.size(), 3u);
  for (const passtiming::Record& r : p.sections[0].records) {
    const bool is_failed_pass = p.sections[0].name_of(r) == "OneShotBufferize";
    EXPECT_EQ((r.flags & passtiming::kRecordFailed) != 0, is_failed_pass);
  }
}

TEST(MlirOptToolTest, ThresholdHidesShortPasses) {
  const ToolRun run = run_tool(example("matmul_tiled.mlir") + " " + pipeline_arg() +
                               " --passtiming-threshold-ms=1000 -o /dev/null");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("(inclusive threshold: 1000.0ms)\n"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("(37 passes skipped - under 1000.0ms inclusive threshold)"),
            std::string::npos)
      << run.err;
}

TEST(MlirOptToolTest, BadThresholdIsAUsageError) {
  const ToolRun run = run_tool(example("matmul_tiled.mlir") + " --passtiming-threshold-ms=abc");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--passtiming-threshold-ms must be a finite non-negative number (got "
                         "'abc')"),
            std::string::npos)
      << run.err;
}

TEST(MlirOptToolTest, WithoutTheFlagItIsMlirOpt) {
  const ToolRun run = run_tool(example("matmul_tiled.mlir") + " " + pipeline_arg());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("llvm.func @matmul_pv"), std::string::npos);
}

/// As every event source does, the tool honours PASSTIMING_PROFILE and
/// PASSTIMING_EVENTS, and either one turns timing on.
TEST(MlirOptToolTest, WritesTheFilesTheEnvironmentNames) {
  const fs::path dir =
      fs::temp_directory_path() / ("passtiming-mlir-env-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string profile = (dir / "p-%p.json").string();
  const std::string events = (dir / "e.jsonl").string();
  const std::string command = "PASSTIMING_PROFILE='" + profile + "' PASSTIMING_EVENTS='" + events +
                              "' " + std::string(PASSTIMING_MLIR_OPT) + " " +
                              example("matmul_tiled.mlir") + " " + pipeline_arg() +
                              " -o /dev/null 2>" + (dir / "err").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(dir / "err");
  // The report went to stderr as with --passtiming.
  EXPECT_NE(read_text(dir / "err").find("\nPass Timing Report\n"), std::string::npos);
  std::vector<fs::path> profiles;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("p-", 0) == 0) profiles.push_back(entry.path());
  }
  ASSERT_EQ(profiles.size(), 1u);
  const passtiming::Profile written = passtiming::load_profile(profiles[0].string());
  ASSERT_EQ(written.sections.size(), 1u);
  EXPECT_EQ(report_rows(read_text(dir / "err")).size(), written.sections[0].records.size());
  // The event log replays to the same records.
  std::ifstream log(events);
  const passtiming::Profile replayed = passtiming::replay_event_log(log, events);
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.sections[0].records.size(), written.sections[0].records.size());
  fs::remove_all(dir);
}

/// PASSTIMING_METRICS, as every event source reads it: the profile is
/// version 3 (it carries the run's phases) with the metrics' values, and
/// the event log carries them too.
TEST(MlirOptToolTest, MetricsFromTheEnvironmentGoIntoTheProfileAndTheLog) {
  const fs::path dir =
      fs::temp_directory_path() / ("passtiming-mlir-metrics-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string profile = (dir / "p.json").string();
  const std::string events = (dir / "e.jsonl").string();
  const std::string command =
      "PASSTIMING_METRICS=cpu,ir PASSTIMING_PROFILE='" + profile + "' PASSTIMING_EVENTS='" +
      events + "' " + std::string(PASSTIMING_MLIR_OPT) + " " + PASSTIMING_MLIR_TEST_DATA +
      "/fold.mlir '--pass-pipeline=builtin.module(func.func(canonicalize))' -o /dev/null 2>" +
      (dir / "err").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(dir / "err");
  const std::string text = read_text(profile);
  // Version 3: the run's phases (parse, pipeline, ...) come with the metrics.
  EXPECT_EQ(text.rfind("{\"format\":\"passtiming-profile\",\"version\":3,", 0), 0u) << text;
  const passtiming::Profile written = passtiming::load_profile(profile);
  passtiming::MetricSet cpu_ir;
  cpu_ir.insert(passtiming::Metric::cpu);
  cpu_ir.insert(passtiming::Metric::ir);
  EXPECT_EQ(written.metrics.recorded, cpu_ir);
  ASSERT_EQ(written.sections.size(), 1u);
  const passtiming::Section& s = written.sections[0];
  ASSERT_EQ(s.metrics.size(), s.records.size());
  int canonicalized = 0;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    const passtiming::RecordMetrics& m = s.metrics[i];
    EXPECT_LE(m.cpu_self_ns, m.cpu_ns);
    if (s.name_of(s.records[i]) != "Canonicalizer") continue;
    ++canonicalized;
    const bool f = s.kernel_of(s.records[i]) == "f";
    EXPECT_EQ(m.ir_before, f ? 4 : 2);
    EXPECT_EQ(m.ir_after, 2);
    EXPECT_EQ(m.ir_flags,
              f ? passtiming::kIrChangeKnown | passtiming::kIrChanged : passtiming::kIrChangeKnown);
  }
  EXPECT_EQ(canonicalized, 2);
  // The event log replays to the same figures.
  std::ifstream log(events);
  const passtiming::Profile replayed = passtiming::replay_event_log(log, events);
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.metrics.recorded, cpu_ir);
  fs::remove_all(dir);
}

TEST(MlirOptToolTest, AnUnknownMetricIsAUsageErrorNamingTheVariable) {
  const ToolRun run =
      run_tool("--passtiming " + std::string(PASSTIMING_MLIR_TEST_DATA) + "/fold.mlir");
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string command = "PASSTIMING_METRICS=cpu,cycles " + std::string(PASSTIMING_MLIR_OPT) +
                              " --passtiming " + PASSTIMING_MLIR_TEST_DATA +
                              "/fold.mlir -o /dev/null 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string err;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) err += buffer;
  const int raw = ::pclose(pipe);
  EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 2);
  EXPECT_EQ(err,
            "passtiming-mlir-opt: error: PASSTIMING_METRICS: unknown metric 'cycles' (known: cpu, "
            "rss, ir, instructions, all, none)\n");
}

}  // namespace
