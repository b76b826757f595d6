// write_otlp's lines under a limit: the spans in order over lines that each
// parse alone and repeat the resource, every span once, every parent a span
// of the output; a span that fits on no line; and a 400k-record profile at
// the default limit of 1 MiB.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/fleet.h"
#include "phase_fixtures.h"
#include "synthetic_profile.h"

namespace passtiming {
namespace {

using ::passtiming::bench::synthetic_profile;
using ::testing::HasSubstr;
using Json = nlohmann::json;

RunIdentity run_of(const Profile& profile) {
  RunIdentity run;
  run.run_id = "r1";
  run.host = profile.metadata.host;
  run.command = profile.metadata.command;
  return run;
}

/// The output's lines, each with its newline.
std::vector<std::string> otlp_lines(const Profile& profile, std::size_t max_line_bytes) {
  std::string text;
  write_otlp(
      profile, run_of(profile), [&](std::string_view piece) { text += piece; }, max_line_bytes);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    EXPECT_NE(end, std::string::npos) << "the output ends in a newline";
    if (end == std::string::npos) break;
    lines.push_back(text.substr(at, end + 1 - at));
    at = end + 1;
  }
  return lines;
}

/// The spans of every line, in order.
std::vector<Json> spans_of(const std::vector<std::string>& lines) {
  std::vector<Json> spans;
  for (const std::string& line : lines) {
    const Json doc = Json::parse(line);
    for (const Json& span : doc["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
      spans.push_back(span);
    }
  }
  return spans;
}

/// The phased compile's ten spans take 414 to 588 bytes each, and each
/// line's resource, scope and end 665: a limit of 2400 bytes puts three on
/// a line, then the last alone. Four lines, in order, each a whole document
/// with the same resource and scope, together the one line of no limit.
TEST(OtlpLinesTest, ALimitSplitsTheSpansInOrderOverLinesThatEachParse) {
  const Profile profile = testing::phased_profile();
  const std::vector<std::string> whole = otlp_lines(profile, kOtlpMaxLineBytes);
  ASSERT_EQ(whole.size(), 1u);
  const Json whole_doc = Json::parse(whole[0]);

  constexpr std::size_t kLimit = 2400;
  const std::vector<std::string> lines = otlp_lines(profile, kLimit);
  std::vector<std::size_t> per_line;
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), kLimit);
    const Json doc = Json::parse(line);
    EXPECT_EQ(doc["resourceSpans"][0]["resource"], whole_doc["resourceSpans"][0]["resource"]);
    EXPECT_EQ(doc["resourceSpans"][0]["scopeSpans"][0]["scope"],
              whole_doc["resourceSpans"][0]["scopeSpans"][0]["scope"]);
    per_line.push_back(doc["resourceSpans"][0]["scopeSpans"][0]["spans"].size());
  }
  EXPECT_EQ(per_line, (std::vector<std::size_t>{3, 3, 3, 1}));

  const std::vector<Json> spans = spans_of(lines);
  EXPECT_EQ(spans, spans_of(whole));  // every span once, in order, as without a limit
  std::set<std::string> ids;
  for (const Json& span : spans) {
    EXPECT_TRUE(ids.insert(span["spanId"].get<std::string>()).second);
    EXPECT_EQ(span["traceId"], spans[0]["traceId"]);  // with phases, one trace
  }
  std::size_t roots = 0;
  for (const Json& span : spans) {
    if (span.contains("parentSpanId")) {
      EXPECT_TRUE(ids.count(span["parentSpanId"].get<std::string>())) << span;
    } else {
      ++roots;
    }
  }
  EXPECT_EQ(roots, 1u);  // the compile's phase
}

/// The limit counts the newline: a line of exactly the limit stays whole,
/// one byte less splits it.
TEST(OtlpLinesTest, TheLimitCountsTheNewline) {
  const Profile profile = testing::sample_session_profile();
  const std::vector<std::string> whole = otlp_lines(profile, kOtlpMaxLineBytes);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(otlp_lines(profile, whole[0].size()), whole);
  const std::vector<std::string> split = otlp_lines(profile, whole[0].size() - 1);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(spans_of(split), spans_of(whole));
}

TEST(OtlpLinesTest, AProfileWithNoSpansIsOneLineWithNone) {
  Profile profile = testing::sample_session_profile();
  profile.sections.clear();
  const std::vector<std::string> lines = otlp_lines(profile, 1000);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(Json::parse(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"].empty());
}

/// A span that fits on no line is an error naming it, its name cut short;
/// nothing of the profile is dropped or truncated instead.
TEST(OtlpLinesTest, ASpanThatFitsOnNoLineIsAnErrorNamingIt) {
  Profile profile = testing::sample_session_profile();
  Section& section = profile.sections[1];
  section.records[0].name = section.names.intern(std::string(3000, 'x'));
  try {
    otlp_lines(profile, 3000);
    FAIL() << "expected std::length_error";
  } catch (const std::length_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("OTLP: the span of pass '" + std::string(80, 'x') +
                                    "...' (3000 bytes) (section 1, sequence " +
                                    std::to_string(section.records[0].sequence) + ") takes "));
    EXPECT_THAT(e.what(), HasSubstr("over the limit of 3000 bytes"));
  }
  EXPECT_EQ(spans_of(otlp_lines(profile, 5000)).size(), 6u);  // fits a larger limit

  Profile long_command = testing::sample_session_profile();
  long_command.metadata.command = std::string(3000, 'c');
  EXPECT_THAT([&] { otlp_lines(long_command, 3000); },
              ::testing::ThrowsMessage<std::length_error>(
                  HasSubstr("OTLP: the resource and scope alone take")));
}

/// A record whose parent is no record of its section (a profile edited by
/// hand, or cut short) hangs under the section's span: no parentSpanId
/// names a span that is not in the output.
TEST(OtlpLinesTest, AParentThatIsNoRecordOfTheSectionBecomesTheSectionsSpan) {
  Profile profile = testing::sample_session_profile();
  profile.sections[0].records[0].parent = 999'999;
  const std::vector<Json> spans = spans_of(otlp_lines(profile, kOtlpMaxLineBytes));
  ASSERT_EQ(spans.size(), 6u);  // section 0's span, its two records, then section 1's three
  EXPECT_FALSE(spans[0].contains("parentSpanId"));
  EXPECT_EQ(spans[1]["parentSpanId"], spans[0]["spanId"]);

  // Sequences far apart (looked up in a sorted list, not a bit each): the
  // child still hangs under its parent.
  Profile sparse = testing::sample_session_profile();
  Section& section = sparse.sections[0];  // child, then parent
  ASSERT_EQ(section.records[0].parent, section.records[1].sequence);
  section.records[1].sequence = 3'000'000'000u;
  section.records[0].parent = 3'000'000'000u;
  const std::vector<Json> sparse_spans = spans_of(otlp_lines(sparse, kOtlpMaxLineBytes));
  EXPECT_EQ(sparse_spans[1]["parentSpanId"], sparse_spans[2]["spanId"]);
  EXPECT_EQ(sparse_spans[2]["parentSpanId"], sparse_spans[0]["spanId"]);
}

/// 400k records at the default limit: every line parses (simdjson) and is
/// at most 1 MiB, the spans are the section's root and one per record, each
/// once, and every parentSpanId is one of them.
TEST(OtlpLinesTest, FourHundredThousandRecordsComeInLinesOfAtMostOneMebibyte) {
  constexpr std::size_t kRecords = 400'000;
  const Profile profile = synthetic_profile(kRecords);
  ASSERT_EQ(profile.record_count(), kRecords);

  simdjson::dom::parser parser;
  std::string pending;
  std::size_t lines = 0, longest = 0, spans = 0;
  std::unordered_set<std::string> ids;
  std::vector<std::string> parents;
  std::set<std::string> traces;
  auto read_line = [&](std::string_view line) {
    ++lines;
    longest = std::max(longest, line.size() + 1);  // with its newline
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line.data(), line.size()).get(doc), simdjson::SUCCESS)
        << "line " << lines;
    simdjson::dom::array list;
    ASSERT_EQ(doc["resourceSpans"].at(0)["scopeSpans"].at(0)["spans"].get(list), simdjson::SUCCESS);
    for (simdjson::dom::element span : list) {
      ++spans;
      ids.emplace(std::string_view(span["spanId"]));
      traces.emplace(std::string_view(span["traceId"]));
      std::string_view parent;
      if (span["parentSpanId"].get(parent) == simdjson::SUCCESS) parents.emplace_back(parent);
    }
  };
  write_otlp(profile, run_of(profile), [&](std::string_view piece) {
    pending += piece;
    std::size_t at = 0;
    for (std::size_t end; (end = pending.find('\n', at)) != std::string::npos; at = end + 1) {
      read_line(std::string_view(pending).substr(at, end - at));
    }
    pending.erase(0, at);
  });
  EXPECT_EQ(pending, "");
  EXPECT_LE(longest, kOtlpMaxLineBytes);
  EXPECT_GE(lines, 200u);  // about 560 bytes a span
  EXPECT_EQ(spans, kRecords + 1);
  EXPECT_EQ(ids.size(), spans);
  EXPECT_EQ(traces.size(), 1u);
  EXPECT_EQ(parents.size(), kRecords);
  EXPECT_TRUE(std::all_of(parents.begin(), parents.end(),
                          [&](const std::string& id) { return ids.count(id) == 1; }));
}

}  // namespace
}  // namespace passtiming
