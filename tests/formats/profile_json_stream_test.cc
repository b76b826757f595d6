/// The streamed profile reader against the whole-file reader: the same
/// profile for every file in the writer's layout, and no answer (so that the
/// whole-file reader answers, naming the line) for anything else.
#include "formats/profile_json_stream.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "passtiming/errors.h"
#include "passtiming/profile_io.h"
#include "passtiming/profile_json.h"
#include "passtiming/timing_state.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::read_file;
using testing::ScratchDir;

/// Three sections: hostile names on two threads with a failed pass, an
/// empty one, and `many` records, enough for several megabyte batches.
Profile sample_profile(std::size_t many) {
  Profile profile;
  profile.metadata = {"passtiming 0.1.0", "cc -c \"a]},\".c", "host", "2024-01-01T00:00:00Z", 9};
  TimingStateMachine sm;
  sm.enter(0, "stage=\"lower\"\n]},");
  sm.before(10, "quote\"back\\slash", "k]}", 1);
  sm.before(11, "\x1b[31mred\x1b[0m\t]},", "", 2);
  sm.after(20, "\x1b[31mred\x1b[0m\t]},", 2);
  sm.after(30, "quote\"back\\slash", 1);
  sm.before(40, "</script>", "\xc3\xa9t\xc3\xa9", 1);
  sm.after(45, "</script>", 1, kRecordFailed);
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
    sm.before(t += 3, outer, kernel);
    sm.before(t += 5, inner, kernel);
    sm.after(t += 1'000, inner);
    sm.after(t += 7, outer);
  }
  sm.exit(t + 1);
  profile.sections.push_back(sm.take_section());
  return profile;
}

std::optional<Profile> stream(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  const auto size = static_cast<std::uint64_t>(read_file(path).size());
  std::optional<Profile> profile = detail::read_profile_streamed(fd, size);
  ::close(fd);
  return profile;
}

/// The message of the error the whole-file reader gives for `text`.
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

TEST(ProfileJsonStreamTest, GivesTheProfileTheWholeFileReaderGives) {
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

TEST(ProfileJsonStreamTest, ASmallProfileAndAnEmptyOneStreamToo) {
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

TEST(ProfileJsonStreamTest, OtherLayoutsAreLeftToTheWholeFileReader) {
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

TEST(ProfileJsonStreamTest, ABrokenRecordIsReportedAtItsLine) {
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

TEST(ProfileJsonStreamTest, AStringRunningIntoTheNextLineIsRefused) {
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

TEST(ProfileJsonStreamTest, ATrailingCommaBeforeTheClosingBracketIsRefused) {
  ScratchDir dir;
  const std::string canonical = profile_to_json(sample_profile(20'000));
  std::string bad = canonical;
  const std::size_t at = bad.rfind("}]}");
  bad.insert(at + 1, ",");  // the last record's line now ends "},]}"
  expect_refused_as_by_the_whole_file_reader(dir, bad);
}

TEST(ProfileJsonStreamTest, TruncatedAndUnknownThreadAreReportedAsByTheWholeFileReader) {
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
