/// Throughput of threads compiling at once into one compile session, each
/// with its own PassContext (session.instruments_for): passes timed per
/// second with 1 and 2 threads. Each thread's instrument is its own, so the
/// only shared state is the session's section list, touched once per thread.

#include <benchmark/benchmark.h>

#include <memory>
#include <mutex>

#include "passtiming/engine/logging.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/session.h"

namespace {

using namespace passtiming;

PassTimingTool& shared_session() {
  // Never reported: the benchmark measures the callbacks, not the report.
  static auto* session = new PassTimingTool(0.0, steady_clock(), Settings{});
  return *session;
}

void BM_ConcurrentCompiles(benchmark::State& state) {
  PassContext ctx({.instruments = shared_session().instruments_for("bench")});
  auto pass =
      make_module_pass([](IRModule m, PassContext&) { return m; }, PassInfo{"tl.Simplify", 0, {}});
  IRModule mod{{"main", "matmul"}};
  auto scope = ctx.enter();
  for (auto _ : state) {
    mod = (*pass)(std::move(mod), ctx);
    benchmark::DoNotOptimize(mod);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ConcurrentCompiles)->Threads(1)->Threads(2)->Iterations(1000000)->UseRealTime();

/// The same with the guard's baseline: an uninstrumented PassContext.
void BM_ConcurrentCompilesUntimed(benchmark::State& state) {
  PassContext ctx;
  auto pass =
      make_module_pass([](IRModule m, PassContext&) { return m; }, PassInfo{"tl.Simplify", 0, {}});
  IRModule mod{{"main", "matmul"}};
  auto scope = ctx.enter();
  for (auto _ : state) {
    mod = (*pass)(std::move(mod), ctx);
    benchmark::DoNotOptimize(mod);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ConcurrentCompilesUntimed)->Threads(1)->Threads(2)->Iterations(1000000)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
