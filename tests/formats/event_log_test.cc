#include "passtiming/formats/event_log.h"

#include <gtest/gtest.h>

#include <sstream>

#include "passtiming/engine/errors.h"
#include "passtiming/formats/report.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::golden;
using ::passtiming::testing::LogCapture;

Profile replay(const std::string& text) {
  std::istringstream in(text);
  return replay_event_log(in, "events.jsonl");
}

/// The error for `text`, followed by a valid line so that the bad line is
/// never the (forgivable) cut-off last line of a killed process.
std::string error_of(const std::string& text) {
  try {
    replay(text + "{\"ev\":\"exit_ctx\",\"t_ns\":99}\n");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EventLogTest, SpecExampleReproducesTheSpecReport) {
  Profile p = replay(testing::kSpecExampleEvents);
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(render_session_report(p, 0.0), golden("report/spec_example_context.txt"));
}

TEST(EventLogTest, SectionsWithoutContextAndEmptyLines) {
  Profile p = replay(
      "{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"a\"}\n\n"
      "{\"ev\":\"after\",\"t_ns\":5,\"pass\":\"a\"}\r\n"
      "{\"ev\":\"exit_ctx\",\"t_ns\":6}\n"
      "{\"ev\":\"enter_ctx\",\"t_ns\":7,\"context\":\"second\"}\n"
      "{\"ev\":\"skip\",\"t_ns\":8,\"pass\":\"vetoed\",\"kernel\":\"k\"}\n"
      "{\"ev\":\"exit_ctx\",\"t_ns\":9}\n"
      "{\"ev\":\"before\",\"t_ns\":10,\"pass\":\"b\",\"extra\":[1,2]}\n"
      "{\"ev\":\"after\",\"t_ns\":12,\"pass\":\"b\"}\n");
  ASSERT_EQ(p.sections.size(), 3u);
  EXPECT_EQ(p.sections[0].context, "");
  EXPECT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[1].context, "second");
  EXPECT_EQ(p.sections[1].skipped, 1u);
  EXPECT_EQ(p.sections[2].records[0].inclusive_ns, 2);
}

TEST(EventLogTest, LogCutOffMidCompileKeepsCompletedPassesAndNamesRunningOnes) {
  LogCapture log;
  Profile p = replay(
      "{\"ev\":\"enter_ctx\",\"t_ns\":0}\n"
      "{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"pipeline\"}\n"
      "{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"done\"}\n"
      "{\"ev\":\"after\",\"t_ns\":2,\"pass\":\"done\"}\n"
      "{\"ev\":\"before\",\"t_ns\":3,\"pass\":\"crashing\",\"kernel\":\"k\"}\n");
  ASSERT_EQ(p.sections.size(), 1u);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].name_of(p.sections[0].records[0]), "done");
  EXPECT_EQ(
      log.messages(LogLevel::warning),
      std::vector<std::string>{"Discarding 2 incomplete pass timing frame(s): pipeline, crashing"});
}

TEST(EventLogTest, ThreadsKeepSeparateStacks) {
  Profile p = replay(
      "{\"ev\":\"before\",\"t_ns\":0,\"pass\":\"a\",\"tid\":1}\n"
      "{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"b\",\"tid\":2}\n"
      "{\"ev\":\"after\",\"t_ns\":3,\"pass\":\"a\",\"tid\":1}\n"
      "{\"ev\":\"after\",\"t_ns\":4,\"pass\":\"b\",\"tid\":2}\n");
  ASSERT_EQ(p.sections[0].records.size(), 2u);
  EXPECT_EQ(p.sections[0].records[0].depth, 0);
  EXPECT_EQ(p.sections[0].records[1].depth, 0);
}

TEST(EventLogTest, MalformedInputNamesFileAndLine) {
  EXPECT_EQ(error_of("{\"ev\":\"enter_ctx\",\"t_ns\":0}\n{oops\n"),
            "events.jsonl:2: invalid JSON: The JSON document has an improper structure: missing or "
            "superfluous commas, braces, missing keys, etc.");
  EXPECT_EQ(error_of("[1,2]\n"), "events.jsonl:1: expected a JSON object");
  EXPECT_EQ(error_of("{\"t_ns\":0}\n"), "events.jsonl:1: missing field 'ev'");
  EXPECT_EQ(error_of("{\"ev\":7,\"t_ns\":0}\n"), "events.jsonl:1: field 'ev' must be a string");
  EXPECT_EQ(error_of("{\"ev\":\"launch\",\"t_ns\":0}\n"), "events.jsonl:1: unknown event 'launch'");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"pass\":\"a\"}\n"),
            "events.jsonl:1: missing field 't_ns'");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"t_ns\":1.5,\"pass\":\"a\"}\n"),
            "events.jsonl:1: field 't_ns' must be an integer");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"t_ns\":\"1\",\"pass\":\"a\"}\n"),
            "events.jsonl:1: field 't_ns' must be an integer");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"t_ns\":1}\n"), "events.jsonl:1: missing field 'pass'");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"a\",\"kernel\":3}\n"),
            "events.jsonl:1: field 'kernel' must be a string");
  EXPECT_EQ(error_of("{\"ev\":\"after\",\"t_ns\":1,\"pass\":\"a\",\"tid\":\"x\"}\n"),
            "events.jsonl:1: field 'tid' must be an integer");
  EXPECT_EQ(error_of("{\"ev\":\"enter_ctx\",\"t_ns\":1,\"context\":null}\n"),
            "events.jsonl:1: field 'context' must be a string");
  EXPECT_EQ(error_of("{\"ev\":\"enter_ctx\",\"t_ns\":0}\n{\"ev\":\"meta\"}\n"),
            "events.jsonl:2: 'meta' may only be the first line");
  EXPECT_EQ(error_of("{\"ev\":\"meta\",\"format\":\"other\"}\n"),
            "events.jsonl:1: 'format' must be \"passtiming-events\"");
  EXPECT_EQ(error_of("{\"ev\":\"meta\",\"version\":2}\n"),
            "events.jsonl:1: unsupported event log version 2 (this reader knows 1)");
  EXPECT_EQ(error_of("{\"ev\":\"before\",\"t_ns\":123456789012345678901234567890,\"pass\":\"a\"}\n")
                .rfind("events.jsonl:1: invalid JSON", 0),
            0u);
  EXPECT_NE(error_of("{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"\xff\"}\n")
                .find("events.jsonl:1: invalid JSON: The input is not valid UTF-8"),
            std::string::npos);
}

}  // namespace
}  // namespace passtiming
