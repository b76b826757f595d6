#include "passtiming/formats/chrome_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "browser/sample_profiles.h"
#include "passtiming/engine/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::kMicro;
using ::passtiming::testing::kMilli;
using ::passtiming::testing::kScriptBreakout;
using ::passtiming::testing::pipeline_profile;
using ::passtiming::testing::read_file;
using Json = nlohmann::json;

/// Compares with tests/golden/chrome/NAME, or rewrites it when
/// PASSTIMING_UPDATE_GOLDEN is set (then review the diff).
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(PASSTIMING_GOLDEN_DIR) + "/chrome/" + name;
  if (std::getenv("PASSTIMING_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << actual;
  EXPECT_EQ(actual, read_file(path)) << "golden file " << path;
}

std::vector<Json> events_with_phase(const Json& trace, const std::string& ph) {
  std::vector<Json> out;
  for (const Json& e : trace.at("traceEvents")) {
    if (e.at("ph") == ph) out.push_back(e);
  }
  return out;
}

Profile one_section(const std::function<void(TimingStateMachine&)>& script,
                    std::string context = "") {
  TimingStateMachine sm;
  sm.enter(0, context);
  script(sm);
  Profile p;
  p.sections.push_back(sm.take_section());
  return p;
}

TEST(ChromeTraceTest, PipelineMatchesGolden) {
  expect_golden("pipeline.json", render_chrome_trace(pipeline_profile()));
}

TEST(ChromeTraceTest, PipelineIsValidJsonWithOneCompleteEventPerRecord) {
  const Profile profile = pipeline_profile();
  const Json trace = Json::parse(render_chrome_trace(profile));
  const auto complete = events_with_phase(trace, "X");
  ASSERT_EQ(complete.size(), profile.record_count());
  ASSERT_EQ(complete.size(), 11u);
  // Section 1's first pass is the Sequential, starting at the profile's origin.
  EXPECT_EQ(complete[0].at("name"), "tl.lower");
  EXPECT_EQ(complete[0].at("pid"), 1);
  EXPECT_EQ(complete[0].at("tid"), 1);
  EXPECT_EQ(complete[0].at("ts"), 0);
  EXPECT_DOUBLE_EQ(complete[0].at("dur").get<double>(), 4700.401);
  EXPECT_EQ(complete[0].at("args").at("depth"), 0);
  EXPECT_EQ(complete[0].at("args").at("context"), "stage=lower");
  EXPECT_FALSE(complete[0].at("args").contains("parent"));
  // The hostile name survives as data, unchanged.
  EXPECT_EQ(complete[4].at("name"), kScriptBreakout);
  EXPECT_EQ(complete[4].at("args").at("kernel"), "matmul_kernel");
  EXPECT_EQ(complete[4].at("args").at("parent"), 2);
  EXPECT_EQ(complete[4].at("args").at("depth"), 2);
  // Section 2 is the second process, later on the same time axis.
  EXPECT_EQ(complete[7].at("pid"), 2);
  EXPECT_EQ(complete[7].at("args").at("kernel"), "<b>matmul</b>");
  EXPECT_GT(complete[7].at("ts").get<double>(), complete[0].at("dur").get<double>());

  const auto meta = events_with_phase(trace, "M");
  std::vector<std::string> process_names;
  for (const Json& e : meta) {
    if (e.at("name") == "process_name") process_names.push_back(e.at("args").at("name"));
  }
  EXPECT_EQ(process_names, (std::vector<std::string>{"section 1: stage=lower",
                                                     "section 2: stage=codegen, note=</script>"}));
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
  EXPECT_EQ(trace.at("otherData").at("host"), "buildhost");
}

TEST(ChromeTraceTest, TimesAreExactMicrosecondDecimals) {
  const Profile p = one_section([](TimingStateMachine& sm) {
    sm.begin(1'000'000'000, {"one_ns", ""});
    sm.end(1'000'000'001, {"one_ns"});
    sm.begin(1'000'000'010, {"sub_us", ""});
    sm.end(1'000'000'410, {"sub_us"});
    sm.begin(1'000'001'000, {"us_and_half", ""});
    sm.end(1'000'002'500, {"us_and_half"});
    sm.begin(1'000'003'000, {"whole_ms", ""});
    sm.end(1'001'003'000, {"whole_ms"});
  });
  const std::string trace = render_chrome_trace(p);
  EXPECT_NE(trace.find("\"ts\":0,\"dur\":0.001,"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"ts\":0.01,\"dur\":0.4,"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"ts\":1,\"dur\":1.5,"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"ts\":3,\"dur\":1000,"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"self_us\":0.4,"), std::string::npos) << trace;
  Json parsed;
  EXPECT_NO_THROW(parsed = Json::parse(trace));
}

TEST(ChromeTraceTest, OneTrackPerThreadWithNames) {
  const Profile p = one_section([](TimingStateMachine& sm) {
    sm.begin(0, {"a", "", 1234});
    sm.begin(10, {"b", "", 99});
    sm.end(20, {"b", 99});
    sm.end(30, {"a", 1234});
  });
  const Json trace = Json::parse(render_chrome_trace(p));
  std::map<int, std::string> thread_names;
  for (const Json& e : events_with_phase(trace, "M")) {
    if (e.at("name") == "thread_name") thread_names[e.at("tid")] = e.at("args").at("name");
  }
  EXPECT_EQ(thread_names,
            (std::map<int, std::string>{{1, "thread 0 (tid 1234)"}, {2, "thread 1 (tid 99)"}}));
  const auto complete = events_with_phase(trace, "X");
  ASSERT_EQ(complete.size(), 2u);
  EXPECT_EQ(complete[0].at("name"), "a");
  EXPECT_EQ(complete[0].at("tid"), 1);
  EXPECT_EQ(complete[1].at("name"), "b");
  EXPECT_EQ(complete[1].at("tid"), 2);
  EXPECT_EQ(complete[1].at("args").at("depth"), 0);
}

TEST(ChromeTraceTest, HostileNamesStayValidJson) {
  const std::string control = "ansi\x1b[31mred\x1b[0m\a\x01\x7f tab\tnl\n";
  const std::string quotes = "quote\" back\\slash 'single' \u2028\u2029";
  const std::string invalid =
      "bad\xff\xfe utf8 \xc3( overlong \xc0\xaf surrogate \xed\xa0\x80 end\xe2\x82";
  const std::string huge(1 << 20, 'x');
  const Profile p = one_section(
      [&](TimingStateMachine& sm) {
        Nanoseconds t = 0;
        for (const std::string* name : {&control, &quotes, &invalid, &huge}) {
          sm.begin(t, {*name, *name});
          sm.end(t += 5, {*name});
        }
      },
      "ctx \x1b]0;title\a");
  const Json trace = Json::parse(render_chrome_trace(p));
  const auto complete = events_with_phase(trace, "X");
  ASSERT_EQ(complete.size(), 4u);
  EXPECT_EQ(complete[0].at("name"), control);
  EXPECT_EQ(complete[1].at("name"), quotes);
  // Each byte that is not UTF-8 becomes one U+FFFD.
  EXPECT_EQ(complete[2].at("name"),
            "bad\ufffd\ufffd utf8 \ufffd( overlong \ufffd\ufffd surrogate \ufffd\ufffd\ufffd "
            "end\ufffd\ufffd");
  EXPECT_EQ(complete[2].at("args").at("kernel"), complete[2].at("name"));
  EXPECT_EQ(complete[3].at("name").get<std::string>().size(), huge.size());
  EXPECT_EQ(complete[0].at("args").at("context"), "ctx \x1b]0;title\a");
}

TEST(ChromeTraceTest, EmptyProfileIsAValidTrace) {
  const Json trace = Json::parse(render_chrome_trace(Profile{}));
  EXPECT_TRUE(trace.at("traceEvents").empty());
  const Profile no_records = one_section([](TimingStateMachine&) {}, "empty");
  const Json trace2 = Json::parse(render_chrome_trace(no_records));
  EXPECT_EQ(events_with_phase(trace2, "X").size(), 0u);
  EXPECT_EQ(events_with_phase(trace2, "M").size(), 2u);  // process name and sort index
}

TEST(ChromeTraceTest, FailedPassesAreMarked) {
  const Profile p = one_section([](TimingStateMachine& sm) {
    sm.begin(0, {"broken", ""});
    sm.end(kMicro, {"broken", 0, kRecordFailed});
  });
  const Json trace = Json::parse(render_chrome_trace(p));
  EXPECT_EQ(events_with_phase(trace, "X").at(0).at("args").at("failed"), true);
  (void)kMilli;
}

}  // namespace
}  // namespace passtiming
