#pragma once
/// \file
/// What the end-to-end tests of real compilers share: a scratch directory per
/// test, and commands run through the shell in it with stdout and stderr
/// captured, never inheriting the PASSTIMING_* settings of the environment
/// the tests run in.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace passtiming::testing {

/// The whole file at `path` ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct ShellResult {
  int status = -1;  ///< exit status, or 128 + the signal
  std::string out, err;
};

/// A fixture whose scratch directory, /tmp/passtiming-PREFIX-TEST-PID, is
/// made for each test and removed after it unless it failed (then it is kept
/// to look at).
class ShellTest : public ::testing::Test {
 protected:
  explicit ShellTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::temp_directory_path() /
          ("passtiming-" + prefix_ + "-" + std::string(info->name()) + "-" +
           std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir);
  }

  /// `command` through the shell in `dir`.
  ShellResult run(const std::string& command) {
    const std::string line = "cd '" + dir.string() +
                             "' && env -u PASSTIMING_THRESHOLD_MS -u PASSTIMING_PROFILE -u "
                             "PASSTIMING_EVENTS -u PASSTIMING_REPORT -u PASSTIMING_CONTEXT -u "
                             "PASSTIMING_ANALYSES -u PASSTIMING_METRICS -u PASSTIMING_STATUS " +
                             command + " >out.txt 2>err.txt";
    const int raw = std::system(line.c_str());
    ShellResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = read_text(dir / "out.txt");
    r.err = read_text(dir / "err.txt");
    return r;
  }

  std::filesystem::path dir;

 private:
  std::string prefix_;
};

}  // namespace passtiming::testing
