#include "passtiming/analysis/aggregate.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming {
namespace {

/// ctx1: parent(k1) [0,10] holding child(k1) [1,4] and child(k2) [5,6];
/// ctx2: outer [0,8] holding another outer [2,5] (a recursive pass).
Profile sample() {
  Profile p;
  TimingStateMachine sm;
  sm.enter(0, "ctx1");
  sm.begin(0, {"parent", "k1"});
  sm.begin(1, {"child", "k1"});
  sm.end(4, {"child"});
  sm.begin(5, {"child", "k2"});
  sm.end(6, {"child"});
  sm.end(10, {"parent"});
  sm.exit(10);
  p.sections.push_back(sm.take_section());
  sm.enter(0, "ctx2");
  sm.begin(0, {"outer", ""});
  sm.begin(2, {"outer", ""});
  sm.end(5, {"outer"});
  sm.end(8, {"outer"});
  sm.exit(8);
  p.sections.push_back(sm.take_section());
  return p;
}

void expect_row(const AggregateRow& r, std::string key, std::uint64_t runs, Nanoseconds incl,
                Nanoseconds self, double mean, Nanoseconds p50, Nanoseconds p95, Nanoseconds max,
                double share) {
  EXPECT_EQ(r.key, key);
  EXPECT_EQ(r.executions, runs) << key;
  EXPECT_EQ(r.total_inclusive_ns, incl) << key;
  EXPECT_EQ(r.total_self_ns, self) << key;
  EXPECT_DOUBLE_EQ(r.mean_self_ns, mean) << key;
  EXPECT_EQ(r.p50_self_ns, p50) << key;
  EXPECT_EQ(r.p95_self_ns, p95) << key;
  EXPECT_EQ(r.max_self_ns, max) << key;
  EXPECT_DOUBLE_EQ(r.self_share, share) << key;
}

TEST(AggregateTest, ByPassCountsRecursionOnceInInclusiveTime) {
  Aggregator agg(GroupBy::pass);
  agg.add(sample());
  const auto rows = agg.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(agg.total_self_ns(), 18);
  expect_row(rows[0], "outer", 2, 8, 8, 4.0, 3, 5, 5, 8.0 / 18);
  expect_row(rows[1], "parent", 1, 10, 6, 6.0, 6, 6, 6, 6.0 / 18);
  expect_row(rows[2], "child", 2, 4, 4, 2.0, 1, 3, 3, 4.0 / 18);
}

/// A pass manager `pm` whose IR unit goes from 100 to 90, holding `inline`
/// (10 to 15) and `dce` (20 to 5), each on a function of it.
Profile ir_changes() {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  MetricSet ir;
  ir.insert(Metric::ir);
  sm.set_metrics(&sampler, ir);
  sm.enter(0);
  sm.note_ir(100);
  sm.begin(0, {"pm", "m"});
  sm.note_ir(10);
  sm.begin(1, {"inline", "f"});
  sm.note_ir(15);
  sm.end(2, {"inline"});
  sm.note_ir(20);
  sm.begin(3, {"dce", "g"});
  sm.note_ir(5);
  sm.end(4, {"dce"});
  sm.note_ir(90);
  sm.end(5, {"pm"});
  sm.exit(5);
  Profile p;
  p.metrics.recorded = ir;
  p.sections.push_back(sm.take_section());
  return p;
}

TEST(AggregateTest, AChangesSelfLeavesOutTheChangesOfThePassesNestedInIt) {
  const Profile p = ir_changes();
  const Section& s = p.sections[0];
  ASSERT_EQ(s.records.size(), 3u);  // inline, dce, pm
  const std::vector<std::optional<double>> self = section_self_measures(s, Measure::ir);
  EXPECT_EQ(self, (std::vector<std::optional<double>>{5.0, -15.0, 0.0}));
  EXPECT_EQ(record_measure(s, 2, Measure::ir), -10.0);
  EXPECT_EQ(record_measure_inclusive(s, 2, Measure::ir), -10.0);
}

TEST(AggregateTest, AChangeMeasureSumsToTheNetChangeAndSharesTheSizeOfEachChange) {
  Aggregator agg(GroupBy::pass, Measure::ir);
  agg.add(ir_changes());
  EXPECT_EQ(agg.total_self_ns(), -10);
  const auto rows = agg.rows();
  ASSERT_EQ(rows.size(), 3u);
  // The largest change first, shrinking or growth; shares of 15 + 5 + 0.
  expect_row(rows[0], "dce", 1, -15, -15, -15.0, -15, -15, -15, -0.75);
  expect_row(rows[1], "inline", 1, 5, 5, 5.0, 5, 5, 5, 0.25);
  expect_row(rows[2], "pm", 1, -10, 0, 0.0, 0, 0, 0, 0.0);
}

TEST(AggregateTest, ByKernelAndByContext) {
  Aggregator kernels(GroupBy::kernel);
  kernels.add(sample());
  auto rows = kernels.rows();
  ASSERT_EQ(rows.size(), 3u);
  expect_row(rows[0], "k1", 2, 10, 9, 4.5, 3, 6, 6, 9.0 / 18);
  expect_row(rows[1], "", 2, 8, 8, 4.0, 3, 5, 5, 8.0 / 18);
  expect_row(rows[2], "k2", 1, 1, 1, 1.0, 1, 1, 1, 1.0 / 18);

  Aggregator contexts(GroupBy::context);
  contexts.add(sample());
  contexts.add(sample());
  rows = contexts.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(contexts.profiles(), 2u);
  expect_row(rows[0], "ctx1", 6, 20, 20, 10.0 / 3, 3, 6, 6, 20.0 / 36);
  expect_row(rows[1], "ctx2", 4, 16, 16, 4.0, 3, 5, 5, 16.0 / 36);
}

TEST(AggregateTest, NearestRankPercentilesOverManyProfiles) {
  Aggregator agg(GroupBy::pass);
  for (Nanoseconds i = 1; i <= 100; ++i) {
    TimingStateMachine sm;
    sm.enter(0, "");
    sm.begin(0, {"p", ""});
    sm.end(i, {"p"});
    Profile p;
    p.sections.push_back(sm.take_section());
    agg.add(p);
  }
  const auto rows = agg.rows();
  expect_row(rows[0], "p", 100, 5050, 5050, 50.5, 50, 95, 100, 1.0);
}

TEST(AggregateTest, ParseGroupBy) {
  EXPECT_EQ(parse_group_by("kernel"), GroupBy::kernel);
  EXPECT_EQ(parse_group_by("Pass"), std::nullopt);
  EXPECT_EQ(group_by_name(GroupBy::context), "context");
  const std::optional<GroupBy> pair = parse_group_by("kernel,pass");
  ASSERT_TRUE(pair);
  EXPECT_EQ(group_by_name(*pair), "kernel,pass");
  EXPECT_TRUE(pair->has(GroupKey::pass));
  EXPECT_FALSE(pair->has(GroupKey::file));
  EXPECT_EQ(group_by_name(*parse_group_by("pass,kernel,context,file")), "pass,kernel,context,file");
  for (const char* bad : {"", "pass,", ",pass", "pass,pass", "pass kernel", "pass,kernel,pass"}) {
    EXPECT_EQ(parse_group_by(bad), std::nullopt) << bad;
  }
}

TEST(AggregateTest, ByPassAndKernelKeepsEachPassOnEachKernelApart) {
  Aggregator agg(*parse_group_by("pass,kernel"));
  agg.add(sample());
  const auto rows = agg.rows();
  ASSERT_EQ(rows.size(), 4u);
  // The recursive outer is nested in its own group: its inclusive counts once.
  expect_row(rows[0], "outer | ", 2, 8, 8, 4.0, 3, 5, 5, 8.0 / 18);
  expect_row(rows[1], "parent | k1", 1, 10, 6, 6.0, 6, 6, 6, 6.0 / 18);
  expect_row(rows[2], "child | k1", 1, 3, 3, 3.0, 3, 3, 3, 3.0 / 18);
  expect_row(rows[3], "child | k2", 1, 1, 1, 1.0, 1, 1, 1, 1.0 / 18);
  EXPECT_EQ(rows[0].keys, (std::vector<std::string>{"outer", ""}));
  EXPECT_EQ(rows[3].keys, (std::vector<std::string>{"child", "k2"}));
}

TEST(AggregateTest, ByContextAndFileNamesTheProfileOrAMergedSectionsOrigin) {
  Aggregator agg(*parse_group_by("context,file"));
  agg.add(sample(), "a.json");
  Profile merged = sample();
  merged.sections[1].origin.file = "m.json";  // ctx2 came from another file
  agg.add(merged, "b.json");
  const auto rows = agg.rows();
  ASSERT_EQ(rows.size(), 4u);
  expect_row(rows[0], "ctx1 | a.json", 3, 10, 10, 10.0 / 3, 3, 6, 6, 10.0 / 36);
  expect_row(rows[1], "ctx1 | b.json", 3, 10, 10, 10.0 / 3, 3, 6, 6, 10.0 / 36);
  expect_row(rows[2], "ctx2 | a.json", 2, 8, 8, 4.0, 3, 5, 5, 8.0 / 36);
  expect_row(rows[3], "ctx2 | m.json", 2, 8, 8, 4.0, 3, 5, 5, 8.0 / 36);
  EXPECT_EQ(rows[3].keys, (std::vector<std::string>{"ctx2", "m.json"}));
}

TEST(AggregateTest, NamesWithTheSeparatorStayDistinctGroups) {
  // "a | b" on kernel "c" and "a" on kernel "b | c" print alike but are two
  // groups.
  TimingStateMachine sm;
  sm.enter(0, "");
  sm.begin(0, {"a | b", "c"});
  sm.end(1, {"a | b"});
  sm.begin(1, {"a", "b | c"});
  sm.end(3, {"a"});
  sm.exit(3);
  Profile p;
  p.sections.push_back(sm.take_section());
  Aggregator agg(*parse_group_by("pass,kernel"));
  agg.add(p);
  const auto rows = agg.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].keys, (std::vector<std::string>{"a", "b | c"}));
  EXPECT_EQ(rows[1].keys, (std::vector<std::string>{"a | b", "c"}));
}

std::unordered_map<std::string, GroupTotals> totals(
    std::initializer_list<std::pair<const std::string, GroupTotals>> entries) {
  return std::unordered_map<std::string, GroupTotals>(entries);
}

TEST(AggregateTest, DiffComparesMediansAndSortsByAbsoluteDelta) {
  const std::vector base = {totals({{"x", {10, 1}}, {"gone", {4, 1}}, {"y", {9, 1}}}),
                            totals({{"x", {20, 1}}, {"gone", {4, 1}}}),
                            totals({{"x", {30, 3}}, {"gone", {4, 1}}})};
  const std::vector next = {totals({{"x", {25, 2}}, {"fresh", {2, 1}}}),
                            totals({{"x", {35, 2}}, {"fresh", {2, 1}}})};
  const auto rows = diff_profiles(base, next);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].key, "x");
  EXPECT_DOUBLE_EQ(rows[0].base_self_ns, 20);
  EXPECT_DOUBLE_EQ(rows[0].new_self_ns, 30);
  EXPECT_DOUBLE_EQ(rows[0].base_executions, 1);
  EXPECT_DOUBLE_EQ(rows[0].new_executions, 2);
  EXPECT_DOUBLE_EQ(*rows[0].delta_percent(), 50);
  EXPECT_EQ(rows[1].key, "gone");
  EXPECT_FALSE(rows[1].in_new);
  EXPECT_EQ(rows[2].key, "fresh");
  EXPECT_FALSE(rows[2].in_base);
  EXPECT_FALSE(rows[2].delta_percent());
  EXPECT_EQ(rows[3].key, "y");  // in one base profile of three: median 0
  EXPECT_TRUE(rows[3].in_base);
  EXPECT_DOUBLE_EQ(rows[3].base_self_ns, 0);

  EXPECT_TRUE(is_regression(rows[0], 40, 0));
  EXPECT_FALSE(is_regression(rows[0], 50, 0));        // not *more* than 50 %
  EXPECT_FALSE(is_regression(rows[0], 40, 0.00004));  // 30 ns is under 40 ns
  EXPECT_FALSE(is_regression(rows[2], 0, 0));         // added passes are listed, not failed
}

}  // namespace
}  // namespace passtiming
