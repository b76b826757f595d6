/// SIGKILL of a compile that streams its event log: everything that
/// completed before the kill is in the log, and `passtiming report` lists
/// exactly those passes and names the ones that were running.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "cli/cli_test_support.h"

extern char** environ;

namespace passtiming {
namespace {

TEST(Kill, ReportOfTheLogOfAKilledCompileListsTheCompletedPassesAndNamesTheRunningOnes) {
  const std::string dir = ::testing::TempDir();
  const std::string log = dir + "killed_events.jsonl";
  const std::string marker = dir + "killed.marker";
  std::filesystem::remove(marker);
  constexpr int kCompleted = 25;
  const std::string count = std::to_string(kCompleted);
  const char* argv[] = {PASSTIMING_KILL_CHILD, log.c_str(), marker.c_str(), count.c_str(), nullptr};
  pid_t child = 0;
  ASSERT_EQ(::posix_spawn(&child, PASSTIMING_KILL_CHILD, nullptr, nullptr,
                          const_cast<char* const*>(argv), environ),
            0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(marker) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool reached = std::filesystem::exists(marker);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(reached) << "the child never reached the running pass";
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  const auto run = testing::run_tool({"report", log});
  ASSERT_EQ(run.status, 0) << run.err;
  for (int i = 0; i < kCompleted; ++i) {
    EXPECT_NE(run.out.find("done." + std::to_string(i) + "(victim_kernel)"), std::string::npos)
        << i << "\n"
        << run.out;
  }
  EXPECT_EQ(run.out.find("running."), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("Discarding 2 incomplete pass timing frame(s): running.outer, "
                         "running.inner"),
            std::string::npos)
      << run.err;
  std::filesystem::remove(marker);
}

}  // namespace
}  // namespace passtiming
