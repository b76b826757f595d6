#include <gtest/gtest.h>

#include "passtiming/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;

const Record& record_named(const Section& s, std::string_view name) {
  for (const Record& r : s.records) {
    if (s.name_of(r) == name) return r;
  }
  ADD_FAILURE() << "no record " << name;
  return s.records.front();
}

TEST(TimingStateParentTest, BeforeReturnsSequences) {
  TimingStateMachine sm;
  sm.enter(0);
  EXPECT_EQ(sm.before(0, "a", "", 1, nullptr), 0u);
  EXPECT_EQ(sm.before(1, "b", "", 1, nullptr), 1u);
  ManualClock clock(7);
  EXPECT_EQ(sm.before_now(clock, "c", "", 1, nullptr), 2u);
  sm.after(8, "c", 1);
  sm.after(9, "b", 1);
  sm.after(10, "a", 1);
  EXPECT_EQ(record_named(sm.section(), "c").start_ns, 7);
  EXPECT_EQ(record_named(sm.section(), "c").depth, 2);
}

TEST(TimingStateParentTest, ChildOnWorkerThreadNestsUnderAdaptor) {
  // Thread 1 runs an adaptor; threads 2 and 3 run its child pipelines in
  // parallel, each with one pass inside.
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "module-pass", "", 1, nullptr);
  sm.after(10, "module-pass", 1);
  const std::uint32_t adaptor = sm.before(10, "adaptor", "", 1, nullptr);
  const ParentRef parent{1, adaptor};
  sm.before(12, "pipeline", "f", 2, &parent);
  sm.before(13, "pipeline", "g", 3, &parent);
  sm.before(14, "pass", "f", 2, nullptr);
  sm.before(15, "pass", "g", 3, nullptr);
  sm.after(30, "pass", 2);
  sm.after(40, "pass", 3);
  sm.after(31, "pipeline", 2);
  sm.after(41, "pipeline", 3);
  sm.after(50, "adaptor", 1);
  sm.exit(50);

  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 6u);
  const Record& adaptor_record = s.records.back();
  EXPECT_EQ(s.name_of(adaptor_record), "adaptor");
  EXPECT_EQ(adaptor_record.depth, 0);
  EXPECT_EQ(adaptor_record.inclusive_ns, 40);
  // Children: 19 + 28 = 47 > 40 wall time, so self is clamped at zero.
  EXPECT_EQ(adaptor_record.self_ns, 0);

  for (const Record& r : s.records) {
    if (s.name_of(r) == "pipeline") {
      EXPECT_EQ(r.depth, 1);
      EXPECT_EQ(r.parent, adaptor);
      EXPECT_NE(r.thread, adaptor_record.thread);
    }
    if (s.name_of(r) == "pass") {
      EXPECT_EQ(r.depth, 2);
      EXPECT_NE(r.parent, kNoParent);
    }
  }
  EXPECT_EQ(s.name_of(s.records[0]), "module-pass");
  const Record& f_pipeline = s.records[3];
  EXPECT_EQ(s.kernel_of(f_pipeline), "f");
  EXPECT_EQ(f_pipeline.inclusive_ns, 19);
  EXPECT_EQ(f_pipeline.self_ns, 3);  // 19 - the pass's 16
  // Only the two top-level passes count towards the total: no double count.
  EXPECT_DOUBLE_EQ(s.total_seconds(), 50e-9);
}

TEST(TimingStateParentTest, SequentialChildrenLeavePositiveSelfTime) {
  TimingStateMachine sm;
  sm.enter(0);
  const std::uint32_t adaptor = sm.before(0, "adaptor", "", 1, nullptr);
  const ParentRef parent{1, adaptor};
  sm.before(10, "pipeline", "f", 2, &parent);
  sm.after(20, "pipeline", 2);
  sm.before(25, "pipeline", "g", 2, &parent);
  sm.after(35, "pipeline", 2);
  sm.after(100, "adaptor", 1);
  const Record& a = sm.section().records.back();
  EXPECT_EQ(a.inclusive_ns, 100);
  EXPECT_EQ(a.self_ns, 80);
}

TEST(TimingStateParentTest, ParentOnTheSameThreadBehavesLikeNesting) {
  TimingStateMachine sm;
  sm.enter(0);
  const std::uint32_t outer = sm.before(0, "outer", "", 5, nullptr);
  const ParentRef parent{5, outer};
  sm.before(1, "inner", "", 5, &parent);
  sm.after(4, "inner", 5);
  sm.after(10, "outer", 5);
  const Section& s = sm.section();
  EXPECT_EQ(s.records[0].depth, 1);
  EXPECT_EQ(s.records[0].parent, outer);
  EXPECT_EQ(s.records[1].self_ns, 7);
}

TEST(TimingStateParentTest, DepthContinuesAboveAnAttachedFrame) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "root", "", 1, nullptr);
  const std::uint32_t adaptor = sm.before(0, "adaptor", "", 1, nullptr);
  const ParentRef parent{1, adaptor};
  sm.before(1, "pipeline", "", 2, &parent);
  sm.before(2, "nested-adaptor", "", 2, nullptr);
  sm.before(3, "leaf", "", 2, nullptr);
  sm.after(4, "leaf", 2);
  EXPECT_EQ(sm.section().records[0].depth, 4);
}

TEST(TimingStateParentTest, MissingParentIsLoggedAndNestsNormally) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  const ParentRef parent{9, 42};
  sm.before(0, "orphan", "", 2, &parent);
  sm.after(5, "orphan", 2);
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().records[0].depth, 0);
  EXPECT_EQ(sm.section().records[0].parent, kNoParent);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Pass timing parent 42 of orphan is not running on thread 9"});
}

TEST(TimingStateParentTest, ParentFinishingFirstDoesNotCorruptRecords) {
  TimingStateMachine sm;
  sm.enter(0);
  const std::uint32_t adaptor = sm.before(0, "adaptor", "", 1, nullptr);
  const ParentRef parent{1, adaptor};
  sm.before(1, "late", "", 2, &parent);
  sm.after(2, "adaptor", 1);
  sm.after(3, "late", 2);
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 2u);
  EXPECT_EQ(s.records[0].self_ns, 2);  // adaptor: nothing subtracted
  EXPECT_EQ(s.records[1].parent, adaptor);
  EXPECT_EQ(s.records[1].depth, 1);
}

}  // namespace
}  // namespace passtiming
