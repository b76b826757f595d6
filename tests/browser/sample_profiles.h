#pragma once
/// \file
/// Profiles made by the library itself, pipelines of passes timed by the
/// engine with a ManualClock, for the Chrome trace, HTML and browser tests:
/// nested passes, two sections, a pass shorter than a microsecond, and names
/// built to break out of a page, a JSON string or a terminal. Engine only: a
/// test of any room may include it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming::testing {

inline constexpr Nanoseconds kMicro = 1'000;
inline constexpr Nanoseconds kMilli = 1'000'000;

/// A pass name that closes the data <script> element and adds an image whose
/// error handler would run script.
inline constexpr const char* kScriptBreakout = "</script><img src=x onerror=alert(1)>";
/// A pass name that would mark the page if it were ever parsed as markup.
inline constexpr const char* kAttributeBreakout =
    "\"><svg onload=\"document.body.dataset.pwned=1\">'&amp;";

/// A pass of a sample pipeline: it runs for `ns` of its own, then its
/// children in order (a pipeline is a pass of 0 ns with children).
struct TimedPass {
  std::string name;
  Nanoseconds ns = 0;
  std::vector<TimedPass> children;
};

/// A pipeline of `passes` named `name`, which takes no time of its own.
inline TimedPass sequence(std::string name, std::vector<TimedPass> passes) {
  return {std::move(name), 0, std::move(passes)};
}

/// `pass` and its children timed on `sm` as a host's instrument times them
/// (on thread 0, every event at a read of `clock`), on a module of `kernel`:
/// the before-event, `ns` on the clock, the children, the after-event.
inline void time_pass(TimingStateMachine& sm, ManualClock& clock, const TimedPass& pass,
                      std::string_view kernel) {
  sm.begin_now(clock, {pass.name, kernel});
  clock.advance(pass.ns);
  for (const TimedPass& child : pass.children) time_pass(sm, clock, child, kernel);
  sm.end(clock.now_ns(), {pass.name});
}

/// Runs `pipeline` on a module of `kernel` in a fresh context labelled
/// `context` and returns the section it produced; then 50 µs go by, as a
/// compiler spends time elsewhere between contexts. Engine only: the same
/// section a PassContext pipeline timed by the host's instrument records
/// (tests/host/sample_profiles_test.cc checks that).
inline Section run_section(ManualClock& clock, const TimedPass& pipeline, std::string_view kernel,
                           std::string_view context) {
  TimingStateMachine sm;
  sm.enter(clock.now_ns(), context);
  time_pass(sm, clock, pipeline, kernel);
  sm.exit(clock.now_ns());
  clock.advance(50 * kMicro);
  return sm.take_section();
}

/// A context of pipeline_profile(): its label, its module's kernel label and
/// its pipeline.
struct SampleContext {
  std::string context;
  std::string kernel;
  TimedPass pipeline;
};

/// The clock pipeline_profile() starts at.
inline constexpr Nanoseconds kPipelineStart = 7 * kMilli;

/// The contexts of pipeline_profile(): a lowering pipeline with nested
/// passes (one of them shorter than a microsecond, one named
/// kScriptBreakout), and a code generation pipeline on a kernel with a
/// hostile label.
inline std::vector<SampleContext> pipeline_contexts() {
  TimedPass lower = sequence(
      "tl.lower",
      {{"Simplify", 1500 * kMicro},
       {"LowerTileOp",
        200 * kMicro,
        {{"LayoutInference", 2 * kMilli}, {kScriptBreakout, 250 * kMicro}, {"VectorizeLoop", 400}}},
       {"Simplify", 750'001}});
  TimedPass codegen = sequence("tl.codegen", {{"SplitHostDevice", 3 * kMilli},
                                              {kAttributeBreakout, 1 * kMilli},
                                              {"MakePackedAPI", 1250 * kMicro}});
  return {{"stage=lower", "matmul_kernel", std::move(lower)},
          {"stage=codegen, note=</script>", "<b>matmul</b>", std::move(codegen)}};
}

/// The contexts of pipeline_contexts() timed one after the other from
/// kPipelineStart, with fixed metadata.
inline Profile pipeline_profile() {
  ManualClock clock(kPipelineStart);
  Profile profile;
  profile.metadata = {"passtiming 0.1.0", "example --kernel matmul", "buildhost",
                      "2025-01-02T03:04:05Z", 4242};
  for (const SampleContext& c : pipeline_contexts()) {
    profile.sections.push_back(run_section(clock, c.pipeline, c.kernel, c.context));
  }
  return profile;
}

inline constexpr std::int64_t kMiB = 1 << 20;

/// pipeline_profile() with cpu, rss and ir recorded and instructions
/// unavailable. Record k of a section (in completion order) used half its
/// wall time on the CPU, started at 64 + k MiB resident and grew by k/4 MiB
/// to a peak of 100 + k MiB, and took its IR from 1000 + 10k to 1000 + 9k
/// (changed, except record 0).
inline Profile metrics_profile() {
  Profile profile = pipeline_profile();
  for (Section& s : profile.sections) {
    for (std::size_t i = 0; i < s.records.size(); ++i) {
      const Record& r = s.records[i];
      const std::int64_t k = static_cast<std::int64_t>(i);
      RecordMetrics m;
      m.cpu_ns = r.inclusive_ns / 2;
      m.cpu_self_ns = r.self_ns / 2;
      m.rss_start_bytes = (64 + k) * kMiB;
      m.rss_end_bytes = m.rss_start_bytes + k * kMiB / 4;
      m.rss_peak_bytes = (100 + k) * kMiB;
      m.ir_before = 1000 + 10 * k;
      m.ir_after = m.ir_before - k;
      m.ir_flags = kIrChangeKnown | (k > 0 ? kIrChanged : 0);
      s.metrics.push_back(m);
    }
  }
  profile.metrics.recorded.insert(Metric::cpu);
  profile.metrics.recorded.insert(Metric::rss);
  profile.metrics.recorded.insert(Metric::ir);
  profile.metrics.unavailable.push_back(
      {Metric::instructions, "perf_event_open: No such file or directory"});
  return profile;
}

}  // namespace passtiming::testing
