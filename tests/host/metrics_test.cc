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
