#pragma once
/// \file
/// Profiles made by the library itself for the profile, aggregate and CLI
/// tests: a two-context compile session timed with a ManualClock, so every
/// number is exact; plus a scratch directory and an in-process CLI runner.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/session.h"
#include "test_support.h"

namespace passtiming::testing {

inline constexpr Nanoseconds kSecond = 1'000'000'000;

/// Runs a compile session with explicit outputs: context "stage=jit-lower,
/// kernel=matmul" with `parent` (5 s) containing `child(matmul)` (2 s), then
/// "stage=codegen" with `tl.LowerHost` (`host_s`) and `tl.LowerDevice(matmul)`
/// (0.125 s). Returns the session's profile with fixed metadata.
inline Profile run_sample_session(OutputSettings outputs = {}, double host_s = 0.25) {
  auto clock = std::make_shared<ManualClock>();
  PassTimingTool session(0.0, clock, std::move(outputs));
  auto child = named_pass("child");
  auto parent = make_module_pass(
      [child](IRModule, PassContext& c) { return (*child)(IRModule({{"f", "matmul"}}), c); },
      {"parent", 0, {}});
  clock->script({0, 0, 1 * kSecond, 3 * kSecond, 5 * kSecond, 5 * kSecond});
  {
    PassContextOptions options;
    options.instruments = session.instruments_for("stage=jit-lower, kernel=matmul");
    PassContext ctx(options);
    auto scope = ctx.enter();
    (*parent)(IRModule());
  }
  const Nanoseconds t0 = 10 * kSecond;
  const auto host = static_cast<Nanoseconds>(host_s * 1e9);
  clock->script({t0, t0, t0 + host, t0 + host, t0 + host + kSecond / 8, t0 + host + kSecond / 8});
  {
    PassContextOptions options;
    options.instruments = session.instruments_for("stage=codegen");
    PassContext ctx(options);
    auto scope = ctx.enter();
    (*named_pass("tl.LowerHost"))(IRModule());
    (*named_pass("tl.LowerDevice"))(IRModule({{"f", "matmul"}}));
  }
  Profile profile = session.profile();
  profile.metadata = {"passtiming 0.1.0", "python compile.py --kernel matmul", "build-host",
                      "2024-05-01T12:00:00Z", 4242};
  session.finish();
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
