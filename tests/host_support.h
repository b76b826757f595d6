#pragma once
/// \file
/// Helpers for the tests that run the host (tests/host, tests/cli,
/// tests/reliability): pipelines of named passes and the sample compile
/// session run live through a PassTimingTool. Tests of the rooms below the
/// host use test_support.h and profile_fixtures.h, which reach only the
/// engine.

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/settings.h"
#include "profile_fixtures.h"
#include "test_support.h"

namespace passtiming::testing {

/// A module pass that does nothing but call `body` (for timing tests).
inline PassPtr named_pass(std::string name, std::function<void()> body = {}) {
  return make_module_pass(
      [body](IRModule m, PassContext&) {
        if (body) body();
        return m;
      },
      PassInfo{std::move(name), 0, {}});
}

/// sample_session_profile(host_s), run live: a PassTimingTool session with
/// `settings` (whose files it writes, with this process's metadata) times the
/// two contexts through PassContexts, with the same clock script. Returns the
/// session's profile with the fixed metadata of sample_metadata().
inline Profile run_sample_session(Settings settings = {}, double host_s = 0.25) {
  auto clock = std::make_shared<ManualClock>();
  PassTimingTool session(0.0, clock, std::move(settings));
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
  profile.metadata = sample_metadata();
  session.finish();
  return profile;
}

/// The files of the environment variables PASSTIMING_PROFILE and
/// PASSTIMING_EVENTS, as read_settings() names them (empty: not asked for).
inline Settings output_settings(const std::string& profile, const std::string& events = {}) {
  Settings settings;
  if (!profile.empty()) settings.profile = OutputPath{profile, "PASSTIMING_PROFILE"};
  if (!events.empty()) settings.events = OutputPath{events, "PASSTIMING_EVENTS"};
  return settings;
}

}  // namespace passtiming::testing
