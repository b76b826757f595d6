#include "passtiming/timing_state.h"

#include <gtest/gtest.h>

#include <limits>

#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;
constexpr Nanoseconds kS = 1'000'000'000;

TEST(TimingStateMachineTest, NestedSelfTime) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "parent", "");
  sm.before(1 * kS, "child", "");
  sm.after(3 * kS, "child");
  sm.after(5 * kS, "parent");
  sm.exit(5 * kS);
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 2u);
  const Record& child = s.records[0];  // completion order: child first
  const Record& parent = s.records[1];
  EXPECT_EQ(s.name_of(child), "child");
  EXPECT_EQ(child.inclusive_ns, 2 * kS);
  EXPECT_EQ(child.self_ns, 2 * kS);
  EXPECT_EQ(child.depth, 1);
  EXPECT_EQ(child.sequence, 1u);
  EXPECT_EQ(child.parent, 0u);
  EXPECT_EQ(child.start_ns, 1 * kS);
  EXPECT_EQ(s.name_of(parent), "parent");
  EXPECT_EQ(parent.inclusive_ns, 5 * kS);
  EXPECT_EQ(parent.self_ns, 3 * kS);
  EXPECT_EQ(parent.depth, 0);
  EXPECT_EQ(parent.sequence, 0u);
  EXPECT_EQ(parent.parent, kNoParent);
  EXPECT_DOUBLE_EQ(s.total_seconds(), 5.0);
  EXPECT_EQ(s.order_by_sequence(), (std::vector<std::uint32_t>{1, 0}));
}

TEST(TimingStateMachineTest, SelfTimeNeverNegative) {
  // Children on other threads of the same parent are not subtracted, but a
  // parent whose children's time exceeds its own (clock skew in a replayed
  // log) is clamped at zero.
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(10, "parent", "");
  sm.before(0, "child", "");  // replayed timestamps out of order
  sm.after(100, "child");
  sm.after(50, "parent");
  EXPECT_EQ(sm.section().records[1].inclusive_ns, 40);
  EXPECT_EQ(sm.section().records[1].self_ns, 0);
}

TEST(TimingStateMachineTest, BackwardsAndExtremeTimestampsNeverGoNegativeOrWrap) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(100, "backwards", "");
  sm.after(40, "backwards");
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 0);
  EXPECT_EQ(sm.section().records[0].self_ns, 0);
  constexpr Nanoseconds kMin = std::numeric_limits<Nanoseconds>::min();
  constexpr Nanoseconds kMax = std::numeric_limits<Nanoseconds>::max();
  sm.before(kMin, "outer", "");
  sm.before(kMin, "huge", "");
  sm.after(kMax, "huge");
  sm.after(kMax, "outer");
  EXPECT_EQ(sm.section().records[1].inclusive_ns, kMax);
  EXPECT_EQ(sm.section().records[2].inclusive_ns, kMax);
  EXPECT_EQ(sm.section().records[2].self_ns, 0);
}

TEST(TimingStateMachineTest, UnmatchedAfterOnEmptyStack) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.after(1, "ghost");
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{
                "Ignoring unmatched pass timing callback for ghost (expected <none>)"});
}

TEST(TimingStateMachineTest, UnmatchedAfterClearsTheStack) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "outer", "");
  sm.before(1, "inner", "");
  sm.after(2, "outer");  // expected inner
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_TRUE(sm.running_passes().empty());
  sm.after(3, "outer");  // the stack was cleared
  EXPECT_EQ(log.messages(LogLevel::warning),
            (std::vector<std::string>{
                "Ignoring unmatched pass timing callback for outer (expected inner)",
                "Ignoring unmatched pass timing callback for outer (expected <none>)"}));
}

TEST(TimingStateMachineTest, ExitDiscardsIncompleteFramesOutermostFirst) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "A", "");
  sm.before(1, "B", "");
  sm.before(2, "C", "");
  sm.after(3, "C");
  EXPECT_EQ(sm.running_passes(), (std::vector<std::string>{"A", "B"}));
  sm.exit(4);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Discarding 2 incomplete pass timing frame(s): A, B"});
  EXPECT_TRUE(sm.running_passes().empty());
  ASSERT_EQ(sm.section().records.size(), 1u);  // records persist after exit
  EXPECT_EQ(sm.section().name_of(sm.section().records[0]), "C");
}

TEST(TimingStateMachineTest, EnterClearsRecordsStackAndSequence) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0, "first");
  sm.before(0, "a", "");
  sm.after(1, "a");
  sm.before(1, "dangling", "");
  sm.enter(2, "second");
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(sm.section().context, "second");
  EXPECT_TRUE(sm.running_passes().empty());
  sm.before(2, "b", "");
  sm.after(3, "b");
  EXPECT_EQ(sm.section().records[0].sequence, 0u);
  EXPECT_TRUE(log.entries.empty());
}

TEST(TimingStateMachineTest, SkipsAreCounted) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.skip(0, "vetoed", "k");
  sm.skip(1, "vetoed", "k");
  EXPECT_EQ(sm.section().skipped, 2u);
  EXPECT_TRUE(sm.section().records.empty());
}

TEST(TimingStateMachineTest, ThreadsKeepSeparateStacks) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "main", "", 1);
  sm.before(1, "worker", "f", 7);
  sm.before(2, "nested", "f", 7);
  sm.after(4, "nested", 7);
  sm.after(5, "worker", 7);
  sm.after(9, "main", 1);
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 3u);
  EXPECT_EQ(s.threads, (std::vector<std::uint64_t>{1, 7}));
  EXPECT_EQ(s.records[0].thread, 1u);
  EXPECT_EQ(s.records[0].depth, 1);  // nested: depth within thread 7
  EXPECT_EQ(s.records[1].depth, 0);  // worker: top of thread 7
  EXPECT_EQ(s.records[1].self_ns, 2);
  EXPECT_EQ(s.records[2].thread, 0u);
  EXPECT_EQ(s.records[2].self_ns, 9);  // worker is not main's child
  // Sequence numbers are shared by all threads of the section.
  EXPECT_EQ(s.records[0].sequence, 2u);
  EXPECT_EQ(s.records[1].sequence, 1u);
  EXPECT_EQ(s.records[2].sequence, 0u);
}

TEST(TimingStateMachineTest, BeforeNowReadsTheClockAfterPushing) {
  ManualClock clock;
  clock.script({100, 250});
  TimingStateMachine sm;
  sm.enter(0);
  sm.before_now(clock, "p", "");
  sm.after(clock.now_ns(), "p");
  EXPECT_EQ(clock.reads(), 2u);
  EXPECT_EQ(sm.section().records[0].start_ns, 100);
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 150);
}

TEST(TimingStateMachineTest, FlagsAreStored) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "p", "");
  sm.after(1, "p", 0, kRecordFailed);
  EXPECT_EQ(sm.section().records[0].flags, kRecordFailed);
}

class RecordingObserver final : public EventObserver {
 public:
  std::vector<std::string> events;
  void on_enter(Nanoseconds t, std::string_view context) noexcept override {
    events.push_back("enter " + std::to_string(t) + " " + std::string(context));
  }
  void on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                 ThreadKey tid) noexcept override {
    events.push_back("before " + std::to_string(t) + " " + std::string(pass) + " " +
                     std::string(kernel) + " " + std::to_string(tid));
  }
  void on_after(Nanoseconds t, std::string_view pass, ThreadKey tid) noexcept override {
    events.push_back("after " + std::to_string(t) + " " + std::string(pass) + " " +
                     std::to_string(tid));
  }
  void on_skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
               ThreadKey tid) noexcept override {
    events.push_back("skip " + std::to_string(t) + " " + std::string(pass) + " " +
                     std::string(kernel) + " " + std::to_string(tid));
  }
  void on_exit(Nanoseconds t) noexcept override { events.push_back("exit " + std::to_string(t)); }
};

TEST(TimingStateMachineTest, ObserverSeesEveryEventWithTheRecordedTimestamps) {
  RecordingObserver observer;
  ManualClock clock;
  clock.script({42});
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(1, "ctx");
  sm.before_now(clock, "p", "k", 3);
  sm.skip(43, "q", "", 3);
  sm.after(50, "p", 3);
  sm.exit(60);
  EXPECT_EQ(observer.events, (std::vector<std::string>{"enter 1 ctx", "before 42 p k 3",
                                                       "skip 43 q  3", "after 50 p 3", "exit 60"}));
  EXPECT_EQ(sm.section().records[0].start_ns, 42);
}

TEST(SectionTest, OrderBySequenceHandlesGapsAndRepeats) {
  Section s;
  auto add = [&s](std::uint32_t sequence) {
    Record r;
    r.sequence = sequence;
    s.records.push_back(r);
  };
  add(5), add(1), add(3);  // gaps: discarded frames leave unused sequences
  EXPECT_EQ(s.order_by_sequence(), (std::vector<std::uint32_t>{1, 2, 0}));
  add(1);  // a repeat (merged input): stable, completion order kept
  EXPECT_EQ(s.order_by_sequence(), (std::vector<std::uint32_t>{1, 3, 2, 0}));
  add(4'000'000'000u);  // sparse: the sort path
  EXPECT_EQ(s.order_by_sequence(), (std::vector<std::uint32_t>{1, 3, 2, 0, 4}));
  EXPECT_TRUE(Section().order_by_sequence().empty());
}

TEST(TimingStateMachineTest, RecordIsFortyEightBytes) {
  EXPECT_EQ(sizeof(Record), 48u);
}

}  // namespace
}  // namespace passtiming
