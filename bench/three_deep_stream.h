#pragma once
/// \file
/// The pass events that core_bench and metrics_bench time: a 3-deep nested
/// stream (a pipeline, a pipeline in it, a pass in that) called straight on
/// a timing instrument's callbacks, one module, three pass pairs an
/// iteration.

#include <benchmark/benchmark.h>

#include <cstdint>

#include "passtiming/passtiming.h"

namespace passtiming::bench {

/// Pass pairs per iteration of time_three_deep_stream().
inline constexpr int kThreeDeepPairs = 3;

/// Times the stream on `instrument` in `state`'s loop, a fresh context (as
/// a new PassContext) every `iterations_per_context` iterations so memory
/// stays bounded. One untimed context first: the record storage it grows is
/// kept by the next enter_pass_ctx, so the timed loop measures the steady
/// state of a process that compiles many kernels (first-touch page faults
/// of a new context's storage are a one-off, and very slow on a virtual
/// machine). Sets the items processed to the pass pairs.
inline void time_three_deep_stream(benchmark::State& state, PassInstrument& instrument,
                                   std::int64_t iterations_per_context) {
  const IRModule mod({{"main", "matmul_kernel"}});
  const PassInfo outer{"tl.LowerAndLegalize", 0, {}};
  const PassInfo middle{"tl.LayoutPipeline", 0, {}};
  const PassInfo inner{"tl.LowerTileOp", 0, {}};
  auto iteration = [&] {
    instrument.run_before_pass(mod, outer);
    instrument.run_before_pass(mod, middle);
    instrument.run_before_pass(mod, inner);
    instrument.run_after_pass(mod, inner);
    instrument.run_after_pass(mod, middle);
    instrument.run_after_pass(mod, outer);
  };
  instrument.enter_pass_ctx();
  for (std::int64_t i = 0; i < iterations_per_context; ++i) iteration();
  std::int64_t n = 0;
  instrument.enter_pass_ctx();
  for (auto _ : state) {
    iteration();
    if (++n == iterations_per_context) {
      n = 0;
      instrument.enter_pass_ctx();
    }
  }
  instrument.exit_pass_ctx();
  state.SetItemsProcessed(state.iterations() * kThreeDeepPairs);
}

}  // namespace passtiming::bench
