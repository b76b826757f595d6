#include "passtiming/engine/clock.h"

#include <gtest/gtest.h>

namespace passtiming {
namespace {

TEST(ClockTest, SteadyClockIsMonotonic) {
  auto clock = steady_clock();
  Nanoseconds a = clock->now_ns();
  Nanoseconds b = clock->now_ns();
  EXPECT_LE(a, b);
  EXPECT_EQ(clock, steady_clock());
}

TEST(ClockTest, ManualClockPlaysItsScriptThenHolds) {
  ManualClock clock(7);
  EXPECT_EQ(clock.now_ns(), 7);
  clock.script({1, 2});
  clock.script_seconds({1.5});
  EXPECT_EQ(clock.now_ns(), 1);
  EXPECT_EQ(clock.now_ns(), 2);
  EXPECT_EQ(clock.now_ns(), 1'500'000'000);
  EXPECT_EQ(clock.now_ns(), 1'500'000'000);
  clock.advance(5);
  EXPECT_EQ(clock.now_ns(), 1'500'000'005);
  clock.set(3);
  EXPECT_EQ(clock.now_ns(), 3);
  EXPECT_EQ(clock.reads(), 7u);
}

}  // namespace
}  // namespace passtiming
