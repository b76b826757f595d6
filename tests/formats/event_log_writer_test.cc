#include "passtiming/formats/event_log_writer.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::LogCapture;
using testing::read_file;
using testing::ScratchDir;

const ProfileMetadata kMeta{"passtiming 0.1.0", "cc -c a.c", "h", "2024-05-01T12:00:00Z", 9};

TEST(EventLogWriterTest, WritesTheSpecsLines) {
  ScratchDir dir;
  auto log = EventLogWriter::open(dir.file("e.jsonl"), kMeta);
  const testing::Events to{*log};
  to.enter(1000, "stage=jit-lower, kernel=matmul");
  to.before(1000, "parent", "", 0);
  to.before(1000001000, "child", "matmul", 0);
  to.after(3000001000, "child", 0);
  to.skip(3000001500, "vetoed", "k\"1", 3);
  to.after(5000001000, "parent", 0);
  to.exit(5000002000);
  EXPECT_TRUE(log->close());
  EXPECT_EQ(
      read_file(dir.file("e.jsonl")),
      "{\"ev\":\"meta\",\"format\":\"passtiming-events\",\"version\":1,\"tool\":\"passtiming "
      "0.1.0\",\"command\":\"cc -c a.c\",\"host\":\"h\",\"start_time\":\"2024-05-01T12:00:00Z\","
      "\"pid\":9}\n"
      "{\"ev\":\"enter_ctx\",\"t_ns\":1000,\"context\":\"stage=jit-lower, kernel=matmul\"}\n"
      "{\"ev\":\"before\",\"t_ns\":1000,\"pass\":\"parent\"}\n"
      "{\"ev\":\"before\",\"t_ns\":1000001000,\"pass\":\"child\",\"kernel\":\"matmul\"}\n"
      "{\"ev\":\"after\",\"t_ns\":3000001000,\"pass\":\"child\"}\n"
      "{\"ev\":\"skip\",\"t_ns\":3000001500,\"pass\":\"vetoed\",\"kernel\":\"k\\\"1\",\"tid\":3}\n"
      "{\"ev\":\"after\",\"t_ns\":5000001000,\"pass\":\"parent\"}\n"
      "{\"ev\":\"exit_ctx\",\"t_ns\":5000002000}\n");
  EXPECT_TRUE(log->close());  // idempotent
}

TEST(EventLogWriterTest, GrowsPastItsFirstChunkAndReplaysExactly) {
  ScratchDir dir;
  auto log = EventLogWriter::open(dir.file("e.jsonl"), kMeta);
  TimingStateMachine live;
  live.set_observer(log.get());
  live.enter(0, "big");
  const std::string long_name(3000, 'n');  // ~6 KB per pass pair: several chunks
  for (int i = 0; i < 1000; ++i) {
    live.begin(i * 10,
               {long_name + std::to_string(i % 7), "kernel\xFF", static_cast<ThreadKey>(i % 3)});
    live.end(i * 10 + 5, {long_name + std::to_string(i % 7), static_cast<ThreadKey>(i % 3)});
  }
  live.exit(10'000);
  ASSERT_TRUE(log->close());
  EXPECT_GT(std::filesystem::file_size(dir.file("e.jsonl")), std::size_t{4} << 20);
  EXPECT_EQ(std::filesystem::file_size(dir.file("e.jsonl")), log->bytes_written());
  Profile replayed = load_profile(dir.file("e.jsonl"));
  ASSERT_EQ(replayed.sections.size(), 1u);
  const Section& s = replayed.sections[0];
  ASSERT_EQ(s.records.size(), 1000u);
  EXPECT_EQ(s.threads, (std::vector<std::uint64_t>{0, 1, 2}));
  // The invalid byte of the kernel label was written as U+FFFD.
  EXPECT_EQ(s.kernel_of(s.records[0]), "kernel\xEF\xBF\xBD");
  EXPECT_EQ(s.records[999].start_ns, 9990);
  EXPECT_EQ(s.records[999].inclusive_ns, 5);
}

TEST(EventLogWriterTest, AWriterOutrunningItsHelperLosesNothing) {
  // 200,000 pairs (about 29 MB) written as fast as the writer can go: it
  // meets the helper thread's mapping many times and grows the file itself
  // when it catches up; every event must be there, in order.
  ScratchDir dir;
  auto log = EventLogWriter::open(dir.file("fast.jsonl"), kMeta);
  const testing::Events to{*log};
  to.enter(0, "fast");
  constexpr int kPairs = 200'000;
  for (int i = 0; i < kPairs; ++i) {
    to.before(2 * i, "tl.LowerTileOp", "matmul_kernel", 0);
    to.after(2 * i + 1, "tl.LowerTileOp", 0);
  }
  to.exit(2 * kPairs);
  ASSERT_TRUE(log->close());
  EXPECT_EQ(std::filesystem::file_size(dir.file("fast.jsonl")), log->bytes_written());
  const Profile replayed = load_profile(dir.file("fast.jsonl"));
  ASSERT_EQ(replayed.sections.size(), 1u);
  const Section& s = replayed.sections[0];
  ASSERT_EQ(s.records.size(), static_cast<std::size_t>(kPairs));
  for (int i = 0; i < kPairs; i += 9973) {
    EXPECT_EQ(s.records[i].start_ns, 2 * i);
    EXPECT_EQ(s.records[i].inclusive_ns, 1);
  }
}

/// Runs `events` in a child process that is then killed by `signal` before
/// it can close the log; returns the path of the log it leaves.
template <typename Events>
std::string log_of_killed_process(const ScratchDir& dir, int signal, Events events) {
  const std::string path = dir.file("killed.jsonl");
  const pid_t child = ::fork();
  if (child == 0) {
    auto log = EventLogWriter::open(path, kMeta);
    events(*log);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), signal);
  return path;
}

void compile_killed_in_second_pass(EventLogWriter& log) {
  const testing::Events to{log};
  to.enter(0, "stage=lower");
  to.before(10, "tl.Simplify", "matmul", 0);
  to.after(30, "tl.Simplify", 0);
  to.before(40, "tl.Pipeline", "matmul", 0);
  to.before(50, "tl.InjectFence", "matmul", 0);
}

TEST(EventLogWriterTest, EveryCompletedPassSurvivesSigkill) {
  ScratchDir dir;
  LogCapture log;
  const std::string path = log_of_killed_process(dir, SIGKILL, compile_killed_in_second_pass);
  const std::string text = read_file(path);
  // The preallocated rest of the file is still there, as NUL bytes: whole
  // 2 MiB chunks, as many as the helper thread had allocated ahead (up to
  // 8 MiB beyond the first) when the process died.
  EXPECT_EQ(text.size() % (std::size_t{2} << 20), 0u);
  EXPECT_GE(text.size(), std::size_t{2} << 20);
  EXPECT_LE(text.size(), std::size_t{10} << 20);
  EXPECT_EQ(text.back(), '\0');
  const Profile p = load_profile(path);
  ASSERT_EQ(p.sections.size(), 1u);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].name_of(p.sections[0].records[0]), "tl.Simplify");
  EXPECT_EQ(p.sections[0].records[0].inclusive_ns, 20);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{
                "Discarding 2 incomplete pass timing frame(s): tl.Pipeline, tl.InjectFence"});
}

TEST(EventLogWriterTest, EveryCompletedPassSurvivesASegfault) {
  ScratchDir dir;
  LogCapture log;
  const std::string path = log_of_killed_process(dir, SIGSEGV, compile_killed_in_second_pass);
  const Profile p = load_profile(path);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].name_of(p.sections[0].records[0]), "tl.Simplify");
}

TEST(EventLogWriterTest, ACutOffFinalLineIsIgnoredWithAWarning) {
  ScratchDir dir;
  LogCapture log;
  const std::string path =
      dir.write("cut.jsonl", std::string("{\"ev\":\"enter_ctx\",\"t_ns\":0}\n"
                                         "{\"ev\":\"before\",\"t_ns\":1,\"pass\":\"a\"}\n"
                                         "{\"ev\":\"after\",\"t_ns\":3,\"pass\":\"a\"}\n"
                                         "{\"ev\":\"before\",\"t_ns\":4,\"pass\":\"b\"}\n"
                                         "{\"ev\":\"after\",\"t_n") +
                                 std::string(5000, '\0'));
  const Profile p = load_profile(path);
  ASSERT_EQ(p.sections[0].records.size(), 1u);
  EXPECT_EQ(p.sections[0].records[0].inclusive_ns, 2);
  EXPECT_EQ(log.messages(LogLevel::warning),
            (std::vector<std::string>{path + ":5: ignoring the cut-off final line of the event log",
                                      "Discarding 1 incomplete pass timing frame(s): b"}));
}

TEST(EventLogWriterTest, CannotCreateNamesThePath) {
  ScratchDir dir;
  try {
    EventLogWriter::open(dir.file("no/dir/e.jsonl"), kMeta);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot create the event log " + dir.file("no/dir/e.jsonl") +
                                         ": No such file or directory");
  }
}

}  // namespace
}  // namespace passtiming
