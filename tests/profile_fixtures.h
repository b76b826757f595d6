#pragma once
/// \file
/// Profiles made by the library itself for the formats, analysis and CLI
/// tests: a two-context compile session timed with a ManualClock, so every
/// number is exact; plus a scratch directory. Engine only: a test of any
/// room may include it (the live-session variant is in host_support.h).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"
#include "test_support.h"

namespace passtiming::testing {

inline constexpr Nanoseconds kSecond = 1'000'000'000;

/// The fixed metadata of the sample profile.
inline ProfileMetadata sample_metadata() {
  return {"passtiming 0.1.0", "python compile.py --kernel matmul", "build-host",
          "2024-05-01T12:00:00Z", 4242};
}

/// The sample compile session, made by the engine alone (no host, no
/// recorder): context "stage=jit-lower, kernel=matmul" with `parent` (5 s)
/// containing `child(matmul)` (2 s), then "stage=codegen" with `tl.LowerHost`
/// (`host_s`) and `tl.LowerDevice(matmul)` (0.125 s), with fixed metadata.
/// Each context is timed as a host's instrument times it: a fresh state
/// machine, thread 0, every event at the next read of a scripted clock. The
/// same Profile, to the byte, as run_sample_session() (host_support.h) gets
/// from a live PassTimingTool session; a host test checks that.
inline Profile sample_session_profile(double host_s = 0.25) {
  ManualClock clock;
  Profile profile;
  {
    TimingStateMachine sm;
    clock.script({0, 0, 1 * kSecond, 3 * kSecond, 5 * kSecond, 5 * kSecond});
    sm.enter(clock.now_ns(), "stage=jit-lower, kernel=matmul");
    sm.begin_now(clock, {"parent", ""});
    sm.begin_now(clock, {"child", "matmul"});
    sm.end(clock.now_ns(), {"child"});
    sm.end(clock.now_ns(), {"parent"});
    sm.exit(clock.now_ns());
    profile.sections.push_back(sm.take_section());
  }
  {
    const Nanoseconds t0 = 10 * kSecond;
    const auto host = static_cast<Nanoseconds>(host_s * 1e9);
    TimingStateMachine sm;
    clock.script({t0, t0, t0 + host, t0 + host, t0 + host + kSecond / 8, t0 + host + kSecond / 8});
    sm.enter(clock.now_ns(), "stage=codegen");
    sm.begin_now(clock, {"tl.LowerHost", ""});
    sm.end(clock.now_ns(), {"tl.LowerHost"});
    sm.begin_now(clock, {"tl.LowerDevice", "matmul"});
    sm.end(clock.now_ns(), {"tl.LowerDevice"});
    sm.exit(clock.now_ns());
    profile.sections.push_back(sm.take_section());
  }
  profile.metadata = sample_metadata();
  return profile;
}

/// A fresh directory under the system's temporary directory, removed at the
/// end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("passtiming-") + info->test_suite_name() + "-" + info->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return file(name);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace passtiming::testing
