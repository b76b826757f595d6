// The files a compile session writes (Settings): the JSON profile and
// the event log of a live PassTimingTool session, and what happens when they
// cannot be written. The settings themselves are read in
// tests/recorder/path_pattern_test.cc and tests/recorder/read_settings_test.cc.

#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>

#include "host_support.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::LogCapture;
using testing::output_settings;
using testing::run_sample_session;
using testing::ScratchDir;

TEST(OutputsTest, SessionWritesTheProfileAndTheEventLog) {
  ScratchDir dir;
  LogCapture log;
  const Settings outputs = output_settings(dir.file("profile.json"), dir.file("events.jsonl"));
  const Profile live = run_sample_session(outputs);
  // The file holds the live session with this process's metadata.
  Profile written = load_profile(outputs.profile->path);
  EXPECT_EQ(written.metadata.pid, ::getpid());
  written.metadata = live.metadata;
  EXPECT_EQ(profile_to_json(written), golden("profile/session.json"));
  // Replaying the streamed log gives the same sections.
  Profile replayed = load_profile(outputs.events->path);
  EXPECT_EQ(replayed.metadata.pid, ::getpid());
  replayed.metadata = live.metadata;
  EXPECT_EQ(profile_to_json(replayed), golden("profile/session.json"));
  EXPECT_TRUE(log.messages(LogLevel::error).empty());
}

TEST(OutputsTest, UnwritableProfileIsLoggedNamingThePathAndNeverThrown) {
  ScratchDir dir;
  LogCapture log;
  const Settings outputs =
      output_settings(dir.file("missing/profile.json"), dir.file("missing/events.jsonl"));
  EXPECT_NO_THROW(run_sample_session(outputs));
  // Each message names the setting that asked for the file, then the file.
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "PASSTIMING_EVENTS: cannot create the event log " + outputs.events->path +
                           ": No such file or directory");
  EXPECT_EQ(errors[1],
            "PASSTIMING_PROFILE: " + outputs.profile->path +
                ": cannot create a temporary file next to it: No such file or directory");
}

TEST(OutputsTest, TheCompilesExceptionIsKeptAndTheProfileStillWritten) {
  ScratchDir dir;
  LogCapture log;
  const Settings outputs = output_settings(dir.file("profile.json"));
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
  const Profile p = load_profile(outputs.profile->path);
  ASSERT_EQ(p.sections.size(), 1u);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].name_of(p.sections[0].records[0]), "lower");
}

}  // namespace
}  // namespace passtiming
