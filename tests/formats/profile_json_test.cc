/// The JSON profile: its writer against the golden files, and its one
/// reader in each of its modes (fast, located, streamed), which must agree.
#include "passtiming/formats/profile_json.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "formats/profile_json_reader.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/profile_io.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::kSecond;
using testing::read_file;
using testing::sample_session_profile;
using testing::ScratchDir;

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
  EXPECT_EQ(profile_to_json(sample_session_profile()), golden("profile/session.json"));
}

TEST(ProfileJsonTest, ReadingAndWritingAgainIsByteIdentical) {
  const std::string text = golden("profile/session.json");
  const Profile p = parse_profile_json(text, "session.json");
  EXPECT_EQ(profile_to_json(p), text);
}

TEST(ProfileJsonTest, StreamedJsonIsTheSameTextInPieces) {
  // Thousands of records: the text runs to several 64 KiB pieces.
  Profile profile = sample_session_profile();
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
  bad.replace(bad.find("\"version\":1"), 11, "\"version\":4");
  EXPECT_EQ(parse_error(bad),
            "bad.json:1: unsupported profile version 4 (this reader knows 1 to 3)");
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

// ---------------------------------------------------------------- the modes

/// `text` read in the located mode alone, as JSON again.
std::string located_json(const std::string& text) {
  const simdjson::padded_string padded(text);
  return profile_to_json(detail::read_profile_json_located(padded, "located.json"));
}

TEST(ProfileJsonTest, TheFastAndTheLocatedModeReadTheSameProfile) {
  Profile with_metrics = sample_session_profile();
  with_metrics.metrics.recorded.insert(Metric::cpu);
  with_metrics.metrics.unavailable.push_back({Metric::instructions, "no counters"});
  Section& s = with_metrics.sections.front();
  s.metrics.resize(s.records.size());
  s.metrics[0].cpu_ns = 7;
  s.metrics[1].ir_flags = kIrChangeKnown | kIrChanged;
  s.records[1].flags = kRecordFailed;
  const std::string texts[] = {
      golden("profile/session.json"), profile_to_json(with_metrics),
      R"({"sections":[{"records":[{"sequence":0,"depth":0,"name":"a","start_ns":0,)"
      R"("inclusive_ns":10,"self_ns":10,"thread":9,"x":[1]}]}],"version":1,)"
      R"("format":"passtiming-profile"})"};
  for (const std::string& text : texts) {
    const std::string fast = profile_to_json(parse_profile_json(text, "fast.json"));
    EXPECT_EQ(located_json(text), fast);
    const std::optional<Profile> alone =
        detail::read_profile_json_fast(simdjson::padded_string(text));
    ASSERT_TRUE(alone.has_value());
    EXPECT_EQ(profile_to_json(*alone), fast);
  }
  EXPECT_FALSE(detail::read_profile_json_fast(simdjson::padded_string(std::string("{}"))));
}

// JSON's -0 is zero: every mode reads it where a non-negative integer goes
// (a fuzzer found the located mode refusing what the fast mode read).
TEST(ProfileJsonTest, NegativeZeroIsZeroInEveryMode) {
  const std::string text = R"({"format":"passtiming-profile","version":1,"sections":[{"records":[)"
                           R"({"sequence":-0,"depth":0,"name":"a","start_ns":0,"inclusive_ns":10,)"
                           R"("self_ns":10,"thread":-0}]}]})";
  const std::optional<Profile> fast = detail::read_profile_json_fast(simdjson::padded_string(text));
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fast->sections[0].records[0].sequence, 0u);
  EXPECT_EQ(located_json(text), profile_to_json(*fast));
  EXPECT_EQ(profile_to_json(parse_profile_json(text, "p.json")), profile_to_json(*fast));
}

// The located mode skips unknown members without checking the syntax inside
// them, so it reads a text the fast mode refuses; such a text is refused with
// no better place than the first line.
TEST(ProfileJsonTest, ASyntaxErrorInsideAnUnknownMemberIsAMalformedProfile) {
  const std::string text =
      R"({"format":"passtiming-profile","version":1,"x":{"a""b"},"sections":[]})";
  EXPECT_FALSE(detail::read_profile_json_fast(simdjson::padded_string(text)));
  EXPECT_EQ(located_json(text), profile_to_json(Profile{}));
  EXPECT_EQ(parse_error(text), "bad.json:1: malformed profile");
}

// ---------------------------------------------------------------- the streamed mode
//
// The streamed mode against the whole-file read: the same profile for every
// file in the writer's layout, and no answer (so that the whole-file read
// answers, naming the line) for anything else.

/// Three sections: hostile names on two threads with a failed pass, an
/// empty one, and `many` records, enough for several megabyte batches.
Profile sample_profile(std::size_t many) {
  Profile profile;
  profile.metadata = {"passtiming 0.1.0", "cc -c \"a]},\".c", "host", "2024-01-01T00:00:00Z", 9};
  TimingStateMachine sm;
  sm.enter(0, "stage=\"lower\"\n]},");
  sm.begin(10, {"quote\"back\\slash", "k]}", 1});
  sm.begin(11, {"\x1b[31mred\x1b[0m\t]},", "", 2});
  sm.end(20, {"\x1b[31mred\x1b[0m\t]},", 2});
  sm.end(30, {"quote\"back\\slash", 1});
  sm.begin(40, {"</script>", "\xc3\xa9t\xc3\xa9", 1});
  sm.end(45, {"</script>", 1, kRecordFailed});
  sm.exit(50);
  profile.sections.push_back(sm.take_section());
  sm.enter(60, "");
  sm.exit(61);
  profile.sections.push_back(sm.take_section());
  sm.enter(100, "stage=codegen");
  Nanoseconds t = 100;
  for (std::size_t i = 0; i + 1 < many; i += 2) {
    const std::string outer = fmt::format("pass{}", i % 61);
    const std::string inner = fmt::format("inner{}", i % 17);
    const std::string kernel = fmt::format("kernel_{}", i % 5);
    sm.begin(t += 3, {outer, kernel});
    sm.begin(t += 5, {inner, kernel});
    sm.end(t += 1'000, {inner});
    sm.end(t += 7, {outer});
  }
  sm.exit(t + 1);
  profile.sections.push_back(sm.take_section());
  return profile;
}

std::optional<Profile> stream(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  const auto size = static_cast<std::uint64_t>(read_file(path).size());
  std::optional<Profile> profile = detail::read_profile_json_streamed(fd, size);
  ::close(fd);
  return profile;
}

/// The message of the error the whole-file read gives for `text`.
std::string whole_file_error(const std::string& text) {
  try {
    parse_profile_text(text, "p.json");
  } catch (const InputError& e) {
    return fmt::format("{}:{}: {}", "p.json", e.line(), e.message());
  }
  return "no error";
}

std::string load_error(const std::string& path) {
  try {
    load_profile(path);
  } catch (const InputError& e) {
    return fmt::format("{}:{}: {}", "p.json", e.line(), e.message());
  }
  return "no error";
}

/// The text of `text` with line `line` (1-based) replaced by `replacement`.
std::string replace_line(const std::string& text, std::size_t line,
                         const std::string& replacement) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i < line; ++i) begin = text.find('\n', begin) + 1;
  const std::size_t end = text.find('\n', begin);
  return text.substr(0, begin) + replacement + text.substr(end);
}

/// `bad` is refused: the streamed reader declines it, and load_profile
/// reports the whole-file reader's error, which there is.
void expect_refused_as_by_the_whole_file_reader(const ScratchDir& dir, const std::string& bad) {
  const std::string path = dir.write("p.json", bad);
  EXPECT_FALSE(stream(path).has_value());
  EXPECT_NE(whole_file_error(bad), "no error");
  EXPECT_EQ(load_error(path), whole_file_error(bad));
}

TEST(ProfileJsonStreamedTest, GivesTheProfileTheWholeFileReaderGives) {
  ScratchDir dir;
  const std::string path = dir.file("p.json");
  write_profile_file(sample_profile(40'000), path);
  const std::string text = read_file(path);
  ASSERT_GT(text.size(), std::size_t{4} << 20);  // several batches

  const std::optional<Profile> streamed = stream(path);
  ASSERT_TRUE(streamed.has_value());
  EXPECT_EQ(profile_to_json(*streamed), text);
  ASSERT_EQ(streamed->sections.size(), 3u);
  EXPECT_EQ(streamed->sections[0].threads, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(streamed->sections[0].name_of(streamed->sections[0].records[0]),
            "\x1b[31mred\x1b[0m\t]},");
  EXPECT_TRUE(streamed->sections[1].records.empty());
  EXPECT_EQ(streamed->sections[2].records.size(), 40'000u);
  // load_profile streams a file this size, and agrees.
  EXPECT_EQ(profile_to_json(load_profile(path)), text);
}

TEST(ProfileJsonStreamedTest, ASmallProfileAndAnEmptyOneStreamToo) {
  ScratchDir dir;
  const std::string small = dir.file("small.json");
  write_profile_file(sample_profile(4), small);
  ASSERT_TRUE(stream(small).has_value());
  EXPECT_EQ(profile_to_json(*stream(small)), read_file(small));
  const std::string empty = dir.file("empty.json");
  write_profile_file(Profile{}, empty);
  ASSERT_TRUE(stream(empty).has_value());
  EXPECT_EQ(profile_to_json(*stream(empty)), read_file(empty));
}

TEST(ProfileJsonStreamedTest, OtherLayoutsAreLeftToTheWholeFileReader) {
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  const std::string expected = profile_to_json(parse_profile_text(canonical, "p.json"));
  const nlohmann::json json = nlohmann::json::parse(canonical);
  std::string crlf;
  for (char c : canonical) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const std::string layouts[] = {json.dump(), json.dump(1), crlf};
  for (const std::string& layout : layouts) {
    const std::string path = dir.write("p.json", layout);
    EXPECT_FALSE(stream(path).has_value());
    EXPECT_EQ(profile_to_json(load_profile(path)),
              profile_to_json(parse_profile_text(layout, "x")));
  }
  // Unknown keys are ignored by both readers. A record whose last key holds an
  // array ends its line with "]}," as the last record of a section does; the
  // streamed reader then declines, and the file still reads.
  std::string extra = canonical;
  const std::size_t first_record = extra.find("\"records\":[\n{") + 12;
  const std::size_t second_record = extra.find("\n{\"name\"", first_record);
  const std::size_t end_of_first = extra.rfind('}', second_record);
  extra.insert(end_of_first, ",\"x\":[1]");
  const std::string path = dir.write("p.json", extra);
  EXPECT_FALSE(stream(path).has_value());
  EXPECT_EQ(profile_to_json(load_profile(path)), expected);
}

TEST(ProfileJsonStreamedTest, ABrokenRecordIsReportedAtItsLine) {
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  const std::string bad = replace_line(
      canonical, 12'345,
      "{\"name\":\"p\",\"kernel\":\"\",\"depth\":\"deep\",\"sequence\":1,\"parent\":null,"
      "\"thread\":0,\"start_ns\":0,\"inclusive_ns\":0,\"self_ns\":0},");
  const std::string path = dir.write("p.json", bad);
  EXPECT_FALSE(stream(path).has_value());
  EXPECT_EQ(load_error(path), "p.json:12345: field 'depth' must be an integer from 0 to 65535");
  EXPECT_EQ(load_error(path), whole_file_error(bad));
}

TEST(ProfileJsonStreamedTest, AStringRunningIntoTheNextLineIsRefused) {
  // Cut a key in two with a raw newline: invalid JSON. Joined without the
  // line break, the two halves would make a valid key.
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  std::string bad = canonical;
  const std::size_t records = bad.find('\n', bad.find("{\"context\":\"stage=codegen\"")) + 1;
  bad.insert(records,
             "{\"name\":\"a\",\"kernel\":\"\",\"depth\":0,\"sequence\":99999,\"parent\":null,"
             "\"thread\":0,\"start_ns\":0,\"inclusive_ns\":0,\"self_ns\":0,\"x},\n"
             "{y\":0},\n");
  expect_refused_as_by_the_whole_file_reader(dir, bad);
}

TEST(ProfileJsonStreamedTest, ATrailingCommaBeforeTheClosingBracketIsRefused) {
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  std::string bad = canonical;
  const std::size_t at = bad.rfind("}]}");
  bad.insert(at + 1, ",");  // the last record's line now ends "},]}"
  expect_refused_as_by_the_whole_file_reader(dir, bad);
}

TEST(ProfileJsonStreamedTest, TruncatedAndUnknownThreadAreReportedAsByTheWholeFileReader) {
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  expect_refused_as_by_the_whole_file_reader(dir, canonical.substr(0, canonical.size() / 2));

  // The big section has one thread (index 0); a record on thread 3 is wrong.
  std::string thread = canonical;
  const std::size_t at = thread.rfind("\"thread\":0");
  thread.replace(at, 10, "\"thread\":3");
  expect_refused_as_by_the_whole_file_reader(dir, thread);
}

}  // namespace
}  // namespace passtiming
