/// The core's costs, side by side in one binary so that ratios hold on a
/// noisy machine:
///   - the floor: two steady_clock reads, the least any timer can cost;
///   - the timing instrument's callbacks called directly on a 3-deep stream;
///   - the same stream through PassContext, Sequential and the instrument;
///   - the text report of a million records, streamed as the CLI writes it
///     and as one string, beside the machine's cost of touching that much
///     fresh memory;
///   - memory per record.
/// Every "per pair" figure is one before/after pair (items_per_second).

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "passtiming/passtiming.h"
#include "three_deep_stream.h"

namespace {

using namespace passtiming;

/// Records are cleared (a new PassContext entered) this often so memory stays
/// bounded; the cost is amortised over a million pairs.
constexpr std::int64_t kIterationsPerContext = 1 << 18;

void BM_Floor_TwoClockReads(benchmark::State& state) {
  for (auto _ : state) {
    auto a = std::chrono::steady_clock::now();
    auto b = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("per pair");
}
BENCHMARK(BM_Floor_TwoClockReads);

void BM_Instrument_Direct3Deep(benchmark::State& state) {
  TileLangPassTimingInstrument timing;
  PassInstrumentPtr instrument = timing.instrument();
  bench::time_three_deep_stream(state, *instrument, kIterationsPerContext);
  state.SetLabel("per pair");
}
BENCHMARK(BM_Instrument_Direct3Deep);

void BM_Instrument_ThroughPassContext3Deep(benchmark::State& state) {
  TileLangPassTimingInstrument timing;
  auto identity = [](IRModule m, PassContext&) { return m; };
  auto inner = make_module_pass(identity, {"tl.LowerTileOp", 0, {}});
  auto middle = make_sequential({inner}, "tl.LayoutPipeline");
  auto outer = make_sequential({middle}, "tl.LowerAndLegalize");
  IRModule mod({{"main", "matmul_kernel"}});
  std::int64_t n = 0;
  auto ctx =
      std::make_unique<PassContext>(PassContextOptions{.instruments = {timing.instrument()}});
  auto scope = std::make_unique<PassContext::Scope>(*ctx);
  // Warm the record storage, as above.
  for (std::int64_t i = 0; i < kIterationsPerContext; ++i) mod = (*outer)(std::move(mod), *ctx);
  scope.reset();
  scope = std::make_unique<PassContext::Scope>(*ctx);
  for (auto _ : state) {
    mod = (*outer)(std::move(mod), *ctx);
    if (++n == kIterationsPerContext) {
      n = 0;
      scope.reset();
      scope = std::make_unique<PassContext::Scope>(*ctx);
    }
  }
  scope.reset();
  state.SetItemsProcessed(state.iterations() * bench::kThreeDeepPairs);
  state.SetLabel("per pair");
}
BENCHMARK(BM_Instrument_ThroughPassContext3Deep);

/// A realistic section: top-level pipelines of function pass managers of
/// passes, over many kernels, as an LLVM -O2 compile produces.
Section make_section(std::size_t records) {
  TimingStateMachine sm;
  sm.enter(0, "stage=bench");
  const char* passes[] = {"InstCombinePass", "SROAPass",        "EarlyCSEPass",
                          "GVNPass",         "LICMPass",        "SimplifyCFGPass",
                          "LoopRotatePass",  "InstSimplifyPass"};
  Nanoseconds t = 0;
  std::size_t made = 0;
  for (int kernel = 0; made < records; ++kernel) {
    const std::string label = "kernel_" + std::to_string(kernel % 5000);
    sm.begin(t, {"FunctionPassManager", label});
    ++made;
    for (int i = 0; i < 8 && made < records; ++i, ++made) {
      sm.begin(t, {passes[i], label});
      t += 1000 + (kernel * 7919 + i * 104729) % 50000;
      sm.end(t, {passes[i]});
    }
    t += 100;
    sm.end(t, {"FunctionPassManager"});
  }
  sm.exit(t);
  return sm.take_section();
}

/// The report of a million records as `passtiming report` writes it: handed
/// on in 64 KiB pieces (here to a sink that only looks at each piece).
void BM_Report_1M(benchmark::State& state) {
  const Section section = make_section(1'000'000);
  std::size_t bytes = 0;
  const TextSink sink = [&bytes](std::string_view piece) {
    bytes += piece.size();
    benchmark::DoNotOptimize(piece.data());
  };
  for (auto _ : state) {
    bytes = 0;
    write_report(section, 0.0, "stage=bench", sink);
  }
  state.counters["records"] = static_cast<double>(section.records.size());
  state.counters["report_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_Report_1M)->Unit(benchmark::kMillisecond)->Iterations(5);

/// The same report as one string (`report()`, `print_report()`): the text is
/// the same, but its 90 MB are memory the process has to touch.
void BM_Report_1M_OneString(benchmark::State& state) {
  const Section section = make_section(1'000'000);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = render_report(section, 0.0, "stage=bench");
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["report_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_Report_1M_OneString)->Unit(benchmark::kMillisecond)->Iterations(5);

/// The machine's cost of memory touched for the first time (a page fault
/// per 4 KiB), for 90 MB: the floor under any renderer that builds the
/// whole report in memory.
void BM_Floor_FirstTouch90MB(benchmark::State& state) {
  constexpr std::size_t kBytes = 90'000'000;
  for (auto _ : state) {
    std::unique_ptr<char[]> block(new char[kBytes]);
    for (std::size_t i = 0; i < kBytes; i += 4096) block[i] = 1;
    benchmark::DoNotOptimize(block.get());
  }
}
BENCHMARK(BM_Floor_FirstTouch90MB)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_BytesPerRecord(benchmark::State& state) {
  for (auto _ : state) {
    Section s = make_section(1'000'000);
    benchmark::DoNotOptimize(s.records.data());
    state.counters["sizeof_Record"] = sizeof(Record);
    state.counters["bytes_per_record"] =
        static_cast<double>(s.records.capacity() * sizeof(Record)) /
        static_cast<double>(s.records.size());
    state.counters["name_table_bytes"] = static_cast<double>(s.names.string_bytes());
  }
}
BENCHMARK(BM_BytesPerRecord)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
