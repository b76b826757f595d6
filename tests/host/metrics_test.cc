// An instrument of the PassContext host recording metrics per pass
// execution (metrics.h) through its recorder. The metrics themselves are
// tested in tests/engine/metrics_test.cc.

#include "passtiming/engine/metrics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/host/pass_timing.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::set_of;

TEST(MetricsInstrumentTest, AnInstrumentRecordsWhatItIsAskedFor) {
  auto clock = std::make_shared<ManualClock>();
  clock->script({0, 10});
  auto sampler = std::make_shared<ManualMetricSampler>();
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().record_metrics(set_of({Metric::cpu}), sampler);
  EXPECT_EQ(timing.recorder().metrics().recorded, set_of({Metric::cpu}));
  auto sink = timing.events();
  sink->enter_pass_ctx();
  sampler->set(MetricSample{5});
  sink->run_before_pass("p", "k");
  sampler->set(MetricSample{8});
  sink->run_after_pass("p");
  sink->exit_pass_ctx();
  ASSERT_EQ(timing.section().metrics.size(), 1u);
  EXPECT_EQ(timing.section().metrics[0].cpu_ns, 3);
  // The default report is the seed's: no metric in it.
  EXPECT_EQ(timing.report().find("cpu"), std::string::npos);
}

TEST(MetricsInstrumentTest, APassesCpuIntervalLiesInsideItsWallInterval) {
  // One counter behind the clock and the sampler: the figures tell the
  // order of the reads.
  using ::passtiming::testing::ReadOrder;
  auto order = std::make_shared<ReadOrder>();
  auto clock = std::make_shared<::passtiming::testing::TickClock>(order);
  auto sampler = std::make_shared<::passtiming::testing::TickCpuSampler>(order);
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().record_metrics(set_of({Metric::cpu}), sampler);
  auto sink = timing.events();
  sink->enter_pass_ctx();           // wall 1
  sink->run_before_pass("p", "k");  // wall 2, CPU 3
  sink->run_after_pass("p");        // wall 4, CPU 5, wall 6
  sink->run_before_pass("q", "k");  // wall 7, CPU 8
  sink->run_after_pass_counting_ir(
      "q", [](void*, std::uint8_t&) noexcept -> std::int64_t { return 1; },
      nullptr);  // CPU 9, wall 10
  sink->exit_pass_ctx();
  const Section& s = timing.section();
  ASSERT_EQ(s.records.size(), 2u);
  ASSERT_EQ(s.metrics.size(), 2u);
  EXPECT_EQ(s.records[0].inclusive_ns, 4);
  EXPECT_EQ(s.metrics[0].cpu_ns, 2);
  EXPECT_EQ(s.records[1].inclusive_ns, 3);
  EXPECT_EQ(s.metrics[1].cpu_ns, 1);
}

/// What a source that counts its IR after a pass does while counting: time
/// and CPU time go by.
struct CountingWork {
  ManualClock* clock;
  ManualMetricSampler* sampler;
  static std::int64_t count(void* context, std::uint8_t& flags) noexcept {
    auto* work = static_cast<CountingWork*>(context);
    work->clock->advance(1000);
    work->sampler->set(MetricSample{900});
    flags = kIrChangeKnown | kIrChanged;
    return 4;
  }
};

TEST(MetricsInstrumentTest, CountingTheIrAfterAPassStaysOutsideItsTimeAndCpu) {
  auto clock = std::make_shared<ManualClock>();
  auto sampler = std::make_shared<ManualMetricSampler>();
  TileLangPassTimingInstrument timing(0.0, clock);
  timing.recorder().record_metrics(set_of({Metric::cpu, Metric::ir}), sampler);
  auto sink = timing.events();
  ASSERT_TRUE(sink->records_ir_size());
  sink->enter_pass_ctx();
  clock->set(100);
  sampler->set(MetricSample{5});
  sink->note_ir(6, 0);
  sink->run_before_pass("p", "k");
  clock->set(130);
  sampler->set(MetricSample{25});
  CountingWork work{clock.get(), sampler.get()};
  sink->run_after_pass_counting_ir("p", &CountingWork::count, &work);
  sink->exit_pass_ctx();
  ASSERT_EQ(timing.section().records.size(), 1u);
  EXPECT_EQ(timing.section().records[0].inclusive_ns, 30);
  ASSERT_EQ(timing.section().metrics.size(), 1u);
  const RecordMetrics& m = timing.section().metrics[0];
  EXPECT_EQ(m.cpu_ns, 20);
  EXPECT_EQ(m.ir_before, 6);
  EXPECT_EQ(m.ir_after, 4);
  EXPECT_EQ(m.ir_flags, kIrChangeKnown | kIrChanged);
}

}  // namespace
}  // namespace passtiming
