// Metrics per pass execution (metrics.h): the setting, the state machine's
// arithmetic with exact injected readings, and the system sampler on this
// machine. The profile and event-log members that carry them are tested in
// tests/formats/metrics_test.cc, the settings' environment variable in
// tests/recorder/path_pattern_test.cc, an instrument recording them in
// tests/host/metrics_test.cc.

#include "passtiming/engine/metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;
using ::passtiming::testing::set_of;

TEST(MetricsSettingTest, ListsAreReadWordByWord) {
  EXPECT_EQ(parse_metrics("cpu,rss", "PASSTIMING_METRICS"), set_of({Metric::cpu, Metric::rss}));
  EXPECT_EQ(parse_metrics(" ir , instructions ", "X"), set_of({Metric::ir, Metric::instructions}));
  EXPECT_EQ(parse_metrics("all", "X"),
            set_of({Metric::cpu, Metric::rss, Metric::ir, Metric::instructions}));
  EXPECT_TRUE(parse_metrics("", "X").empty());
  EXPECT_TRUE(parse_metrics("none", "X").empty());
  EXPECT_EQ(format_metrics(set_of({Metric::instructions, Metric::cpu})), "cpu,instructions");
}

TEST(MetricsSettingTest, AnUnknownWordNamesTheSettingAndTheWord) {
  try {
    parse_metrics("cpu,memory", "PASSTIMING_METRICS");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_METRICS: unknown metric 'memory' (known: cpu, rss, ir, instructions, "
                 "all, none)");
  }
  EXPECT_THROW(parse_metrics("cpu,,rss", "X"), ConfigError);
}

/// parent { child } on one thread, then a pass on a second thread whose
/// parent is `parent`, with scripted readings.
TEST(MetricsStateMachineTest, SelfValuesSubtractTheSameThreadsNestedPasses) {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu, Metric::rss, Metric::ir, Metric::instructions}));
  sm.enter(0);
  auto at = [&](std::int64_t cpu, std::int64_t rss, std::int64_t peak, std::int64_t instr) {
    sampler.set(MetricSample{cpu, rss, peak, instr});
  };
  at(100, 1000, 1000, 10'000);
  sm.note_ir(50);
  const int parent = 0;
  sm.begin(0, {.pass = "parent", .thread = 1, .key = &parent});
  at(150, 1100, 1100, 12'000);
  sm.note_ir(50);
  sm.begin(10, {"child", "k", 1});
  // The worker's own CPU clock and counter: not part of the parent's.
  at(7, 2000, 2000, 500);
  sm.begin(12, {.pass = "worker", .kernel = "k", .thread = 2, .parent = {1, &parent}});
  at(9, 2100, 2100, 800);
  sm.end(14, {"worker", 2});
  at(400, 5000, 6000, 20'000);
  sm.note_ir(80, kIrChangeKnown | kIrChanged);
  sm.end(20, {"child", 1});
  at(500, 4000, 6000, 25'000);
  sm.note_ir(80, kIrChangeKnown);
  sm.end(30, {"parent", 1});

  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 3u);
  ASSERT_EQ(s.metrics.size(), 3u);
  // worker: 2 ns of its thread's CPU, 300 instructions.
  EXPECT_EQ(s.metrics[0].cpu_ns, 2);
  EXPECT_EQ(s.metrics[0].cpu_self_ns, 2);
  EXPECT_EQ(s.metrics[0].instructions, 300);
  EXPECT_EQ(s.metrics[0].ir_before, kNotMeasured);
  // child: 250 ns, 8000 instructions, IR 50 -> 80 and changed.
  const RecordMetrics child = s.metrics[1];
  EXPECT_EQ(child.cpu_ns, 250);
  EXPECT_EQ(child.cpu_self_ns, 250);
  EXPECT_EQ(child.rss_start_bytes, 1100);
  EXPECT_EQ(child.rss_end_bytes, 5000);
  EXPECT_EQ(child.rss_peak_bytes, 6000);
  EXPECT_EQ(child.ir_before, 50);
  EXPECT_EQ(child.ir_after, 80);
  EXPECT_EQ(child.ir_flags, kIrChangeKnown | kIrChanged);
  EXPECT_EQ(child.instructions, 8000);
  // parent: 400 ns of which 250 are the child's; the worker's 2 are not
  // subtracted (another thread's clock), though its wall time is.
  const RecordMetrics parent_metrics = s.metrics[2];
  EXPECT_EQ(parent_metrics.cpu_ns, 400);
  EXPECT_EQ(parent_metrics.cpu_self_ns, 150);
  EXPECT_EQ(parent_metrics.instructions, 15'000);
  EXPECT_EQ(parent_metrics.instructions_self, 7'000);
  EXPECT_EQ(parent_metrics.rss_end_bytes, 4000);
  EXPECT_EQ(parent_metrics.ir_flags, kIrChangeKnown);
  EXPECT_EQ(s.records[2].self_ns, 30 - 10 - 2);
}

TEST(MetricsStateMachineTest, OnlyTheAskedMetricsAreKept) {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu}));
  sm.enter(0);
  sampler.set(MetricSample{10, 1000, 1000, 5});
  sm.note_ir(3);
  sm.begin(0, {"p", ""});
  sampler.set(MetricSample{25, 2000, 2000, 9});
  sm.end(1, {"p"});
  ASSERT_EQ(sm.section().metrics.size(), 1u);
  RecordMetrics expected;
  expected.cpu_ns = 15;
  expected.cpu_self_ns = 15;
  EXPECT_EQ(sm.section().metrics[0], expected);
}

TEST(MetricsStateMachineTest, ACounterThatWentBackwardsGivesZeroAndAMissingReadingNothing) {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu, Metric::instructions}));
  sm.enter(0);
  sampler.set(MetricSample{10, kNotMeasured, kNotMeasured, kNotMeasured});
  sm.begin(0, {"p", ""});
  sampler.set(MetricSample{5, kNotMeasured, kNotMeasured, 100});
  sm.end(1, {"p"});
  EXPECT_EQ(sm.section().metrics[0].cpu_ns, 0);
  EXPECT_EQ(sm.section().metrics[0].instructions, kNotMeasured);
  EXPECT_EQ(sm.section().metrics[0].instructions_self, kNotMeasured);
}

TEST(MetricsStateMachineTest, UnmatchedAndIncompleteFramesDropTheirReadingsToo) {
  LogCapture log;
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu}));
  sm.enter(0);
  sampler.set(MetricSample{0});
  sm.begin(0, {"a", ""});
  sm.end(1, {"b"});  // unmatched: the stack is cleared
  sampler.set(MetricSample{100});
  sm.begin(2, {"c", ""});
  sampler.set(MetricSample{130});
  sm.end(3, {"c"});
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().metrics.size(), 1u);
  EXPECT_EQ(sm.section().metrics[0].cpu_ns, 30);
}

TEST(MetricsStateMachineTest, WithoutMetricsNoReadingIsKept) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"p", ""});
  sm.end(1, {"p"});
  EXPECT_TRUE(sm.section().metrics.empty());
}

int failing_counter() {
  errno = ENOENT;
  return -1;
}

TEST(SystemMetricSamplerTest, AMissingCounterIsUnavailableWithItsReasonNeverZero) {
  SystemMetricSampler sampler(set_of({Metric::cpu, Metric::instructions}), &failing_counter);
  EXPECT_EQ(sampler.metrics().recorded, set_of({Metric::cpu}));
  ASSERT_EQ(sampler.metrics().unavailable.size(), 1u);
  EXPECT_EQ(sampler.metrics().unavailable[0].metric, Metric::instructions);
  EXPECT_EQ(sampler.metrics().unavailable[0].reason, "perf_event_open: No such file or directory");
  MetricSample sample;
  sampler.read(sample);
  EXPECT_EQ(sample.instructions, kNotMeasured);
  EXPECT_GT(sample.cpu_ns, 0);
}

TEST(SystemMetricSamplerTest, TheRealCounterIsRecordedExactlyWhenTheMachineOpensIt) {
  const int fd = SystemMetricSampler::open_instruction_counter();
  const int error = errno;
  if (fd >= 0) ::close(fd);
  SystemMetricSampler sampler(set_of({Metric::instructions}));
  MetricSample before, after;
  sampler.read(before);
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < 100'000; ++i) sink = sink + static_cast<std::uint64_t>(i);
  sampler.read(after);
  if (fd >= 0) {
    EXPECT_TRUE(sampler.metrics().recorded.contains(Metric::instructions));
    EXPECT_GT(after.instructions - before.instructions, 100'000);
  } else {
    EXPECT_FALSE(sampler.metrics().recorded.contains(Metric::instructions));
    ASSERT_EQ(sampler.metrics().unavailable.size(), 1u);
    EXPECT_EQ(sampler.metrics().unavailable[0].reason,
              std::string("perf_event_open: ") + std::strerror(error));
    EXPECT_EQ(after.instructions, kNotMeasured);
  }
}

TEST(SystemMetricSamplerTest, CpuAndResidentMemoryFollowTheWork) {
  SystemMetricSampler sampler(set_of({Metric::cpu, Metric::rss}));
  EXPECT_TRUE(sampler.metrics().unavailable.empty());
  MetricSample before, after;
  sampler.read(before);
  // 64 MiB touched page by page: resident memory grows by about that much.
  std::vector<char> block(std::size_t{64} << 20);
  for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
  sampler.read(after);
  EXPECT_GT(after.cpu_ns, before.cpu_ns);
  EXPECT_GE(after.rss_bytes - before.rss_bytes, std::int64_t{60} << 20);
  EXPECT_GE(after.rss_peak_bytes, after.rss_bytes);
}

}  // namespace
}  // namespace passtiming
