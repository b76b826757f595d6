/// The progress bar of the commands that read many inputs: drawn only on a
/// terminal, only after a second, at most every 100 ms (and at the end), and
/// cleared when it goes away. The clock is injected, so the text is exact.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

using std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

/// A clock that returns `now`, moved by the test.
struct TestClock {
  TimePoint now{};
  InputProgress::Clock clock() {
    return [this] { return now; };
  }
};

/// What was written to a temporary file, from its start.
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

std::string bar(std::size_t done, std::size_t total) {
  const std::size_t filled = done * 30 / total;
  return "\r[" + std::string(filled, '#') + std::string(30 - filled, ' ') + "] " +
         std::to_string(done) + "/" + std::to_string(total) + " inputs";
}

TEST(InputProgressTest, NothingWhenNotATerminal) {
  std::FILE* out = std::tmpfile();
  TestClock t;
  {
    InputProgress progress(3, out, /*terminal=*/false, t.clock());
    for (int i = 0; i < 3; ++i) {
      t.now += milliseconds(2000);
      progress.step();
    }
  }
  EXPECT_EQ(contents(out), "");
  std::fclose(out);
}

TEST(InputProgressTest, NothingWhenTheWorkTakesUnderASecond) {
  std::FILE* out = std::tmpfile();
  TestClock t;
  {
    InputProgress progress(3, out, /*terminal=*/true, t.clock());
    for (int i = 0; i < 3; ++i) {
      t.now += milliseconds(300);
      progress.step();
    }
  }
  EXPECT_EQ(contents(out), "");
  std::fclose(out);
}

TEST(InputProgressTest, DrawsAfterASecondAtMostEveryTenthAndClears) {
  std::FILE* out = std::tmpfile();
  TestClock t;
  {
    InputProgress progress(10, out, /*terminal=*/true, t.clock());
    t.now += milliseconds(500);
    progress.step();  // 1: before the first second
    t.now += milliseconds(700);
    progress.step();  // 2 at 1.2 s: drawn
    t.now += milliseconds(50);
    progress.step();  // 3 at 1.25 s: too soon after the last
    t.now += milliseconds(150);
    progress.step();  // 4 at 1.4 s: drawn
    for (int i = 5; i <= 10; ++i) {
      t.now += milliseconds(1);
      progress.step();  // 5..9 too soon; 10 is the last: drawn
    }
    EXPECT_EQ(contents(out), bar(2, 10) + bar(4, 10) + bar(10, 10));
  }
  EXPECT_EQ(contents(out), bar(2, 10) + bar(4, 10) + bar(10, 10) + "\r\033[K");
  std::fclose(out);
}

}  // namespace
}  // namespace passtiming::cli
