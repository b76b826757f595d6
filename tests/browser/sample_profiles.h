#pragma once
/// \file
/// Profiles made by the library itself, through a PassContext pipeline timed
/// with a ManualClock, for the Chrome trace, HTML and browser tests: nested
/// passes, two sections, a pass shorter than a microsecond, and names built
/// to break out of a page, a JSON string or a terminal.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_timing.h"

namespace passtiming::testing {

inline constexpr Nanoseconds kMicro = 1'000;
inline constexpr Nanoseconds kMilli = 1'000'000;

/// A pass name that closes the data <script> element and adds an image whose
/// error handler would run script.
inline constexpr const char* kScriptBreakout = "</script><img src=x onerror=alert(1)>";
/// A pass name that would mark the page if it were ever parsed as markup.
inline constexpr const char* kAttributeBreakout =
    "\"><svg onload=\"document.body.dataset.pwned=1\">'&amp;";

/// A pass whose body advances `clock` by `ns` and then runs `children`.
inline PassPtr timed_pass(const std::shared_ptr<ManualClock>& clock, std::string name,
                          Nanoseconds ns, std::vector<PassPtr> children = {}) {
  return make_module_pass(
      [clock, ns, children](IRModule m, PassContext& ctx) {
        clock->advance(ns);
        for (const PassPtr& child : children) m = (*child)(std::move(m), ctx);
        return m;
      },
      PassInfo{std::move(name), 0, {}});
}

/// Runs `pipeline` on a module of `kernel` in a fresh PassContext and
/// returns the section it produced, labelled `context`.
inline Section run_section(const std::shared_ptr<ManualClock>& clock, const PassPtr& pipeline,
                           std::string_view kernel, std::string context) {
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().set_context_label(std::move(context));
  PassContextOptions options;
  options.instruments = {timing.instrument()};
  PassContext ctx(std::move(options));
  {
    auto scope = ctx.enter();
    IRModule mod({{"main", std::string(kernel)}});
    (*pipeline)(std::move(mod));
  }
  clock->advance(50 * kMicro);  // between contexts, as a compiler spends time elsewhere
  return timing.section();
}

/// Two sections: a lowering pipeline with nested passes (one of them shorter
/// than a microsecond, one named kScriptBreakout), and a code generation
/// pipeline on a kernel with a hostile label.
inline Profile pipeline_profile() {
  auto clock = std::make_shared<ManualClock>(7 * kMilli);
  auto& c = clock;
  auto lower = make_sequential({timed_pass(c, "Simplify", 1500 * kMicro),
                                timed_pass(c, "LowerTileOp", 200 * kMicro,
                                           {timed_pass(c, "LayoutInference", 2 * kMilli),
                                            timed_pass(c, kScriptBreakout, 250 * kMicro),
                                            timed_pass(c, "VectorizeLoop", 400)}),
                                timed_pass(c, "Simplify", 750'001)},
                               "tl.lower");
  auto codegen = make_sequential(
      {timed_pass(c, "SplitHostDevice", 3 * kMilli), timed_pass(c, kAttributeBreakout, 1 * kMilli),
       timed_pass(c, "MakePackedAPI", 1250 * kMicro)},
      "tl.codegen");
  Profile profile;
  profile.metadata = {"passtiming 0.1.0", "example --kernel matmul", "buildhost",
                      "2025-01-02T03:04:05Z", 4242};
  profile.sections.push_back(run_section(clock, lower, "matmul_kernel", "stage=lower"));
  profile.sections.push_back(
      run_section(clock, codegen, "<b>matmul</b>", "stage=codegen, note=</script>"));
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
