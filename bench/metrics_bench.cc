/// What each metric (metrics.h) costs per pass execution, side by side in one
/// binary so the ratios hold on a noisy machine: the timing instrument's
/// callbacks on the 3-deep stream of core_bench, with no metric, with each
/// metric alone and with all of them; and the system sampler's readings on
/// their own. Every "per pair" figure is one before/after pair
/// (items_per_second). The IR size is counted by each source and costs what
/// walking its IR costs; the adapters' benchmarks measure it.

#include <benchmark/benchmark.h>

#include "passtiming/engine/metric_sampler.h"
#include "passtiming/passtiming.h"
#include "three_deep_stream.h"

namespace {

using namespace passtiming;

constexpr std::int64_t kIterationsPerContext = 1 << 16;

MetricSet metrics_of(std::int64_t bits) {
  return MetricSet(static_cast<std::uint8_t>(bits));
}

std::string label_of(MetricSet set, const ProfileMetrics& recorded, std::string_view per) {
  std::string label = set.empty() ? "none" : format_metrics(set);
  for (const UnavailableMetric& u : recorded.unavailable) {
    label += " (" + std::string(metric_name(u.metric)) + " unavailable)";
  }
  return label + ", per " + std::string(per);
}

/// The instrument's callbacks with the metrics of state.range(0) (bits of
/// Metric) read by the system sampler.
void BM_Metrics_Instrument3Deep(benchmark::State& state) {
  const MetricSet set = metrics_of(state.range(0));
  TileLangPassTimingInstrument timing;
  timing.recorder().record_metrics(set);
  PassInstrumentPtr instrument = timing.instrument();
  bench::time_three_deep_stream(state, *instrument, kIterationsPerContext);
  state.SetLabel(label_of(set, timing.recorder().metrics(), "pair"));
}
// none, cpu, rss, instructions, cpu+rss+instructions (ir is the source's).
BENCHMARK(BM_Metrics_Instrument3Deep)->Arg(0)->Arg(1)->Arg(2)->Arg(8)->Arg(11);

/// One reading of the sampler alone (two make a pair's cost of it).
void BM_Metrics_SamplerRead(benchmark::State& state) {
  const MetricSet set = metrics_of(state.range(0));
  SystemMetricSampler sampler(set);
  for (auto _ : state) {
    MetricSample sample;
    sampler.read(sample);
    benchmark::DoNotOptimize(sample);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(label_of(set, sampler.metrics(), "reading"));
}
BENCHMARK(BM_Metrics_SamplerRead)->Arg(1)->Arg(2)->Arg(8);

}  // namespace

BENCHMARK_MAIN();
