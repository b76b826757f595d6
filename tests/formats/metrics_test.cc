// The members that carry metrics per pass execution (metrics.h) in the JSON
// profile and the event log: written, read back, replayed, and refused when
// bad. The metrics themselves are tested in tests/engine/metrics_test.cc.

#include "passtiming/engine/metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/profile_json.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::set_of;

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
  bad.replace(bad.find("\"version\":2"), 11, "\"version\":4");
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

}  // namespace
}  // namespace passtiming
