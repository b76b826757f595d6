// The sample profiles the tests of the lower rooms build with the engine
// alone (profile_fixtures.h, browser/sample_profiles.h) are, to the byte,
// what the host records for the same compile: a live PassTimingTool session,
// and PassContext pipelines timed by the host's instrument.

#include "browser/sample_profiles.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "host_support.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_timing.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::LogCapture;
using testing::run_sample_session;
using testing::sample_session_profile;
using testing::TimedPass;

TEST(SampleProfileTest, TheEngineOnlySampleIsTheLiveSessionsProfile) {
  LogCapture quiet;
  for (double host_s : {0.25, 0.5, 0.0}) {
    EXPECT_EQ(profile_to_json(sample_session_profile(host_s)),
              profile_to_json(run_sample_session({}, host_s)))
        << host_s;
  }
  EXPECT_EQ(profile_to_json(sample_session_profile()), golden("profile/session.json"));
}

/// `pass` as a module pass of the host whose body advances `clock` by its
/// time and then runs its children.
PassPtr live_pass(const std::shared_ptr<ManualClock>& clock, const TimedPass& pass) {
  std::vector<PassPtr> children;
  for (const TimedPass& child : pass.children) children.push_back(live_pass(clock, child));
  return make_module_pass(
      [clock, ns = pass.ns, children](IRModule m, PassContext& ctx) {
        clock->advance(ns);
        for (const PassPtr& child : children) m = (*child)(std::move(m), ctx);
        return m;
      },
      PassInfo{pass.name, 0, {}});
}

TEST(SampleProfileTest, TheEngineOnlyPipelinesAreWhatAPassContextRecords) {
  auto clock = std::make_shared<ManualClock>(testing::kPipelineStart);
  Profile live;
  for (const testing::SampleContext& c : testing::pipeline_contexts()) {
    TileLangPassTimingInstrument timing(0.0, clock);
    timing.recorder().set_context_label(c.context);
    PassContextOptions options;
    options.instruments = {timing.instrument()};
    PassContext ctx(std::move(options));
    {
      auto scope = ctx.enter();
      (*live_pass(clock, c.pipeline))(IRModule({{"main", c.kernel}}));
    }
    clock->advance(50 * testing::kMicro);
    live.sections.push_back(timing.section());
  }
  Profile engine = testing::pipeline_profile();
  live.metadata = engine.metadata;
  EXPECT_EQ(profile_to_json(engine), profile_to_json(live));
}

}  // namespace
}  // namespace passtiming
