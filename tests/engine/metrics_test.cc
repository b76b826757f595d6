// Metrics per pass execution (metrics.h): the setting, the state machine's
// arithmetic with exact injected readings, the profile and event-log members
// that carry them, and the system sampler on this machine.

#include "passtiming/engine/metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/recorder/outputs.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;

MetricSet set_of(std::initializer_list<Metric> metrics) {
  MetricSet set;
  for (Metric m : metrics) set.insert(m);
  return set;
}

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

TEST(MetricsSettingTest, OutputSettingsReadTheEnvironment) {
  MapEnvironment env({{"PASSTIMING_METRICS", "rss,cpu"}});
  EXPECT_EQ(OutputSettings::from_environment(env).metrics, set_of({Metric::cpu, Metric::rss}));
  MapEnvironment bad({{"PASSTIMING_METRICS", "cycles"}});
  EXPECT_THROW(OutputSettings::from_environment(bad), ConfigError);
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

Profile profile_with_metrics() {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu, Metric::rss, Metric::ir}));
  sm.enter(0, "stage=lower");
  sampler.set(MetricSample{1000, 4096, 8192});
  sm.note_ir(12);
  sm.begin(0, {"tl.Simplify", "matmul"});
  sampler.set(MetricSample{1600, 12288, 16384});
  sm.note_ir(9, kIrChangeKnown | kIrChanged | kIrPreservedKnown);
  sm.end(900, {"tl.Simplify"});
  Profile p;
  p.metadata.tool = "passtiming test";
  p.metrics.recorded = set_of({Metric::cpu, Metric::rss, Metric::ir});
  p.metrics.unavailable.push_back(
      {Metric::instructions, "perf_event_open: No such file or directory"});
  p.sections.push_back(sm.take_section());
  return p;
}

TEST(MetricsProfileTest, TheProfileCarriesTheMetricsAsVersion2) {
  const std::string text = profile_to_json(profile_with_metrics());
  EXPECT_EQ(text,
            "{\"format\":\"passtiming-profile\",\"version\":2,\n"
            "\"metadata\":{\"tool\":\"passtiming test\",\"command\":\"\",\"host\":\"\","
            "\"start_time\":\"\",\"pid\":0},\n"
            "\"metrics\":{\"recorded\":[\"cpu\",\"rss\",\"ir\"],\"unavailable\":{\"instructions\":"
            "\"perf_event_open: No such file or directory\"}},\n"
            "\"sections\":[\n"
            "{\"context\":\"stage=lower\",\"skipped\":0,\"threads\":[0],\"records\":[\n"
            "{\"name\":\"tl.Simplify\",\"kernel\":\"matmul\",\"depth\":0,\"sequence\":0,"
            "\"parent\":null,\"thread\":0,\"start_ns\":0,\"inclusive_ns\":900,\"self_ns\":900,"
            "\"cpu_ns\":600,\"cpu_self_ns\":600,\"rss_start_bytes\":4096,\"rss_end_bytes\":12288,"
            "\"rss_peak_bytes\":16384,\"ir_before\":12,\"ir_after\":9,\"ir_changed\":true,"
            "\"ir_preserved_all\":false}]}\n"
            "]}\n");
}

TEST(MetricsProfileTest, ReadingAndWritingAgainGivesTheSameBytes) {
  const Profile original = profile_with_metrics();
  const std::string text = profile_to_json(original);
  const Profile read = parse_profile_json(text, "m.json");
  EXPECT_EQ(read.metrics, original.metrics);
  ASSERT_EQ(read.sections.size(), 1u);
  EXPECT_EQ(read.sections[0].metrics, original.sections[0].metrics);
  EXPECT_EQ(profile_to_json(read), text);
}

TEST(MetricsProfileTest, AProfileWithoutMetricsStaysVersion1) {
  Profile p = profile_with_metrics();
  p.metrics = {};
  p.sections[0].metrics.clear();
  const std::string text = profile_to_json(p);
  EXPECT_NE(text.find("\"version\":1,"), std::string::npos);
  EXPECT_EQ(text.find("cpu_ns"), std::string::npos);
  EXPECT_EQ(text.find("\"metrics\""), std::string::npos);
}

TEST(MetricsProfileTest, BadMetricMembersNameTheLine) {
  std::string text = profile_to_json(profile_with_metrics());
  std::string bad = text;
  bad.replace(bad.find("\"cpu_ns\":600"), 12, "\"cpu_ns\":-60");
  try {
    parse_profile_json(bad, "m.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "m.json:6: field 'cpu_ns' must be an integer from 0 to 9223372036854775807");
  }
  bad = text;
  bad.replace(bad.find("\"ir\"]"), 4, "\"gpu\"");
  try {
    parse_profile_json(bad, "m.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "m.json:3: unknown metric 'gpu' (known: cpu, rss, ir, instructions)");
  }
  bad = text;
  bad.replace(bad.find("\"version\":2"), 11, "\"version\":3");
  EXPECT_THROW(parse_profile_json(bad, "m.json"), InputError);
}

TEST(MetricsEventLogTest, AReplayedLogGivesTheLiveMetrics) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("metrics_events_" + std::to_string(::getpid())))
          .string();
  ProfileMetrics info;
  info.recorded = set_of({Metric::cpu, Metric::ir});
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  {
    auto log = EventLogWriter::open(path, ProfileMetadata{}, info);
    sm.set_observer(log.get());
    sm.set_metrics(&sampler, info.recorded);
    sm.enter(0, "c");
    sampler.set(MetricSample{100});
    sm.note_ir(7);
    sm.begin(0, {"outer", ""});
    sampler.set(MetricSample{110});
    sm.note_ir(7);
    sm.begin(5, {"inner", "k"});
    sampler.set(MetricSample{170});
    sm.note_ir(3, kIrChangeKnown | kIrChanged);
    sm.end(8, {"inner"});
    sampler.set(MetricSample{200});
    sm.note_ir(3, kIrChangeKnown);
    sm.end(9, {"outer"});
    sm.exit(9);
    sm.set_observer(nullptr);
    ASSERT_TRUE(log->close());
  }
  const std::string text = testing::read_file(path);
  std::remove(path.c_str());
  EXPECT_NE(text.find("{\"ev\":\"before\",\"t_ns\":5,\"pass\":\"inner\",\"kernel\":\"k\","
                      "\"cpu_ns\":110,\"ir_size\":7}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"ev\":\"after\",\"t_ns\":8,\"pass\":\"inner\",\"cpu_ns\":170,"
                      "\"ir_size\":3,\"ir_changed\":true}"),
            std::string::npos)
      << text;
  std::istringstream in(text);
  const Profile replayed = replay_event_log(in, "events.jsonl");
  EXPECT_EQ(replayed.metrics, info);
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.sections[0].metrics, sm.section().metrics);
  EXPECT_EQ(replayed.sections[0].metrics[1].cpu_self_ns, 40);
}

TEST(MetricsEventLogTest, BadReadingsNameTheLine) {
  std::istringstream in("{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"p\",\"cpu_ns\":\"fast\"}\n");
  try {
    replay_event_log(in, "e.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "e.jsonl:1: field 'cpu_ns' must be an integer from 0 to 9223372036854775807");
  }
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

TEST(MetricsInstrumentTest, AnInstrumentRecordsWhatItIsAskedFor) {
  auto clock = std::make_shared<ManualClock>();
  clock->script({0, 10});
  auto sampler = std::make_shared<ManualMetricSampler>();
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().record_metrics(set_of({Metric::cpu}), sampler);
  EXPECT_EQ(timing.recorder().metrics().recorded, set_of({Metric::cpu}));
  auto sink = timing.events();
  sink->enter_pass_ctx();
  sampler->set(MetricSample{5});
  sink->run_before_pass("p", "k");
  sampler->set(MetricSample{8});
  sink->run_after_pass("p");
  sink->exit_pass_ctx();
  ASSERT_EQ(timing.section().metrics.size(), 1u);
  EXPECT_EQ(timing.section().metrics[0].cpu_ns, 3);
  // The default report is the seed's: no metric in it.
  EXPECT_EQ(timing.report().find("cpu"), std::string::npos);
}

/// What a source that counts its IR after a pass does while counting: time
/// and CPU time go by.
struct CountingWork {
  ManualClock* clock;
  ManualMetricSampler* sampler;
  static std::int64_t count(void* context, std::uint8_t& flags) noexcept {
    auto* work = static_cast<CountingWork*>(context);
    work->clock->advance(1000);
    work->sampler->set(MetricSample{900});
    flags = kIrChangeKnown | kIrChanged;
    return 4;
  }
};

TEST(MetricsInstrumentTest, CountingTheIrAfterAPassStaysOutsideItsTimeAndCpu) {
  auto clock = std::make_shared<ManualClock>();
  auto sampler = std::make_shared<ManualMetricSampler>();
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().record_metrics(set_of({Metric::cpu, Metric::ir}), sampler);
  auto sink = timing.events();
  ASSERT_TRUE(sink->records_ir_size());
  sink->enter_pass_ctx();
  clock->set(100);
  sampler->set(MetricSample{5});
  sink->note_ir(6, 0);
  sink->run_before_pass("p", "k");
  clock->set(130);
  sampler->set(MetricSample{25});
  CountingWork work{clock.get(), sampler.get()};
  sink->run_after_pass_counting_ir("p", &CountingWork::count, &work);
  sink->exit_pass_ctx();
  ASSERT_EQ(timing.section().records.size(), 1u);
  EXPECT_EQ(timing.section().records[0].inclusive_ns, 30);
  ASSERT_EQ(timing.section().metrics.size(), 1u);
  const RecordMetrics& m = timing.section().metrics[0];
  EXPECT_EQ(m.cpu_ns, 20);
  EXPECT_EQ(m.ir_before, 6);
  EXPECT_EQ(m.ir_after, 4);
  EXPECT_EQ(m.ir_flags, kIrChangeKnown | kIrChanged);
}

}  // namespace
}  // namespace passtiming
