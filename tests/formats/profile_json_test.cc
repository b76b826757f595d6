#include "passtiming/profile_json.h"

#include <gtest/gtest.h>

#include <string>

#include "passtiming/errors.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::kSecond;
using testing::run_sample_session;

/// The error a parse of `text` throws, as `what()`.
std::string parse_error(const std::string& text) {
  try {
    parse_profile_json(text, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProfileJsonTest, SessionProfileMatchesTheGoldenFile) {
  EXPECT_EQ(profile_to_json(run_sample_session()), golden("profile/session.json"));
}

TEST(ProfileJsonTest, ReadingAndWritingAgainIsByteIdentical) {
  const std::string text = golden("profile/session.json");
  const Profile p = parse_profile_json(text, "session.json");
  EXPECT_EQ(profile_to_json(p), text);
}

TEST(ProfileJsonTest, StreamedJsonIsTheSameTextInPieces) {
  // Thousands of records: the text runs to several 64 KiB pieces.
  Profile profile = run_sample_session();
  Section& first = profile.sections.front();
  const std::vector<Record> sample = first.records;
  for (int copy = 0; copy < 800; ++copy) {
    first.records.insert(first.records.end(), sample.begin(), sample.end());
  }
  std::vector<std::string> pieces;
  write_profile_json(profile, [&](std::string_view piece) { pieces.emplace_back(piece); });
  std::string joined;
  for (const std::string& piece : pieces) joined += piece;
  EXPECT_EQ(joined, profile_to_json(profile));
  EXPECT_GT(pieces.size(), 2u);
}

TEST(ProfileJsonTest, ReadsEveryField) {
  const Profile p = parse_profile_json(golden("profile/session.json"), "session.json");
  EXPECT_EQ(p.metadata.tool, "passtiming 0.1.0");
  EXPECT_EQ(p.metadata.command, "python compile.py --kernel matmul");
  EXPECT_EQ(p.metadata.host, "build-host");
  EXPECT_EQ(p.metadata.start_time, "2024-05-01T12:00:00Z");
  EXPECT_EQ(p.metadata.pid, 4242);
  ASSERT_EQ(p.sections.size(), 2u);
  const Section& s = p.sections[0];
  EXPECT_EQ(s.context, "stage=jit-lower, kernel=matmul");
  ASSERT_EQ(s.records.size(), 2u);
  const Record& child = s.records[0];
  EXPECT_EQ(s.name_of(child), "child");
  EXPECT_EQ(s.kernel_of(child), "matmul");
  EXPECT_EQ(child.depth, 1);
  EXPECT_EQ(child.sequence, 1u);
  EXPECT_EQ(child.parent, 0u);
  EXPECT_EQ(child.start_ns, 1 * kSecond);
  EXPECT_EQ(child.inclusive_ns, 2 * kSecond);
  EXPECT_EQ(child.self_ns, 2 * kSecond);
  EXPECT_EQ(s.records[1].parent, kNoParent);
  EXPECT_EQ(s.records[1].self_ns, 3 * kSecond);
  EXPECT_EQ(p.sections[1].records.size(), 2u);
}

TEST(ProfileJsonTest, KeepsFailedFlagThreadsAndEscapes) {
  Profile p;
  Section& s = p.sections.emplace_back();
  s.context = "quote \" backslash \\ newline \n tab \t bell \x07";
  s.skipped = 3;
  s.threads = {0, 18446744073709551615ull};
  Record r;
  r.name = s.names.intern("pass\xE2\x82\xAC");  // a valid euro sign
  r.thread = 1;
  r.flags = kRecordFailed;
  r.start_ns = -5;
  r.inclusive_ns = 9'223'372'036'854'775'807;
  s.records.push_back(r);
  const std::string json = profile_to_json(p);
  EXPECT_NE(json.find("\"failed\":true"), std::string::npos);
  EXPECT_NE(json.find("\\\" backslash \\\\ newline \\n tab \\t bell \\u0007"), std::string::npos);
  const Profile back = parse_profile_json(json, "x.json");
  EXPECT_EQ(profile_to_json(back), json);
  EXPECT_EQ(back.sections[0].context, s.context);
  EXPECT_EQ(back.sections[0].threads[1], 18446744073709551615ull);
  EXPECT_EQ(back.sections[0].records[0].flags, kRecordFailed);
  EXPECT_EQ(back.sections[0].name_of(back.sections[0].records[0]), "pass\xE2\x82\xAC");
}

TEST(ProfileJsonTest, ExtremeNumbersAreWrittenExactly) {
  Profile p;
  Section& s = p.sections.emplace_back();
  s.threads = {0};
  Record r;
  r.name = s.names.intern("P");
  r.kernel = s.names.intern("k");
  r.depth = 65535;
  r.sequence = 4'294'967'295u;
  r.parent = 4'294'967'294u;  // one below kNoParent: a number, not null
  r.start_ns = -9'223'372'036'854'775'807 - 1;
  r.inclusive_ns = 9'223'372'036'854'775'807;
  r.self_ns = 0;
  s.records.push_back(r);
  r.parent = kNoParent;
  r.depth = 0;
  r.sequence = 0;
  r.start_ns = 1;
  r.inclusive_ns = 10;
  r.self_ns = 9;
  s.records.push_back(r);
  const std::string json = profile_to_json(p);
  EXPECT_NE(json.find("\n{\"name\":\"P\",\"kernel\":\"k\",\"depth\":65535,"
                      "\"sequence\":4294967295,\"parent\":4294967294,\"thread\":0,"
                      "\"start_ns\":-9223372036854775808,"
                      "\"inclusive_ns\":9223372036854775807,\"self_ns\":0},\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\n{\"name\":\"P\",\"kernel\":\"k\",\"depth\":0,\"sequence\":0,"
                      "\"parent\":null,\"thread\":0,\"start_ns\":1,\"inclusive_ns\":10,"
                      "\"self_ns\":9}]}"),
            std::string::npos)
      << json;
}

TEST(ProfileJsonTest, LongNamesAreWrittenWhole) {
  // A record's line is built in a 1 KiB buffer when its two quoted names
  // take at most 768 bytes; 763 letters plus "k" is the last such size, 764
  // the first that is appended piece by piece.
  for (std::size_t length : {763u, 764u, 5000u}) {
    Profile p;
    Section& s = p.sections.emplace_back();
    s.threads = {0};
    const std::string name(length, 'a');
    Record r;
    r.name = s.names.intern(name);
    r.kernel = s.names.intern("k");
    r.parent = kNoParent;
    r.start_ns = 12'345'678'901'234;
    r.inclusive_ns = 42;
    r.self_ns = 42;
    s.records.push_back(r);
    r.sequence = 1;
    s.records.push_back(r);
    const std::string line = "{\"name\":\"" + name +
                             "\",\"kernel\":\"k\",\"depth\":0,\"sequence\":0,\"parent\":null,"
                             "\"thread\":0,\"start_ns\":12345678901234,\"inclusive_ns\":42,"
                             "\"self_ns\":42}";
    const std::string json = profile_to_json(p);
    EXPECT_NE(json.find("[\n" + line + ",\n"), std::string::npos) << length;
    EXPECT_EQ(profile_to_json(parse_profile_json(json, "long.json")), json) << length;
  }
}

TEST(ProfileJsonTest, InvalidUtf8InANameIsWrittenAsReplacementCharacter) {
  Profile p;
  Section& s = p.sections.emplace_back();
  Record r;
  r.name = s.names.intern(
      "bad\xFF"
      "byte");
  s.threads = {0};
  s.records.push_back(r);
  const Profile back = parse_profile_json(profile_to_json(p), "x.json");
  EXPECT_EQ(back.sections[0].name_of(back.sections[0].records[0]),
            "bad\xEF\xBF\xBD"
            "byte");
}

TEST(ProfileJsonTest, HandWrittenProfileWithDefaults) {
  const Profile p = parse_profile_json(
      R"({"sections":[{"records":[{"sequence":0,"depth":0,"name":"a","start_ns":0,)"
      R"("inclusive_ns":10,"self_ns":10,"unknown":[1,{"x":2}]}]}],"version":1,)"
      R"("format":"passtiming-profile"})",
      "hand.json");
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].threads, std::vector<std::uint64_t>{0});
  EXPECT_EQ(p.sections[0].records[0].parent, kNoParent);
}

// Without a thread table the table is made of the thread keys in use, so a
// key of four billion costs one entry, not a table of four billion.
TEST(ProfileJsonTest, ThreadKeysWithoutATableMakeTheTable) {
  const std::string text =
      R"({"format":"passtiming-profile","version":1,"sections":[{"records":[)"
      R"({"name":"a","depth":0,"sequence":0,"start_ns":0,"inclusive_ns":1,"self_ns":1,"thread":4000000000},)"
      R"({"name":"b","depth":0,"sequence":1,"start_ns":1,"inclusive_ns":1,"self_ns":1,"thread":7},)"
      R"({"name":"c","depth":0,"sequence":2,"start_ns":2,"inclusive_ns":1,"self_ns":1,"thread":7}]}]})";
  // Both readers: the fast one, and the located one behind a later error.
  const Profile p = parse_profile_json(text, "keys.json");
  const Section& s = p.sections[0];
  EXPECT_EQ(s.threads, (std::vector<std::uint64_t>{7, 4000000000}));
  EXPECT_EQ(s.records[0].thread, 1u);
  EXPECT_EQ(s.records[1].thread, 0u);
  EXPECT_EQ(s.records[2].thread, 0u);
  // An error after the sections sends the text to the located reader, which
  // reads the sections first, by the same rule.
  std::string broken = text;
  broken.insert(broken.size() - 1, R"(,"metadata":7)");
  EXPECT_EQ(parse_error(broken), "bad.json:1: field 'metadata' must be an object");
}

// Malformed inputs: each names the file, the line and, where there is one,
// the field.
TEST(ProfileJsonTest, TruncatedFile) {
  std::string text = golden("profile/session.json");
  const std::size_t cut = text.find("\"self_ns\"", text.find("tl.LowerHost"));
  EXPECT_EQ(parse_error(text.substr(0, cut + 5)),
            "bad.json:8: unexpected end of input inside a string (truncated file?)");
  EXPECT_EQ(parse_error(text.substr(0, cut)),
            "bad.json:8: unexpected end of input: an object or array is not closed (truncated "
            "file?)");
}

TEST(ProfileJsonTest, WrongTypes) {
  std::string text = golden("profile/session.json");
  std::string bad = text;
  bad.replace(bad.find("\"depth\":1"), 9, "\"depth\":\"1\"");
  EXPECT_EQ(parse_error(bad), "bad.json:5: field 'depth' must be an integer from 0 to 65535");
  bad = text;
  bad.replace(bad.find("\"name\":\"parent\""), 15, "\"name\":17");
  EXPECT_EQ(parse_error(bad), "bad.json:6: field 'name' must be a string");
  bad = text;
  bad.replace(bad.find("\"version\":1"), 11, "\"version\":3");
  EXPECT_EQ(parse_error(bad),
            "bad.json:1: unsupported profile version 3 (this reader knows 1 to 2)");
  EXPECT_EQ(parse_error("[1,2]"), "bad.json:1: expected a JSON object");
  EXPECT_EQ(parse_error("{\"a\":1}"),
            "bad.json:1: not a passtiming profile: missing field 'format'");
  bad = text;
  bad.replace(bad.find("\"self_ns\":2000000000"), 20, "\"x\":0");
  EXPECT_EQ(parse_error(bad), "bad.json:5: record without field 'self_ns'");
}

TEST(ProfileJsonTest, InvalidUtf8) {
  std::string bad = golden("profile/session.json");
  bad.replace(bad.find("tl.LowerHost"), 2, "t\xC0");
  EXPECT_EQ(parse_error(bad), "bad.json:8: invalid UTF-8");
}

TEST(ProfileJsonTest, NumbersBeyond64Bits) {
  std::string bad = golden("profile/session.json");
  bad.replace(bad.find("\"start_ns\":1000000000"), 21, "\"start_ns\":100000000000000000000000");
  EXPECT_EQ(parse_error(bad),
            "bad.json:5: field 'start_ns' must be an integer from -9223372036854775808 to "
            "9223372036854775807");
  bad = golden("profile/session.json");
  bad.replace(bad.find("\"inclusive_ns\":2000000000"), 25, "\"inclusive_ns\":-1");
  EXPECT_EQ(parse_error(bad),
            "bad.json:5: field 'inclusive_ns' must be an integer from 0 to 9223372036854775807");
}

TEST(ProfileJsonTest, HundredMegabyteLine) {
  std::string bad = golden("profile/session.json");
  bad.replace(bad.find("\"tl.LowerHost\""), 14, "\"" + std::string(100u << 20, 'x') + "\"");
  EXPECT_EQ(parse_error(bad), "bad.json:8: field 'name' is longer than 1048576 bytes");
  EXPECT_EQ(parse_error(std::string(100u << 20, '{')).substr(0, 25), "bad.json:1: invalid JSON:");
}

}  // namespace
}  // namespace passtiming
