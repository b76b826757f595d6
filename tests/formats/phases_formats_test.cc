// The phases of a compile in the formats: the event log's phase lines and
// their replay, the Chrome trace's phase events, the HTML page's phase data.
// Every value exact; phased_profile() (phase_fixtures.h) is the compile.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "passtiming/engine/errors.h"
#include "passtiming/formats/chrome_trace.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/html_report.h"
#include "phase_fixtures.h"
#include "test_support.h"

namespace passtiming {
namespace {

using testing::kSecond;
using testing::phased_profile;
using testing::read_file;
using testing::ScratchDir;
using Json = nlohmann::json;

const ProfileMetadata kMeta{"passtiming 0.1.0", "cc -c a.c", "h", "2024-05-01T12:00:00Z", 9};

Profile replay(const std::string& text) {
  std::istringstream in(text);
  return replay_event_log(in, "e.jsonl");
}

TEST(PhaseEventsTest, TheLogStreamsPhasesAndTheReplayMakesThemAgain) {
  const Profile compile = phased_profile();
  const std::vector<Phase>& p = compile.phases;
  ScratchDir dir;
  auto log = EventLogWriter::open(dir.file("e.jsonl"), kMeta);
  const testing::Events to{*log};
  log->on_phase_begin(0, p[0]);
  log->on_phase_begin(1, p[1]);
  to.enter(0, "stage=lower");
  to.before(0, "parent", "", 0);
  to.after(5 * kSecond, "parent", 0);
  to.exit(5 * kSecond);
  log->on_phase_end(1, p[1]);
  log->on_phase(2, p[2]);
  log->on_phase(3, p[3]);
  log->on_phase_end(0, p[0]);
  ASSERT_TRUE(log->close());
  const std::string text = read_file(dir.file("e.jsonl"));
  EXPECT_EQ(text.substr(text.find('\n') + 1),
            "{\"ev\":\"phase_begin\",\"t_ns\":0,\"phase\":0,\"name\":\"compile\",\"detail\":"
            "\"matmul.py\",\"tid\":7}\n"
            "{\"ev\":\"phase_begin\",\"t_ns\":0,\"phase\":1,\"name\":\"lower\",\"parent\":0,"
            "\"tid\":7}\n"
            "{\"ev\":\"enter_ctx\",\"t_ns\":0,\"context\":\"stage=lower\"}\n"
            "{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"parent\"}\n"
            "{\"ev\":\"after\",\"t_ns\":5000000000,\"pass\":\"parent\"}\n"
            "{\"ev\":\"exit_ctx\",\"t_ns\":5000000000}\n"
            "{\"ev\":\"phase_end\",\"t_ns\":6000000000,\"phase\":1,\"cpu_ns\":5500000000}\n"
            "{\"ev\":\"phase\",\"t_ns\":10000000000,\"phase\":2,\"name\":\"codegen\",\"parent\":0,"
            "\"tid\":7,\"duration_ns\":1000000000}\n"
            "{\"ev\":\"phase\",\"t_ns\":11000000000,\"phase\":3,\"name\":\"nvcc\",\"detail\":"
            "\"kernel.cu\",\"parent\":0,\"tid\":7,\"duration_ns\":500000000,\"failed\":true}\n"
            "{\"ev\":\"phase_end\",\"t_ns\":12000000000,\"phase\":0,\"cpu_ns\":11000000000}\n");

  const Profile replayed = replay(text);
  EXPECT_EQ(replayed.phases, p);
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.sections[0].phase, 1u);  // the phase begun last among those open
}

TEST(PhaseEventsTest, ALogWithoutPhasesReplaysWithoutThem) {
  const Profile replayed = replay(
      "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"a\"}\n"
      "{\"ev\":\"after\",\"t_ns\":5,\"pass\":\"a\"}\n{\"ev\":\"exit_ctx\",\"t_ns\":6}\n");
  EXPECT_TRUE(replayed.phases.empty());
  ASSERT_EQ(replayed.sections.size(), 1u);
  EXPECT_EQ(replayed.sections[0].phase, kNoPhase);
}

TEST(PhaseEventsTest, PhasesACrashLeftOpenFailAtTheLastEvent) {
  const Profile replayed = replay(
      "{\"ev\":\"phase_begin\",\"t_ns\":100,\"phase\":0,\"name\":\"compile\"}\n"
      "{\"ev\":\"phase_begin\",\"t_ns\":150,\"phase\":1,\"name\":\"back end\",\"parent\":0}\n"
      "{\"ev\":\"before\",\"t_ns\":200,\"pass\":\"isel\"}\n"
      "{\"ev\":\"after\",\"t_ns\":260,\"pass\":\"isel\"}\n");
  ASSERT_EQ(replayed.phases.size(), 2u);
  EXPECT_EQ(replayed.phases[0].duration_ns, 160);
  EXPECT_EQ(replayed.phases[1].duration_ns, 110);
  EXPECT_TRUE(replayed.phases[0].failed());
  EXPECT_TRUE(replayed.phases[1].failed());
  EXPECT_EQ(replayed.phases[1].parent, 0u);
  EXPECT_EQ(replayed.sections.at(0).phase, 1u);
}

TEST(PhaseEventsTest, EndingAnOuterPhaseFailsTheInnerOnesStillOpen) {
  const Profile replayed = replay(
      "{\"ev\":\"phase_begin\",\"t_ns\":0,\"phase\":4,\"name\":\"compile\",\"tid\":1}\n"
      "{\"ev\":\"phase_begin\",\"t_ns\":10,\"phase\":9,\"name\":\"parse\",\"parent\":4,"
      "\"tid\":1}\n"
      "{\"ev\":\"phase_end\",\"t_ns\":30,\"phase\":4}\n");
  ASSERT_EQ(replayed.phases.size(), 2u);
  EXPECT_FALSE(replayed.phases[0].failed());
  EXPECT_EQ(replayed.phases[0].duration_ns, 30);
  EXPECT_TRUE(replayed.phases[1].failed());
  EXPECT_EQ(replayed.phases[1].duration_ns, 20);
}

TEST(PhaseEventsTest, BadPhaseLinesNameTheirLine) {
  auto message = [](const std::string& text) {
    try {
      replay(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("{\"ev\":\"phase_end\",\"t_ns\":5,\"phase\":3}\n"),
            "e.jsonl:1: field 'phase' names phase 3, which no earlier line began");
  EXPECT_EQ(message("{\"ev\":\"phase_begin\",\"t_ns\":0,\"phase\":0,\"name\":\"a\"}\n"
                    "{\"ev\":\"phase_end\",\"t_ns\":5,\"phase\":0}\n"
                    "{\"ev\":\"phase_end\",\"t_ns\":6,\"phase\":0}\n"),
            "e.jsonl:3: 'phase_end' of phase 0, which is not open");
  EXPECT_EQ(message("{\"ev\":\"phase_begin\",\"t_ns\":0,\"phase\":0}\n"),
            "e.jsonl:1: missing field 'name'");
  EXPECT_EQ(
      message("{\"ev\":\"phase\",\"t_ns\":0,\"phase\":0,\"name\":\"a\",\"duration_ns\":-1}\n"),
      "e.jsonl:1: field 'duration_ns' must not be negative");
}

TEST(PhaseChromeTraceTest, PhasesAreCompleteEventsWithThePassesNestedBelow) {
  const Json trace = Json::parse(render_chrome_trace(phased_profile()));
  std::vector<std::string> phases;  // "pid/tid name ts dur"
  for (const Json& e : trace.at("traceEvents")) {
    if (e.value("cat", "") != "phase") continue;
    phases.push_back(fmt::format("{}/{} {} {} {}", e.at("pid").get<int>(), e.at("tid").get<int>(),
                                 e.at("name").get<std::string>(), e.at("ts").dump(),
                                 e.at("dur").dump()));
  }
  EXPECT_EQ(phases, (std::vector<std::string>{
                        // The phases' own process, after the two sections' ...
                        "3/1 compile 0 12000000",
                        "3/1 lower 0 6000000",
                        "3/1 codegen 10000000 1000000",
                        "3/1 nvcc 11000000 500000",
                        // ... and each section's phase chain on its first thread.
                        "1/1 compile 0 12000000",
                        "1/1 lower 0 6000000",
                        "2/1 compile 0 12000000",
                        "2/1 codegen 10000000 1000000",
                    }));
  const std::string text = render_chrome_trace(phased_profile());
  EXPECT_NE(text.find("{\"ph\":\"X\",\"pid\":3,\"tid\":1,\"ts\":11000000,\"dur\":500000,\"name\":"
                      "\"nvcc\",\"cat\":\"phase\",\"args\":{\"phase\":3,\"detail\":\"kernel.cu\","
                      "\"parent\":0,\"failed\":true}}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"ph\":\"M\",\"pid\":3,\"tid\":0,\"name\":\"process_name\",\"args\":{"
                      "\"name\":\"phases\"}}"),
            std::string::npos);
  EXPECT_NE(text.find("\"name\":\"compile\",\"cat\":\"phase\",\"args\":{\"phase\":0,\"detail\":"
                      "\"matmul.py\",\"cpu_us\":11000000}"),
            std::string::npos);
}

TEST(PhaseHtmlTest, ThePageCarriesThePhasesAndEachSectionsPhase) {
  const std::string html = render_html_report(phased_profile());
  EXPECT_NE(html.find(",\n\"phases\":[\n[\"compile\",\"matmul.py\",-1,7,0,12000000000,"
                      "11000000000,0],\n[\"lower\",\"\",0,7,0,6000000000,5500000000,0],\n"
                      "[\"codegen\",\"\",0,7,10000000000,1000000000,-1,0],\n[\"nvcc\","
                      "\"kernel.cu\",0,7,11000000000,500000000,-1,1]],\n\"sections\":["),
            std::string::npos);
  EXPECT_NE(html.find("{\"context\":\"stage=jit-lower, kernel=matmul\",\"phase\":1,"),
            std::string::npos);
  EXPECT_NE(html.find("{\"context\":\"stage=codegen\",\"phase\":2,"), std::string::npos);
}

TEST(PhaseFleetTest, APhaseRowPerPhaseWithItsPathAndSections) {
  RunIdentity run;
  run.run_id = "r1";
  run.host = "h";
  run.start_time = "2024-05-01 12:00:00";
  std::string rows;
  write_phase_rows(phased_profile(), run, [&](std::string_view text) { rows += text; });
  const std::string head =
      "{\"schema_version\":2,\"run_id\":\"r1\",\"host\":\"h\",\"start_time\":\"2024-05-01 "
      "12:00:00\",\"command\":\"\",\"tool\":\"\",\"commit\":\"\",\"build_id\":\"\","
      "\"meta_keys\":[],\"meta_values\":[],";
  EXPECT_EQ(rows,
            head +
                "\"phase\":0,\"parent\":-1,\"path\":\"compile\",\"name\":\"compile\","
                "\"detail\":\"matmul.py\",\"depth\":0,\"thread\":7,\"start_ns\":0,"
                "\"duration_ns\":12000000000,\"cpu_ns\":11000000000,\"failed\":0,"
                "\"section_count\":0}\n" +
                head +
                "\"phase\":1,\"parent\":0,\"path\":\"compile/lower\",\"name\":\"lower\","
                "\"detail\":\"\",\"depth\":1,\"thread\":7,\"start_ns\":0,\"duration_ns\":"
                "6000000000,\"cpu_ns\":5500000000,\"failed\":0,\"section_count\":1}\n" +
                head +
                "\"phase\":2,\"parent\":0,\"path\":\"compile/codegen\",\"name\":\"codegen\","
                "\"detail\":\"\",\"depth\":1,\"thread\":7,\"start_ns\":10000000000,"
                "\"duration_ns\":1000000000,\"cpu_ns\":-1,\"failed\":0,\"section_count\":1}\n" +
                head +
                "\"phase\":3,\"parent\":0,\"path\":\"compile/nvcc\",\"name\":\"nvcc\","
                "\"detail\":\"kernel.cu\",\"depth\":1,\"thread\":7,\"start_ns\":11000000000,"
                "\"duration_ns\":500000000,\"cpu_ns\":-1,\"failed\":1,\"section_count\":0}\n");
  std::string none;
  write_phase_rows(testing::sample_session_profile(), run,
                   [&](std::string_view text) { none += text; });
  EXPECT_EQ(none, "");
}

TEST(PhaseFleetTest, OtlpPutsEachSectionUnderItsPhasesSpanInOneTrace) {
  RunIdentity run;
  run.run_id = "r1";
  std::string text;
  write_otlp(phased_profile(), run, [&](std::string_view piece) { text += piece; });
  const Json spans = Json::parse(text)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 10u);   // 4 phases, 2 sections, 4 passes
  std::vector<std::string> tree;  // "name <- parent's name"
  std::map<std::string, std::string> names;
  for (const Json& span : spans) names[span["spanId"]] = span["name"];
  for (const Json& span : spans) {
    EXPECT_EQ(span["traceId"], spans[0]["traceId"]);
    tree.push_back(span["name"].get<std::string>() + " <- " +
                   (span.contains("parentSpanId") ? names[span["parentSpanId"]] : "-"));
  }
  EXPECT_EQ(tree, (std::vector<std::string>{
                      "compile <- -", "lower <- compile", "codegen <- compile", "nvcc <- compile",
                      "stage=jit-lower, kernel=matmul <- lower", "child <- parent",
                      "parent <- stage=jit-lower, kernel=matmul", "stage=codegen <- codegen",
                      "tl.LowerHost <- stage=codegen", "tl.LowerDevice <- stage=codegen"}));
  EXPECT_EQ(spans[3]["status"]["code"], 2);  // nvcc failed
  // One clock from the compile's start (2024-05-01T12:00:00Z), the first
  // phase's, and the passes on it: `parent` began with the compile.
  EXPECT_EQ(spans[0]["startTimeUnixNano"], "1714564800000000000");
  EXPECT_EQ(spans[0]["endTimeUnixNano"], "1714564812000000000");
  EXPECT_EQ(spans[6]["startTimeUnixNano"], "1714564800000000000");
}

}  // namespace
}  // namespace passtiming
