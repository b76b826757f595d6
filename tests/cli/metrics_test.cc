// The outputs that carry metrics besides the profile and the event log: the
// Chrome trace's args and memory track, the text table of `report --metrics`
// and `summary --measure`, all from readings injected exactly.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/chrome_trace.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "profile_fixtures.h"
#include "test_support.h"

namespace passtiming {
namespace {

using Json = nlohmann::json;
using testing::run_tool;
using testing::ScratchDir;

constexpr std::int64_t kMiB = 1024 * 1024;

/// `lower` { `simplify`(matmul) } with CPU, RSS and IR readings, every wall
/// and CPU time a whole number of milliseconds; `scale` multiplies the CPU
/// time of `simplify`.
Profile metrics_profile(std::int64_t scale = 1) {
  constexpr std::int64_t ms = 1'000'000;
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  MetricSet set;
  set.insert(Metric::cpu);
  set.insert(Metric::rss);
  set.insert(Metric::ir);
  sm.set_metrics(&sampler, set);
  sm.enter(0, "stage=lower");
  sampler.set(MetricSample{0, 100 * kMiB, 100 * kMiB});
  sm.note_ir(40);
  sm.begin(0, {"lower", ""});
  sampler.set(MetricSample{2 * ms, 101 * kMiB, 101 * kMiB});
  sm.note_ir(40);
  sm.begin(2 * ms, {"simplify", "matmul"});
  sampler.set(MetricSample{(2 + 5 * scale) * ms, 133 * kMiB, 140 * kMiB});
  sm.note_ir(31, kIrChangeKnown | kIrChanged);
  sm.end(12 * ms, {"simplify"});
  sampler.set(MetricSample{(8 + 5 * scale) * ms, 120 * kMiB, 140 * kMiB});
  sm.note_ir(31, kIrChangeKnown);
  sm.end(20 * ms, {"lower"});
  sm.exit(20 * ms);
  Profile p;
  p.metrics.recorded = set;
  p.metrics.unavailable.push_back(
      {Metric::instructions, "perf_event_open: No such file or directory"});
  p.sections.push_back(sm.take_section());
  return p;
}

TEST(MetricsChromeTraceTest, PassEventsCarryTheMetricsAndMemoryIsACounterTrack) {
  const Json trace = Json::parse(render_chrome_trace(metrics_profile()));
  std::vector<Json> passes, counters;
  for (const Json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") passes.push_back(e);
    if (e.at("ph") == "C") counters.push_back(e);
  }
  ASSERT_EQ(passes.size(), 2u);
  const Json& simplify = passes[1].at("args");
  EXPECT_EQ(passes[1].at("name"), "simplify");
  EXPECT_EQ(simplify.at("cpu_ns"), 5'000'000);
  EXPECT_EQ(simplify.at("cpu_self_ns"), 5'000'000);
  EXPECT_EQ(simplify.at("rss_end_bytes"), 133 * kMiB);
  EXPECT_EQ(simplify.at("ir_before"), 40);
  EXPECT_EQ(simplify.at("ir_after"), 31);
  EXPECT_EQ(simplify.at("ir_changed"), true);
  EXPECT_EQ(passes[0].at("args").at("cpu_self_ns"), 8'000'000);
  ASSERT_EQ(counters.size(), 4u);
  std::vector<double> mib, ts;
  for (const Json& c : counters) {
    EXPECT_EQ(c.at("name"), "rss");
    mib.push_back(c.at("args").at("MiB"));
    ts.push_back(c.at("ts"));
  }
  EXPECT_EQ(mib, (std::vector<double>{100, 101, 133, 120}));
  EXPECT_EQ(ts, (std::vector<double>{0, 2000, 12000, 20000}));
}

TEST(MetricsChromeTraceTest, WithoutMetricsThereIsNoCounterAndNoMetricArg) {
  Profile p = metrics_profile();
  p.metrics = {};
  p.sections[0].metrics.clear();
  const std::string trace = render_chrome_trace(p);
  EXPECT_EQ(trace.find("\"ph\":\"C\""), std::string::npos);
  EXPECT_EQ(trace.find("cpu_ns"), std::string::npos);
}

TEST(MetricsReportTest, TheTableFollowsTheSeedRowsWithOneColumnPerFigure) {
  const Profile p = metrics_profile();
  const std::string rule(142, '='), dashes(142, '-');
  EXPECT_EQ(render_metrics_table(p.sections[0], p.metrics, 0.0),
            rule + "\n" +
                "Pass Metrics: cpu,rss,ir\n"
                "(instructions unavailable: perf_event_open: No such file or directory)\n" +
                dashes + "\n" +
                "  #  Pass Name                                     CPU Incl   CPU Self CPU/Wall  "
                "RSS Start    RSS End   RSS Peak  IR Before   IR After Changed\n" +
                dashes + "\n" +
                "  1  lower                                          0.0130s    0.0080s    65.0%  "
                "   100.0M     120.0M     140.0M         40         31      no\n"
                "  2    simplify(matmul)                             0.0050s    0.0050s    50.0%  "
                "   101.0M     133.0M     140.0M         40         31     yes\n" +
                rule);
  // The threshold hides the rows the seed report hides, keeping the numbers.
  const std::string hidden = render_metrics_table(p.sections[0], p.metrics, 15.0);
  EXPECT_NE(hidden.find("  1  lower"), std::string::npos);
  EXPECT_EQ(hidden.find("simplify"), std::string::npos);
}

TEST(MetricsReportTest, ReportMetricsPrintsTheSeedReportThenTheTable) {
  ScratchDir dir;
  const Profile p = metrics_profile();
  const std::string path = dir.file("m.json");
  write_profile_file(p, path);
  auto r = run_tool({"report", path, "--metrics"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, render_report(p.sections[0], 0.0, "stage=lower") + "\n" +
                       render_metrics_table(p.sections[0], p.metrics, 0.0) + "\n");
  // Without --metrics, the seed's report alone.
  r = run_tool({"report", path});
  EXPECT_EQ(r.out, render_report(p.sections[0], 0.0, "stage=lower") + "\n");
  // Asked of a profile that recorded none: an error naming it, status 2.
  Profile plain = p;
  plain.metrics = {};
  plain.sections[0].metrics.clear();
  write_profile_file(plain, dir.file("plain.json"));
  r = run_tool({"report", dir.file("plain.json"), "--metrics"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "passtiming report: " + dir.file("plain.json") +
                       " recorded no metrics (record them with "
                       "PASSTIMING_METRICS=cpu,rss,ir,instructions)\n");
}

TEST(MetricsSummaryTest, SummaryAggregatesAnyRecordedMeasure) {
  ScratchDir dir;
  write_profile_file(metrics_profile(1), dir.file("a.json"));
  write_profile_file(metrics_profile(3), dir.file("b.json"));
  auto r = run_tool(
      {"summary", "--measure", "cpu", "--format", "json", dir.file("a.json"), dir.file("b.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  // simplify: 5 and 15 ms of CPU; lower: 8 ms self each time (13 and 23
  // inclusive).
  EXPECT_EQ(
      r.out,
      "{\"by\":\"pass\",\"profiles\":2,\"total_self_ns\":36000000,\"hidden_rows\":0,"
      "\"measure\":\"cpu\",\"unit\":\"ns\",\"rows\":[\n"
      "{\"key\":\"simplify\",\"executions\":2,\"total_inclusive_ns\":20000000,"
      "\"total_self_ns\":20000000,\"mean_self_ns\":10000000,\"p50_self_ns\":5000000,"
      "\"p95_self_ns\":15000000,\"max_self_ns\":15000000,\"self_share\":0.5555555555555556},\n"
      "{\"key\":\"lower\",\"executions\":2,\"total_inclusive_ns\":36000000,"
      "\"total_self_ns\":16000000,\"mean_self_ns\":8000000,\"p50_self_ns\":8000000,"
      "\"p95_self_ns\":8000000,\"max_self_ns\":8000000,\"self_share\":0.4444444444444444}\n"
      "]}\n");
}

// The changes: signed, each counted once, in the pass that made it. In each
// profile `lower` shrinks its IR from 40 to 31, all of it done by
// `simplify` (40 to 31): simplify's self is -9, lower's 0. The resident set
// grows by 20 MiB over `lower`, 32 MiB of it in `simplify`: lower's self is
// -12 MiB.
TEST(MetricsSummaryTest, IrAndRssSummariesCountEachChangeOnceWithSignedShares) {
  ScratchDir dir;
  write_profile_file(metrics_profile(1), dir.file("a.json"));
  write_profile_file(metrics_profile(3), dir.file("b.json"));
  auto r = run_tool({"summary", "--measure", "ir", dir.file("a.json"), dir.file("b.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, testing::golden("profile/summary_ir.txt"));
  r = run_tool({"summary", "--measure", "rss", dir.file("a.json"), dir.file("b.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, testing::golden("profile/summary_rss.txt"));
}

// With CPU time recorded, the summary shows it unless asked for wall time:
// wall time also counts the waits for a processor.
TEST(MetricsSummaryTest, CpuTimeIsShownWhenEveryInputRecordedIt) {
  ScratchDir dir;
  write_profile_file(metrics_profile(0), dir.file("waited.json"));
  auto r = run_tool({"summary", dir.file("waited.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, run_tool({"summary", "--measure", "cpu", dir.file("waited.json")}).out);
  EXPECT_NE(r.out.find("Pass Timing Summary by pass, measure: cpu\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  // One input without CPU time: wall time for all.
  Profile plain = metrics_profile(0);
  plain.metrics = {};
  plain.sections[0].metrics.clear();
  write_profile_file(plain, dir.file("plain.json"));
  r = run_tool({"summary", dir.file("waited.json"), dir.file("plain.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, run_tool({"summary", "--measure", "wall", dir.file("waited.json"),
                             dir.file("plain.json")})
                       .out);
  EXPECT_NE(r.out.find("Pass Timing Summary by pass\n"), std::string::npos) << r.out;
}

// Wall time far beyond CPU time is time spent waiting for a processor; the
// summary by wall time says so, and by how much.
TEST(MetricsSummaryTest, WallTimeFarBeyondCpuTimeGetsANoteNamingTheCause) {
  ScratchDir dir;
  // scale 0: 20 ms of wall self time against 8 ms of CPU (lower's own).
  write_profile_file(metrics_profile(0), dir.file("waited.json"));
  auto r = run_tool({"summary", "--measure", "wall", dir.file("waited.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err,
            "passtiming summary: note: the passes' wall time is 2.5x their CPU time (0.020 s "
            "against 0.008 s): the compiles waited for a processor (a parallel build, a busy "
            "machine), and the waits count in whichever pass was running; --measure cpu ranks "
            "by the work done\n");
  // Ranked by CPU time already: nothing to say.
  r = run_tool({"summary", "--measure", "cpu", dir.file("waited.json")});
  EXPECT_EQ(r.err, "");
  // 20 ms against 13 ms: 1.5x, but 7 ms apart, under the 10 ms that counts.
  write_profile_file(metrics_profile(1), dir.file("busy.json"));
  EXPECT_EQ(run_tool({"summary", "--measure", "wall", dir.file("busy.json")}).err, "");
  // Without CPU time recorded, no comparison.
  Profile plain = metrics_profile(0);
  plain.metrics = {};
  plain.sections[0].metrics.clear();
  write_profile_file(plain, dir.file("plain.json"));
  EXPECT_EQ(run_tool({"summary", dir.file("plain.json")}).err, "");
}

TEST(MetricsSummaryTest, AMeasureAProfileDidNotRecordIsAnErrorNamingIt) {
  ScratchDir dir;
  Profile p = metrics_profile();
  p.metrics.unavailable.clear();
  write_profile_file(p, dir.file("a.json"));
  const auto r = run_tool({"summary", "--measure", "instructions", dir.file("a.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming summary: " + dir.file("a.json") +
                       " did not record the metric 'instructions' that --measure instructions "
                       "needs (record it with PASSTIMING_METRICS=instructions)\n");
}

// Asked for, but the machine could not count: asking again would not help.
TEST(MetricsSummaryTest, AMeasureTheMachineCouldNotTakeIsAnErrorSayingSo) {
  ScratchDir dir;
  write_profile_file(metrics_profile(), dir.file("a.json"));
  const auto r = run_tool({"summary", "--measure", "instructions", dir.file("a.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming summary: " + dir.file("a.json") +
                       " did not record the metric 'instructions' that --measure instructions "
                       "needs (the machine that recorded it could not measure instructions "
                       "(perf_event_open: No such file or directory), although it was asked "
                       "to; record again where hardware performance counters work: allow perf "
                       "events (sysctl kernel.perf_event_paranoid=2 or lower, or CAP_PERFMON) on "
                       "a machine whose counters are not hidden, as most virtual machines' are)\n");
}

TEST(MetricsMergeTest, AMergeKeepsEachSectionsMetricsAndNamesThemAll) {
  ScratchDir dir;
  const Profile with = metrics_profile();
  Profile plain = with;
  plain.metrics = {};
  plain.sections[0].metrics.clear();
  write_profile_file(with, dir.file("with.json"));
  write_profile_file(plain, dir.file("plain.json"));
  const auto r =
      run_tool({"merge", dir.file("plain.json"), dir.file("with.json"), "-o", dir.file("m.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  const Profile merged = load_profile(dir.file("m.json"));
  EXPECT_EQ(merged.metrics, with.metrics);
  ASSERT_EQ(merged.sections.size(), 2u);
  EXPECT_TRUE(merged.sections[0].metrics.empty());
  EXPECT_EQ(merged.sections[1].metrics, with.sections[0].metrics);
}

}  // namespace
}  // namespace passtiming
