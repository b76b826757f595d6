// The timing state machine: the seed's semantics, the begin and end events
// of every source (a lazily read label, stable names, an IR unit that lends
// its label), parents named across threads, pass-tree order, and frames
// shaped by their event (a label from the first child, a failure that ends
// the frame below).

#include "passtiming/engine/timing_state.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/tree_order.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;
using ::passtiming::testing::ReadOrder;
using ::passtiming::testing::set_of;
using ::passtiming::testing::TickClock;
using ::passtiming::testing::TickCpuSampler;
constexpr Nanoseconds kS = 1'000'000'000;

TEST(TimingStateMachineTest, NestedSelfTime) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"parent", ""});
  sm.begin(1 * kS, {"child", ""});
  sm.end(3 * kS, {"child"});
  sm.end(5 * kS, {"parent"});
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
  sm.begin(10, {"parent", ""});
  sm.begin(0, {"child", ""});  // replayed timestamps out of order
  sm.end(100, {"child"});
  sm.end(50, {"parent"});
  EXPECT_EQ(sm.section().records[1].inclusive_ns, 40);
  EXPECT_EQ(sm.section().records[1].self_ns, 0);
}

TEST(TimingStateMachineTest, BackwardsAndExtremeTimestampsNeverGoNegativeOrWrap) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(100, {"backwards", ""});
  sm.end(40, {"backwards"});
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 0);
  EXPECT_EQ(sm.section().records[0].self_ns, 0);
  constexpr Nanoseconds kMin = std::numeric_limits<Nanoseconds>::min();
  constexpr Nanoseconds kMax = std::numeric_limits<Nanoseconds>::max();
  sm.begin(kMin, {"outer", ""});
  sm.begin(kMin, {"huge", ""});
  sm.end(kMax, {"huge"});
  sm.end(kMax, {"outer"});
  EXPECT_EQ(sm.section().records[1].inclusive_ns, kMax);
  EXPECT_EQ(sm.section().records[2].inclusive_ns, kMax);
  EXPECT_EQ(sm.section().records[2].self_ns, 0);
}

TEST(TimingStateMachineTest, UnmatchedAfterOnEmptyStack) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.end(1, {"ghost"});
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{
                "Ignoring unmatched pass timing callback for ghost (expected <none>)"});
}

TEST(TimingStateMachineTest, UnmatchedAfterClearsTheStack) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"outer", ""});
  sm.begin(1, {"inner", ""});
  sm.end(2, {"outer"});  // expected inner
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_TRUE(sm.running_passes().empty());
  sm.end(3, {"outer"});  // the stack was cleared
  EXPECT_EQ(log.messages(LogLevel::warning),
            (std::vector<std::string>{
                "Ignoring unmatched pass timing callback for outer (expected inner)",
                "Ignoring unmatched pass timing callback for outer (expected <none>)"}));
}

TEST(TimingStateMachineTest, ExitDiscardsIncompleteFramesOutermostFirst) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"A", ""});
  sm.begin(1, {"B", ""});
  sm.begin(2, {"C", ""});
  sm.end(3, {"C"});
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
  sm.begin(0, {"a", ""});
  sm.end(1, {"a"});
  sm.begin(1, {"dangling", ""});
  sm.enter(2, "second");
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(sm.section().context, "second");
  EXPECT_TRUE(sm.running_passes().empty());
  sm.begin(2, {"b", ""});
  sm.end(3, {"b"});
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
  sm.begin(0, {"main", "", 1});
  sm.begin(1, {"worker", "f", 7});
  sm.begin(2, {"nested", "f", 7});
  sm.end(4, {"nested", 7});
  sm.end(5, {"worker", 7});
  sm.end(9, {"main", 1});
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
  sm.begin_now(clock, {"p", ""});
  sm.end(clock.now_ns(), {"p"});
  EXPECT_EQ(clock.reads(), 2u);
  EXPECT_EQ(sm.section().records[0].start_ns, 100);
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 150);
}

TEST(TimingStateMachineTest, FlagsAreStored) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"p", ""});
  sm.end(1, {"p", 0, kRecordFailed});
  EXPECT_EQ(sm.section().records[0].flags, kRecordFailed);
}

class RecordingObserver final : public EventObserver {
 public:
  std::vector<std::string> events;
  /// "KIND T" and the event's fields: "enter 1 ctx", "before 42 p k 3",
  /// "after 50 p 3", "skip 43 q  3", "exit 60".
  void on_event(const ObservedEvent& e) noexcept override {
    const std::string t = std::to_string(e.t);
    const std::string pass(e.pass), kernel(e.kernel), tid = std::to_string(e.thread);
    switch (e.kind) {
      case ObservedEvent::Kind::enter:
        events.push_back("enter " + t + " " + std::string(e.context));
        break;
      case ObservedEvent::Kind::before:
        events.push_back("before " + t + " " + pass + " " + kernel + " " + tid);
        break;
      case ObservedEvent::Kind::after:
        events.push_back("after " + t + " " + pass + " " + tid);
        break;
      case ObservedEvent::Kind::skip:
        events.push_back("skip " + t + " " + pass + " " + kernel + " " + tid);
        break;
      case ObservedEvent::Kind::exit: events.push_back("exit " + t); break;
    }
  }
};

TEST(TimingStateMachineTest, ObserverSeesEveryEventWithTheRecordedTimestamps) {
  RecordingObserver observer;
  ManualClock clock;
  clock.script({42});
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(1, "ctx");
  sm.begin_now(clock, {"p", "k", 3});
  sm.skip(43, "q", "", 3);
  sm.end(50, {"p", 3});
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

// Parents named by (thread, key): MLIR runs a nested pipeline on a worker
// thread for a pass adaptor running on another.

const Record& record_named(const Section& s, std::string_view name) {
  for (const Record& r : s.records) {
    if (s.name_of(r) == name) return r;
  }
  ADD_FAILURE() << "no record " << name;
  return s.records.front();
}

/// Distinct addresses for frame keys and IR units.
struct Keys {
  int a = 0, b = 0, c = 0;
};

TEST(TimingStateParentTest, BeginNowTakesTheClockAfterPushing) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"a", "", 1});
  sm.begin(1, {"b", "", 1});
  ManualClock clock(7);
  sm.begin_now(clock, {"c", "", 1});
  sm.end(8, {"c", 1});
  sm.end(9, {"b", 1});
  sm.end(10, {"a", 1});
  EXPECT_EQ(record_named(sm.section(), "c").start_ns, 7);
  EXPECT_EQ(record_named(sm.section(), "c").depth, 2);
}

TEST(TimingStateParentTest, ChildOnWorkerThreadNestsUnderAdaptor) {
  // Thread 1 runs an adaptor; threads 2 and 3 run its child pipelines in
  // parallel, each with one pass inside.
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "module-pass", .thread = 1, .key = &keys.a});
  sm.end(10, {"module-pass", 1});
  sm.begin(10, {.pass = "adaptor", .thread = 1, .key = &keys.b});
  const ParentRef parent{1, &keys.b};
  sm.begin(12, {.pass = "pipeline", .kernel = "f", .thread = 2, .parent = parent});
  sm.begin(13, {.pass = "pipeline", .kernel = "g", .thread = 3, .parent = parent});
  sm.begin(14, {"pass", "f", 2});
  sm.begin(15, {"pass", "g", 3});
  sm.end(30, {"pass", 2});
  sm.end(40, {"pass", 3});
  sm.end(31, {"pipeline", 2});
  sm.end(41, {"pipeline", 3});
  sm.end(50, {"adaptor", 1});
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
      EXPECT_EQ(r.parent, adaptor_record.sequence);
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
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "adaptor", .thread = 1, .key = &keys.a});
  const ParentRef parent{1, &keys.a};
  sm.begin(10, {.pass = "pipeline", .kernel = "f", .thread = 2, .parent = parent});
  sm.end(20, {"pipeline", 2});
  sm.begin(25, {.pass = "pipeline", .kernel = "g", .thread = 2, .parent = parent});
  sm.end(35, {"pipeline", 2});
  sm.end(100, {"adaptor", 1});
  const Record& a = sm.section().records.back();
  EXPECT_EQ(a.inclusive_ns, 100);
  EXPECT_EQ(a.self_ns, 80);
}

TEST(TimingStateParentTest, ParentOnTheSameThreadBehavesLikeNesting) {
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "outer", .thread = 5, .key = &keys.a});
  sm.begin(1, {.pass = "inner", .thread = 5, .parent = {5, &keys.a}});
  sm.end(4, {"inner", 5});
  sm.end(10, {"outer", 5});
  const Section& s = sm.section();
  EXPECT_EQ(s.records[0].depth, 1);
  EXPECT_EQ(s.records[0].parent, s.records[1].sequence);
  EXPECT_EQ(s.records[1].sequence, 0u);
  EXPECT_EQ(s.records[1].self_ns, 7);
}

TEST(TimingStateParentTest, TheInnermostFrameWithTheKeyIsTheParent) {
  // A pass that runs a pipeline inside itself: its key is on the stack twice.
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "outer", .thread = 1, .key = &keys.a});
  sm.begin(1, {.pass = "again", .thread = 1, .key = &keys.a});
  sm.begin(2, {.pass = "child", .thread = 2, .parent = {1, &keys.a}});
  sm.end(3, {"child", 2});
  sm.end(4, {"again", 1});
  sm.end(5, {"outer", 1});
  const Section& s = sm.section();
  EXPECT_EQ(s.records[0].depth, 2);
  EXPECT_EQ(s.records[0].parent, record_named(s, "again").sequence);
  EXPECT_EQ(record_named(s, "again").self_ns, 2);
  EXPECT_EQ(record_named(s, "outer").self_ns, 2);
}

TEST(TimingStateParentTest, DepthContinuesAboveAnAttachedFrame) {
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"root", "", 1});
  sm.begin(0, {.pass = "adaptor", .thread = 1, .key = &keys.a});
  sm.begin(1, {.pass = "pipeline", .thread = 2, .parent = {1, &keys.a}});
  sm.begin(2, {"nested-adaptor", "", 2});
  sm.begin(3, {"leaf", "", 2});
  sm.end(4, {"leaf", 2});
  EXPECT_EQ(sm.section().records[0].depth, 4);
}

TEST(TimingStateParentTest, MissingParentIsLoggedAndNestsNormally) {
  LogCapture log;
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "orphan", .thread = 2, .parent = {9, &keys.a}});
  sm.end(5, {"orphan", 2});
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().records[0].depth, 0);
  EXPECT_EQ(sm.section().records[0].parent, kNoParent);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Pass timing parent of orphan is not running on thread 9"});
}

TEST(TimingStateParentTest, ParentFinishingFirstDoesNotCorruptRecords) {
  Keys keys;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {.pass = "adaptor", .thread = 1, .key = &keys.a});
  sm.begin(1, {.pass = "late", .thread = 2, .parent = {1, &keys.a}});
  sm.end(2, {"adaptor", 1});
  sm.end(3, {"late", 2});
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 2u);
  EXPECT_EQ(s.records[0].self_ns, 2);  // adaptor: nothing subtracted
  EXPECT_EQ(s.records[1].parent, s.records[0].sequence);
  EXPECT_EQ(s.records[1].depth, 1);
}

// Pass-tree order: the records of a section whose frames had keys or named
// their parents are numbered depth first.

std::vector<std::pair<std::string, std::uint32_t>> by_sequence(const Section& s) {
  std::vector<std::pair<std::string, std::uint32_t>> out;
  for (std::uint32_t i : s.order_by_sequence()) {
    out.emplace_back(std::string(s.name_of(s.records[i])), s.records[i].parent);
  }
  return out;
}
using NamesAndParents = std::vector<std::pair<std::string, std::uint32_t>>;

/// Two pipelines on threads 2 and 3 start interleaved under an adaptor.
void interleaved_pipelines(TimingStateMachine& sm, const Keys& keys) {
  sm.enter(0);
  sm.begin(0, {.pass = "adaptor", .thread = 1, .key = &keys.a});
  const ParentRef parent{1, &keys.a};
  sm.begin(1, {.pass = "p-f", .kernel = "f", .thread = 2, .parent = parent});
  sm.begin(2, {.pass = "p-g", .kernel = "g", .thread = 3, .parent = parent});
  sm.begin(3, {"f1", "f", 2});
  sm.begin(4, {"g1", "g", 3});
  sm.end(5, {"f1", 2});
  sm.end(6, {"g1", 3});
  sm.end(7, {"p-f", 2});
  sm.end(8, {"p-g", 3});
  sm.end(9, {"adaptor", 1});
  sm.begin(10, {.pass = "last", .thread = 1, .key = &keys.b});
  sm.end(11, {"last", 1});
}
const NamesAndParents kInterleavedInTreeOrder = {
    {"adaptor", kNoParent}, {"p-f", 0}, {"f1", 1}, {"p-g", 0}, {"g1", 3}, {"last", kNoParent}};

TEST(TreeOrderTest, InterleavedPipelinesBecomeContiguous) {
  Keys keys;
  TimingStateMachine sm;
  interleaved_pipelines(sm, keys);
  EXPECT_EQ(by_sequence(sm.take_section()), kInterleavedInTreeOrder);
}

TEST(TreeOrderTest, TheSectionIsInTreeOrderBeforeAndAfterExit) {
  Keys keys;
  TimingStateMachine sm;
  interleaved_pipelines(sm, keys);
  sm.begin(12, {.pass = "running", .thread = 1, .key = &keys.c});
  EXPECT_EQ(by_sequence(sm.section()), kInterleavedInTreeOrder);
  // The running frame keeps its own sequence: it still completes right.
  sm.begin(13, {.pass = "child", .thread = 2, .parent = {1, &keys.c}});
  sm.end(14, {"child", 2});
  sm.end(15, {"running", 1});
  NamesAndParents expected = kInterleavedInTreeOrder;
  expected.emplace_back("running", kNoParent);
  expected.emplace_back("child", 6);
  EXPECT_EQ(by_sequence(sm.section()), expected);
  EXPECT_EQ(record_named(sm.section(), "running").self_ns, 2);
  sm.exit(16);
  EXPECT_EQ(by_sequence(sm.section()), expected);
  // A new context starts in begin order again.
  sm.enter(20);
  sm.begin(20, {"b", ""});
  sm.begin(21, {"a", ""});
  sm.end(22, {"a"});
  sm.end(23, {"b"});
  EXPECT_EQ(sm.section().records[0].sequence, 1u);
}

TEST(TreeOrderTest, SingleThreadSectionIsUnchanged) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"a", ""});
  sm.begin(1, {"b", ""});
  sm.end(2, {"b"});
  sm.begin(2, {"c", ""});
  sm.end(3, {"c"});
  sm.end(4, {"a"});
  Section s = sm.take_section();
  const std::vector<Record> before = s.records;
  detail::renumber_in_tree_order(s);
  ASSERT_EQ(s.records.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(s.records[i].sequence, before[i].sequence);
    EXPECT_EQ(s.records[i].parent, before[i].parent);
  }
}

TEST(TreeOrderTest, RecordWhoseParentWasDiscardedBecomesARoot) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"crashed", ""});
  sm.begin(1, {"done", ""});
  sm.end(2, {"done"});
  sm.exit(3);  // "crashed" never completed
  Section s = sm.take_section();
  detail::renumber_in_tree_order(s);
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].sequence, 0u);
  EXPECT_EQ(s.records[0].parent, kNoParent);
  EXPECT_EQ(s.records[0].depth, 1);
  // The same through the machine, with a keyed frame.
  sm.enter(0);
  sm.begin(0, {.pass = "crashed", .key = &s});
  sm.begin(1, {"done", ""});
  sm.end(2, {"done"});
  sm.exit(3);
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().records[0].sequence, 0u);
  EXPECT_EQ(sm.section().records[0].parent, kNoParent);
  EXPECT_EQ(sm.section().records[0].depth, 1);
}

// A frame whose label is its first child's, and a frame that ends with a
// failing child (MLIR's nested pipelines).

TEST(TimingStateShapeTest, AFrameTakesItsFirstChildsLabelAndBeginsForTheObserverThen) {
  RecordingObserver observer;
  Keys keys;
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(0);
  sm.begin(1, {.pass = "adaptor", .kernel = "m", .key = &keys.a});
  sm.begin(2, {.pass = "pipeline", .parent = {0, &keys.a}, .kernel_from_first_child = true});
  EXPECT_TRUE(sm.running_passes() == std::vector<std::string>{"adaptor"});
  sm.begin(3, {.pass = "cse", .kernel = "f", .key = &keys.b});
  sm.end(4, {"cse"});
  sm.begin(5, {.pass = "dce", .kernel = "WRONG", .key = &keys.c});
  sm.end(6, {"dce"});
  sm.end(7, {"pipeline"});
  // A pipeline without passes is labelled "".
  sm.begin(8, {.pass = "pipeline", .parent = {0, &keys.a}, .kernel_from_first_child = true});
  sm.end(9, {"pipeline"});
  sm.end(10, {"adaptor"});
  EXPECT_EQ(observer.events,
            (std::vector<std::string>{"enter 0 ", "before 1 adaptor m 0", "before 2 pipeline f 0",
                                      "before 3 cse f 0", "after 4 cse 0", "before 5 dce WRONG 0",
                                      "after 6 dce 0", "after 7 pipeline 0", "before 8 pipeline  0",
                                      "after 9 pipeline 0", "after 10 adaptor 0"}));
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 5u);
  EXPECT_EQ(s.kernel_of(s.records[2]), "f");
  EXPECT_EQ(s.records[2].start_ns, 2);
  EXPECT_EQ(s.records[2].inclusive_ns, 5);
  EXPECT_EQ(s.records[2].self_ns, 3);
  EXPECT_EQ(s.records[2].depth, 1);
  EXPECT_EQ(s.kernel_of(s.records[3]), "");
  EXPECT_EQ(s.records[4].self_ns, 9 - 5 - 1);
  // The names in the order a replay of the observed events gives them ids.
  EXPECT_EQ(s.names[1], "adaptor");
  EXPECT_EQ(s.names[2], "m");
  EXPECT_EQ(s.names[3], "pipeline");
  EXPECT_EQ(s.names[4], "f");
  EXPECT_EQ(s.names[5], "cse");
}

TEST(TimingStateShapeTest, AFrameAwaitingItsLabelIsNotDiscardedAloud) {
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"outer", ""});
  sm.begin(1, {.pass = "pipeline", .kernel_from_first_child = true});
  EXPECT_EQ(sm.running_passes(), std::vector<std::string>{"outer"});
  sm.exit(2);
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Discarding 1 incomplete pass timing frame(s): outer"});
}

TEST(TimingStateShapeTest, AFailingChildEndsTheFrameBelowThatAskedForIt) {
  RecordingObserver observer;
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(0);
  sm.begin(0, {"adaptor", "m"});
  sm.begin(1,
           {.pass = "pipeline", .kernel_from_first_child = true, .ends_with_failed_child = true});
  sm.begin(2, {"ok", "f"});
  sm.end(3, {"ok"});
  sm.begin(4, {"bad", "f"});
  sm.end(5, {"bad", 0, kRecordFailed});
  sm.end(6, {"adaptor", 0, kRecordFailed});  // the pipeline is closed already
  EXPECT_EQ(observer.events,
            (std::vector<std::string>{"enter 0 ", "before 0 adaptor m 0", "before 1 pipeline f 0",
                                      "before 2 ok f 0", "after 3 ok 0", "before 4 bad f 0",
                                      "after 5 bad 0", "after 5 pipeline 0", "after 6 adaptor 0"}));
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_EQ(s.name_of(s.records[2]), "pipeline");
  EXPECT_EQ(s.records[2].flags, kRecordFailed);
  EXPECT_EQ(s.records[2].inclusive_ns, 4);
  EXPECT_EQ(s.records[3].flags, kRecordFailed);
  // A frame that did not ask for it stays open under a failing child.
  sm.enter(10);
  sm.begin(10, {"outer", ""});
  sm.begin(11, {"bad", ""});
  sm.end(12, {"bad", 0, kRecordFailed});
  EXPECT_EQ(sm.running_passes(), std::vector<std::string>{"outer"});
}

TEST(TimingStateShapeTest, DigestsAtBothEndsTellWhetherThePassChangedItsUnit) {
  ManualMetricSampler sampler;
  TimingStateMachine sm;
  MetricSet ir;
  ir.insert(Metric::ir);
  sm.set_metrics(&sampler, ir);
  sm.enter(0);
  sm.begin(0, {.pass = "pipeline", .kernel_from_first_child = true});
  sm.note_ir(4, 0, 0xABCD);
  sm.begin(1, {"canonicalize", "f"});
  sm.note_ir(2, 0, 0x1234);
  sm.end(2, {"canonicalize"});
  sm.note_ir(2, 0, 0x1234);
  sm.begin(3, {"cse", "f"});
  sm.note_ir(2, 0, 0x1234);
  sm.end(4, {"cse"});
  sm.note_ir(2);  // no digest before: unknown
  sm.begin(5, {"dce", "f"});
  sm.note_ir(2, 0, 0x1234);
  sm.end(6, {"dce"});
  sm.end(7, {"pipeline"});
  const Section& s = sm.section();
  ASSERT_EQ(s.metrics.size(), 4u);
  EXPECT_EQ(s.metrics[0].ir_before, 4);
  EXPECT_EQ(s.metrics[0].ir_after, 2);
  EXPECT_EQ(s.metrics[0].ir_flags, kIrChangeKnown | kIrChanged);
  EXPECT_EQ(s.metrics[1].ir_flags, kIrChangeKnown);
  EXPECT_EQ(s.metrics[2].ir_flags, 0);
  // The pipeline took the label, not the IR noted for its first pass.
  EXPECT_EQ(s.metrics[3].ir_before, kNotMeasured);
  EXPECT_EQ(s.metrics[3].ir_after, kNotMeasured);
  EXPECT_EQ(s.metrics[3].ir_flags, 0);
}

TEST(TimingStateMetricsTest, AnEndGivenItsClockReadsTheSamplerThenTheClock) {
  auto order = std::make_shared<ReadOrder>();
  TickClock clock(order);
  TickCpuSampler sampler(order);
  TimingStateMachine sm;
  sm.set_metrics(&sampler, set_of({Metric::cpu}));
  sm.enter(0);
  sm.begin_now(clock, {"p", "k"});       // wall 1, then CPU 2
  const Nanoseconds t = clock.now_ns();  // 3: the source's first read
  sm.end(t, {.pass = "p", .clock = &clock});
  EXPECT_EQ(order->reads, "WCWCW");
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 1u);
  ASSERT_EQ(s.metrics.size(), 1u);
  // Wall from 1 to 5, CPU from 2 to 4: inside it.
  EXPECT_EQ(s.records[0].inclusive_ns, 4);
  EXPECT_EQ(s.metrics[0].cpu_ns, 2);
}

TEST(TimingStateMetricsTest, AnEndWithoutMetricsNeverReadsItsClock) {
  auto order = std::make_shared<ReadOrder>();
  TickClock clock(order);
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin_now(clock, {"p", "k"});
  sm.end(clock.now_ns(), {.pass = "p", .clock = &clock});
  EXPECT_EQ(order->reads, "WW");
  EXPECT_EQ(sm.section().records.at(0).inclusive_ns, 1);
}

// Sources that know each pass's IR unit and whose pass names never move
// (LLVM): a label read lazily, a unit that lends its label, stable names.
// They give exactly the records plain events give, and differ only in what
// they read.

/// A label function that counts its calls.
struct CountingLabel {
  std::string text;
  int* calls;
  std::string_view operator()() const {
    ++*calls;
    return text;
  }
};

/// The begin event of an LLVM pass: a lazy label, a unit, a stable name.
template <typename Label>
BeginEvent<Label> on_unit(std::string_view pass, const void* unit, Label label) {
  return {.pass = pass, .kernel = std::move(label), .unit = unit, .stable_name = true};
}

TEST(TimingStateUnitTest, APassOnTheUnitOfThePassAroundItTakesItsLabelWithoutLookingItUp) {
  ManualClock clock;
  clock.script({10, 20, 30, 40});
  TimingStateMachine sm;
  sm.enter(0);
  const int module = 0;
  const int function = 0;
  int calls = 0;
  sm.begin_now(clock,
               on_unit("ModuleToFunctionPassAdaptor", &module, CountingLabel{"m.c", &calls}));
  sm.begin_now(clock, on_unit("PassManager<Function>", &function, CountingLabel{"main", &calls}));
  // Same unit as the frame below: its label, and the function is not called.
  sm.begin_now(clock, on_unit("InstCombinePass", &function, CountingLabel{"WRONG", &calls}));
  EXPECT_EQ(calls, 2);
  sm.end(35, {"InstCombinePass"});
  // A sibling on the same unit finds the manager below it again.
  sm.begin_now(clock, on_unit("SROAPass", &function, CountingLabel{"WRONG", &calls}));
  EXPECT_EQ(calls, 2);
  sm.end(45, {"SROAPass"});
  sm.end(50, {"PassManager<Function>"});
  sm.end(60, {"ModuleToFunctionPassAdaptor"});
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_EQ(s.name_of(s.records[0]), "InstCombinePass");
  EXPECT_EQ(s.kernel_of(s.records[0]), "main");
  EXPECT_EQ(s.records[0].start_ns, 30);
  EXPECT_EQ(s.records[0].inclusive_ns, 5);
  EXPECT_EQ(s.records[0].depth, 2);
  EXPECT_EQ(s.kernel_of(s.records[1]), "main");
  EXPECT_EQ(s.kernel_of(s.records[2]), "main");
  EXPECT_EQ(s.records[2].inclusive_ns, 30);
  EXPECT_EQ(s.records[2].self_ns, 30 - 5 - 5);
  EXPECT_EQ(s.kernel_of(s.records[3]), "m.c");
  EXPECT_EQ(s.records[3].inclusive_ns, 50);
  EXPECT_EQ(s.records[3].self_ns, 20);
}

TEST(TimingStateUnitTest, AnotherUnitOrNoUnitIsLabelledAnew) {
  ManualClock clock;
  TimingStateMachine sm;
  sm.enter(0);
  const int first = 0;
  const int second = 0;
  int calls = 0;
  sm.begin_now(clock, on_unit("outer", &first, CountingLabel{"f", &calls}));
  sm.begin_now(clock, on_unit("inner", &second, CountingLabel{"g", &calls}));
  sm.begin_now(clock, on_unit("scc", nullptr, CountingLabel{"h +1 more", &calls}));
  sm.begin_now(clock, on_unit("scc pass", nullptr, CountingLabel{"h", &calls}));
  EXPECT_EQ(calls, 4);
  sm.end(1, {"scc pass"});
  sm.end(2, {"scc"});
  sm.end(3, {"inner"});
  sm.end(4, {"outer"});
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_EQ(s.kernel_of(s.records[0]), "h");
  EXPECT_EQ(s.kernel_of(s.records[1]), "h +1 more");
  EXPECT_EQ(s.kernel_of(s.records[2]), "g");
  EXPECT_EQ(s.kernel_of(s.records[3]), "f");
}

TEST(TimingStateUnitTest, TheLabelIsReadLazilyOnTheWayWithExtrasToo) {
  RecordingObserver observer;
  ManualClock clock;
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(0);
  const int function = 0;
  int calls = 0;
  sm.begin_now(clock, on_unit("FPM", &function, CountingLabel{"main", &calls}));
  sm.begin_now(clock, on_unit("GVNPass", &function, CountingLabel{"WRONG", &calls}));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(observer.events.back(), "before 0 GVNPass main 0");
}

TEST(TimingStateUnitTest, TheSameTextAtAnotherAddressStillMatches) {
  ManualClock clock;
  TimingStateMachine sm;
  sm.enter(0);
  const std::string before_name = "LoopRotatePass";
  const std::string after_name = "LoopRotatePass";
  ASSERT_NE(before_name.data(), after_name.data());
  sm.begin_now(clock, on_unit(before_name, nullptr, [] { return "f"; }));
  sm.end(5, {after_name});
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().name_of(sm.section().records[0]), "LoopRotatePass");
}

TEST(TimingStateUnitTest, AnUnmatchedAfterFollowsTheSeedsRule) {
  LogCapture log;
  ManualClock clock;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin_now(clock, on_unit("outer", nullptr, [] { return ""; }));
  sm.begin_now(clock, on_unit("inner", nullptr, [] { return ""; }));
  sm.end(2, {"outer"});  // expected inner
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_TRUE(sm.running_passes().empty());
  sm.end(3, {"outer"});  // the stack was cleared
  EXPECT_EQ(log.messages(LogLevel::warning),
            (std::vector<std::string>{
                "Ignoring unmatched pass timing callback for outer (expected inner)",
                "Ignoring unmatched pass timing callback for outer (expected <none>)"}));
}

TEST(TimingStateUnitTest, FramesWithoutAStableNameAreComparedByText) {
  // A frame begun without a stable name keeps no address, so an end with no
  // text at all (a null view) must not be taken for the frame's name.
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"A", ""});
  sm.end(1, {std::string_view()});
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Ignoring unmatched pass timing callback for  (expected A)"});
  sm.begin(2, {"B", ""});
  sm.end(3, {"B"});
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 1);
}

TEST(TimingStateUnitTest, TheObserverSeesTheLabelTheFrameTook) {
  RecordingObserver observer;
  ManualClock clock;
  clock.script({7, 8});
  TimingStateMachine sm;
  sm.set_observer(&observer);
  sm.enter(0);
  const int function = 0;
  sm.begin_now(clock, on_unit("FPM", &function, [] { return "main"; }));
  sm.begin_now(clock, on_unit("GVNPass", &function, [] { return "WRONG"; }));
  sm.end(9, {"GVNPass"});
  sm.end(10, {"FPM"});
  EXPECT_EQ(observer.events,
            (std::vector<std::string>{"enter 0 ", "before 7 FPM main 0", "before 8 GVNPass main 0",
                                      "after 9 GVNPass 0", "after 10 FPM 0"}));
  EXPECT_EQ(sm.section().records.size(), 2u);
}

TEST(TimingStateUnitTest, ANewSectionNeverReusesAnIdFromTheLastOne) {
  // Stable names are trusted by address; the ids they were given belong to
  // the section that is handed on, so the next section must intern anew.
  ManualClock clock;
  TimingStateMachine sm;
  static constexpr std::string_view kStable = "InstCombinePass";
  sm.enter(0);
  sm.begin_now(clock, on_unit(kStable, nullptr, [] { return ""; }));
  sm.end(1, {kStable});
  Section first = sm.take_section();
  ASSERT_EQ(first.records.size(), 1u);
  sm.enter(2);
  sm.begin(2, {"SROAPass", ""});  // takes the id InstCombinePass had
  sm.end(3, {"SROAPass"});
  sm.begin_now(clock, on_unit(kStable, nullptr, [] { return ""; }));
  sm.end(4, {kStable});
  const Section& second = sm.section();
  ASSERT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.name_of(second.records[0]), "SROAPass");
  EXPECT_EQ(second.name_of(second.records[1]), "InstCombinePass");
  // The same after enter() alone, which clears the names in place.
  sm.enter(5);
  sm.begin(5, {"GVNPass", ""});
  sm.end(6, {"GVNPass"});
  sm.begin_now(clock, on_unit(kStable, nullptr, [] { return ""; }));
  sm.end(7, {kStable});
  EXPECT_EQ(sm.section().name_of(sm.section().records[1]), "InstCombinePass");
}

TEST(NameCacheStableTest, AnswersByAddressAndForgetsOnClear) {
  NameTable names;
  NameCache cache;
  static constexpr std::string_view kText = "LICMPass";
  const NameId id = cache.intern_stable(names, kText);
  EXPECT_EQ(names[id], "LICMPass");
  EXPECT_EQ(cache.intern_stable(names, kText), id);
  // The same text at another address is found through the table.
  const std::string copy(kText);
  EXPECT_EQ(cache.intern_stable(names, copy), id);
  names.clear();
  cache.clear();
  names.intern("other");
  const NameId again = cache.intern_stable(names, kText);
  EXPECT_EQ(names[again], "LICMPass");
  EXPECT_EQ(names.size(), 3u);
}

}  // namespace
}  // namespace passtiming
