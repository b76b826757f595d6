#include "passtiming/recorder/outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>

#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::LogCapture;
using testing::read_file;
using testing::run_sample_session;
using testing::ScratchDir;

TEST(OutputsTest, ExpandPathPattern) {
  EXPECT_EQ(expand_path_pattern("/tmp/prof-%p.json", 42), "/tmp/prof-42.json");
  EXPECT_EQ(expand_path_pattern("%p-%p", 7), "7-7");
  EXPECT_EQ(expand_path_pattern("100%%-%p", 3), "100%-3");
  EXPECT_EQ(expand_path_pattern("odd%x%", 3), "odd%x%");
  EXPECT_EQ(expand_path_pattern("", 3), "");
  EXPECT_EQ(expand_path_pattern("tl-%p-%n.json", 42, 3), "tl-42-3.json");
  EXPECT_EQ(expand_path_pattern("tl-%n.json", 42), "tl-0.json");
  EXPECT_EQ(expand_path_pattern("%%n", 42, 3), "%n");
}

TEST(OutputsTest, FromEnvironment) {
  const OutputSettings none = OutputSettings::from_environment(MapEnvironment());
  EXPECT_FALSE(none.profile_path);
  EXPECT_FALSE(none.events_path);
  const OutputSettings empty =
      OutputSettings::from_environment(MapEnvironment({{"PASSTIMING_PROFILE", ""}}));
  EXPECT_FALSE(empty.profile_path);
  const OutputSettings both = OutputSettings::from_environment(MapEnvironment(
      {{"PASSTIMING_PROFILE", "/out/p-%p.json"}, {"PASSTIMING_EVENTS", "/out/e.jsonl"}}));
  EXPECT_EQ(both.profile_path, "/out/p-" + std::to_string(::getpid()) + ".json");
  EXPECT_EQ(both.events_path, "/out/e.jsonl");
}

TEST(OutputsTest, SessionWritesTheProfileAndTheEventLog) {
  ScratchDir dir;
  LogCapture log;
  OutputSettings outputs;
  outputs.profile_path = dir.file("profile.json");
  outputs.events_path = dir.file("events.jsonl");
  const Profile live = run_sample_session(outputs);
  // The file holds the live session with this process's metadata.
  Profile written = load_profile(*outputs.profile_path);
  EXPECT_EQ(written.metadata.pid, ::getpid());
  written.metadata = live.metadata;
  EXPECT_EQ(profile_to_json(written), golden("profile/session.json"));
  // Replaying the streamed log gives the same sections.
  Profile replayed = load_profile(*outputs.events_path);
  EXPECT_EQ(replayed.metadata.pid, ::getpid());
  replayed.metadata = live.metadata;
  EXPECT_EQ(profile_to_json(replayed), golden("profile/session.json"));
  EXPECT_TRUE(log.messages(LogLevel::error).empty());
}

TEST(OutputsTest, UnwritableProfileIsLoggedNamingThePathAndNeverThrown) {
  ScratchDir dir;
  LogCapture log;
  OutputSettings outputs;
  outputs.profile_path = dir.file("missing/profile.json");
  outputs.events_path = dir.file("missing/events.jsonl");
  EXPECT_NO_THROW(run_sample_session(outputs));
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0],
            "cannot create the event log " + *outputs.events_path + ": No such file or directory");
  EXPECT_EQ(errors[1],
            "could not write the pass timing profile: " + *outputs.profile_path +
                ": cannot create a temporary file next to it: No such file or directory");
}

TEST(OutputsTest, TheCompilesExceptionIsKeptAndTheProfileStillWritten) {
  ScratchDir dir;
  LogCapture log;
  OutputSettings outputs;
  outputs.profile_path = dir.file("profile.json");
  try {
    PassTimingTool session(0.0, std::make_shared<ManualClock>(), outputs);
    PassContextOptions options;
    options.instruments = session.instruments_for("stage=lower");
    PassContext ctx(options);
    auto scope = ctx.enter();
    (*testing::named_pass("lower"))(IRModule());
    (*testing::named_pass("boom", [] { throw std::runtime_error("no target"); }))(IRModule());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no target");
  }
  const Profile p = load_profile(*outputs.profile_path);
  ASSERT_EQ(p.sections.size(), 1u);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].name_of(p.sections[0].records[0]), "lower");
}

}  // namespace
}  // namespace passtiming
