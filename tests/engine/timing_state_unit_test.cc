// The state machine's way for sources that know each pass's IR unit and whose
// pass names never move (LLVM): before_now_on_unit() and after_stable_name().
// They must give exactly the records before_now() and after() give, and differ
// only in what they read.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passtiming/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::LogCapture;

/// A label function that counts its calls.
struct CountingLabel {
  std::string text;
  int* calls;
  std::string_view operator()() const {
    ++*calls;
    return text;
  }
};

TEST(TimingStateUnitTest, APassOnTheUnitOfThePassAroundItTakesItsLabelWithoutLookingItUp) {
  ManualClock clock;
  clock.script({10, 20, 30, 40});
  TimingStateMachine sm;
  sm.enter(0);
  const int module = 0;
  const int function = 0;
  int calls = 0;
  sm.before_now_on_unit(clock, "ModuleToFunctionPassAdaptor", &module,
                        CountingLabel{"m.c", &calls});
  sm.before_now_on_unit(clock, "PassManager<Function>", &function, CountingLabel{"main", &calls});
  // Same unit as the frame below: its label, and the function is not called.
  sm.before_now_on_unit(clock, "InstCombinePass", &function, CountingLabel{"WRONG", &calls});
  EXPECT_EQ(calls, 2);
  sm.after_stable_name(35, "InstCombinePass");
  // A sibling on the same unit finds the manager below it again.
  sm.before_now_on_unit(clock, "SROAPass", &function, CountingLabel{"WRONG", &calls});
  EXPECT_EQ(calls, 2);
  sm.after_stable_name(45, "SROAPass");
  sm.after_stable_name(50, "PassManager<Function>");
  sm.after_stable_name(60, "ModuleToFunctionPassAdaptor");
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
  sm.before_now_on_unit(clock, "outer", &first, CountingLabel{"f", &calls});
  sm.before_now_on_unit(clock, "inner", &second, CountingLabel{"g", &calls});
  sm.before_now_on_unit(clock, "scc", nullptr, CountingLabel{"h +1 more", &calls});
  sm.before_now_on_unit(clock, "scc pass", nullptr, CountingLabel{"h", &calls});
  EXPECT_EQ(calls, 4);
  sm.after_stable_name(1, "scc pass");
  sm.after_stable_name(2, "scc");
  sm.after_stable_name(3, "inner");
  sm.after_stable_name(4, "outer");
  const Section& s = sm.section();
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_EQ(s.kernel_of(s.records[0]), "h");
  EXPECT_EQ(s.kernel_of(s.records[1]), "h +1 more");
  EXPECT_EQ(s.kernel_of(s.records[2]), "g");
  EXPECT_EQ(s.kernel_of(s.records[3]), "f");
}

TEST(TimingStateUnitTest, TheSameTextAtAnotherAddressStillMatches) {
  ManualClock clock;
  TimingStateMachine sm;
  sm.enter(0);
  const std::string before_name = "LoopRotatePass";
  const std::string after_name = "LoopRotatePass";
  ASSERT_NE(before_name.data(), after_name.data());
  sm.before_now_on_unit(clock, before_name, nullptr, [] { return "f"; });
  sm.after_stable_name(5, after_name);
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().name_of(sm.section().records[0]), "LoopRotatePass");
}

TEST(TimingStateUnitTest, AnUnmatchedAfterFollowsTheSeedsRule) {
  LogCapture log;
  ManualClock clock;
  TimingStateMachine sm;
  sm.enter(0);
  sm.before_now_on_unit(clock, "outer", nullptr, [] { return ""; });
  sm.before_now_on_unit(clock, "inner", nullptr, [] { return ""; });
  sm.after_stable_name(2, "outer");  // expected inner
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_TRUE(sm.running_passes().empty());
  sm.after_stable_name(3, "outer");  // the stack was cleared
  EXPECT_EQ(log.messages(LogLevel::warning),
            (std::vector<std::string>{
                "Ignoring unmatched pass timing callback for outer (expected inner)",
                "Ignoring unmatched pass timing callback for outer (expected <none>)"}));
}

TEST(TimingStateUnitTest, FramesPushedTheOtherWayAreComparedByText) {
  // before() keeps no address, so an after with no text at all (a null
  // view) must not be taken for the frame's name.
  LogCapture log;
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "A", "");
  sm.after_stable_name(1, std::string_view());
  EXPECT_TRUE(sm.section().records.empty());
  EXPECT_EQ(log.messages(LogLevel::warning),
            std::vector<std::string>{"Ignoring unmatched pass timing callback for  (expected A)"});
  sm.before(2, "B", "");
  sm.after_stable_name(3, "B");
  ASSERT_EQ(sm.section().records.size(), 1u);
  EXPECT_EQ(sm.section().records[0].inclusive_ns, 1);
}

TEST(TimingStateUnitTest, TheObserverSeesTheLabelTheFrameTook) {
  struct Events final : EventObserver {
    std::vector<std::string> lines;
    void on_enter(Nanoseconds, std::string_view) noexcept override {}
    void on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                   ThreadKey) noexcept override {
      lines.push_back("before " + std::to_string(t) + " " + std::string(pass) + " " +
                      std::string(kernel));
    }
    void on_after(Nanoseconds t, std::string_view pass, ThreadKey) noexcept override {
      lines.push_back("after " + std::to_string(t) + " " + std::string(pass));
    }
    void on_skip(Nanoseconds, std::string_view, std::string_view, ThreadKey) noexcept override {}
    void on_exit(Nanoseconds) noexcept override {}
  } events;
  ManualClock clock;
  clock.script({7, 8});
  TimingStateMachine sm;
  sm.set_observer(&events);
  sm.enter(0);
  const int function = 0;
  sm.before_now_on_unit(clock, "FPM", &function, [] { return "main"; });
  sm.before_now_on_unit(clock, "GVNPass", &function, [] { return "WRONG"; });
  sm.after_stable_name(9, "GVNPass");
  sm.after_stable_name(10, "FPM");
  EXPECT_EQ(events.lines, (std::vector<std::string>{"before 7 FPM main", "before 8 GVNPass main",
                                                    "after 9 GVNPass", "after 10 FPM"}));
  EXPECT_EQ(sm.section().records.size(), 2u);
}

TEST(TimingStateUnitTest, ANewSectionNeverReusesAnIdFromTheLastOne) {
  // Stable names are trusted by address; the ids they were given belong to
  // the section that is handed on, so the next section must intern anew.
  ManualClock clock;
  TimingStateMachine sm;
  static constexpr std::string_view kStable = "InstCombinePass";
  sm.enter(0);
  sm.before_now_on_unit(clock, kStable, nullptr, [] { return ""; });
  sm.after_stable_name(1, kStable);
  Section first = sm.take_section();
  ASSERT_EQ(first.records.size(), 1u);
  sm.enter(2);
  sm.before(2, "SROAPass", "");  // takes the id InstCombinePass had
  sm.after(3, "SROAPass");
  sm.before_now_on_unit(clock, kStable, nullptr, [] { return ""; });
  sm.after_stable_name(4, kStable);
  const Section& second = sm.section();
  ASSERT_EQ(second.records.size(), 2u);
  EXPECT_EQ(second.name_of(second.records[0]), "SROAPass");
  EXPECT_EQ(second.name_of(second.records[1]), "InstCombinePass");
  // The same after enter() alone, which clears the names in place.
  sm.enter(5);
  sm.before(5, "GVNPass", "");
  sm.after(6, "GVNPass");
  sm.before_now_on_unit(clock, kStable, nullptr, [] { return ""; });
  sm.after_stable_name(7, kStable);
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
