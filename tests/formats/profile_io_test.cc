#include "passtiming/formats/profile_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <stdexcept>

#include "passtiming/engine/errors.h"
#include "passtiming/formats/profile_json.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::read_file;
using testing::ScratchDir;

constexpr const char* kSpecLog =
    "{\"ev\":\"meta\",\"format\":\"passtiming-events\",\"version\":1,\"tool\":\"passtiming 0.1\","
    "\"host\":\"h1\",\"pid\":77}\n"
    "{\"ev\":\"enter_ctx\",\"t_ns\":1000,\"context\":\"stage=jit-lower, kernel=matmul\"}\n"
    "{\"ev\":\"before\",\"t_ns\":1000,\"pass\":\"parent\"}\n"
    "{\"ev\":\"before\",\"t_ns\":1000001000,\"pass\":\"child\",\"kernel\":\"matmul\"}\n"
    "{\"ev\":\"after\",\"t_ns\":3000001000,\"pass\":\"child\"}\n"
    "{\"ev\":\"after\",\"t_ns\":5000001000,\"pass\":\"parent\"}\n"
    "{\"ev\":\"exit_ctx\",\"t_ns\":5000002000}\n";

TEST(ProfileIoTest, LoadsAJsonProfileWhateverItsName) {
  ScratchDir dir;
  const std::string path = dir.write("profile.jsonl", golden("profile/session.json"));
  EXPECT_EQ(profile_to_json(load_profile(path)), golden("profile/session.json"));
}

TEST(ProfileIoTest, LoadsAnEventLogWhateverItsName) {
  ScratchDir dir;
  const Profile p = load_profile(dir.write("events.json", kSpecLog));
  ASSERT_EQ(p.sections.size(), 1u);
  EXPECT_EQ(p.sections[0].context, "stage=jit-lower, kernel=matmul");
  ASSERT_EQ(p.sections[0].records.size(), 2u);
  EXPECT_EQ(p.sections[0].records[1].self_ns, 3'000'000'000);
  // The meta line's fields become the profile's metadata.
  EXPECT_EQ(p.metadata.tool, "passtiming 0.1");
  EXPECT_EQ(p.metadata.host, "h1");
  EXPECT_EQ(p.metadata.pid, 77);
  // A log without a meta line is still recognised by its first event.
  std::string bare = kSpecLog;
  bare.erase(0, bare.find('\n') + 1);
  EXPECT_EQ(parse_profile_text(bare, "bare").sections[0].records.size(), 2u);
}

TEST(ProfileIoTest, ErrorsNameTheFile) {
  ScratchDir dir;
  try {
    load_profile(dir.file("absent.json"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.file("absent.json") + ": cannot open: No such file or directory");
  }
  const std::string log =
      dir.write("bad.jsonl", std::string(kSpecLog) + "{\"ev\":\"launch\",\"t_ns\":1}\n");
  try {
    load_profile(log);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), log + ":8: unknown event 'launch'");
  }
}

TEST(ProfileIoTest, EventLogLineOf100MegabytesIsRefused) {
  std::string text = kSpecLog;
  text += "{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"" + std::string(100u << 20, 'p') + "\"}\n";
  try {
    parse_profile_text(text, "big.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "big.jsonl:8: line is longer than 1048576 bytes");
  }
}

/// How many entries the scratch directory holds: a temporary file left
/// behind would make one more.
std::size_t files_in(const ScratchDir& dir) {
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
  }
  return files;
}

TEST(ProfileIoTest, WriteFileAtomicallyReplacesAndLeavesNoTemporaryFile) {
  ScratchDir dir;
  const std::string path = dir.write("out.json", "old contents");
  write_file_atomically(path, "new");
  EXPECT_EQ(read_file(path), "new");
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(ProfileIoTest, WriteFileAtomicallyFailureNamesThePathAndKeepsTheOldFile) {
  ScratchDir dir;
  const std::string missing = dir.file("no/such/dir/out.json");
  try {
    write_file_atomically(missing, "x");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              missing + ": cannot create a temporary file next to it: No such file or directory");
  }
  // Renaming onto a directory fails after the data was written: the target
  // is untouched and the temporary file is gone.
  std::filesystem::create_directories(dir.path() / "target");
  std::filesystem::create_directories(dir.path() / "target" / "keep");
  EXPECT_THROW(write_file_atomically(dir.file("target"), "x"), std::runtime_error);
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(ProfileIoTest, OutputFileAbandonedWithoutCommitKeepsTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.write("out.json", "old contents");
  {
    OutputFile out(path);
    out.write("half of the new ");
    // An exception in the renderer would unwind here, before commit().
  }
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(ProfileIoTest, OutputFileWritesPiecesInOrder) {
  ScratchDir dir;
  const std::string path = dir.file("out.txt");
  OutputFile out(path);
  const TextSink sink = out.sink();
  sink("one ");
  sink("two ");
  out.write("three");
  out.commit();
  EXPECT_EQ(read_file(path), "one two three");
}

TEST(ProfileIoTest, CurrentProcessMetadata) {
  const ProfileMetadata m = current_process_metadata();
  EXPECT_EQ(m.tool, "passtiming 0.1.0");
  EXPECT_EQ(m.pid, ::getpid());
  EXPECT_NE(m.command.find("formats_tests"), std::string::npos) << m.command;
  EXPECT_FALSE(m.host.empty());
  EXPECT_TRUE(std::regex_match(m.start_time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << m.start_time;
}

}  // namespace
}  // namespace passtiming
