/// Many threads compiling at once into one compile session, as an autotuner
/// does; and the refusal of one timing instrument shared by two threads.
/// Built into the ThreadSanitizer run (scripts/sanitizers.sh).

#include <gtest/gtest.h>

#include <fstream>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host_support.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/recorder.h"

namespace passtiming {
namespace {

using testing::LogCapture;
using testing::named_pass;

constexpr int kThreads = 8;
constexpr int kPassesPerThread = 10'000;

/// Runs `passes` passes named after `thread` in a PassContext of its own,
/// every tenth one with a nested child, so that stacks really nest.
void compile(PassTimingTool& session, int thread, int passes) {
  const std::string name = "thread" + std::to_string(thread);
  auto child = named_pass(name + ".child");
  auto parent = make_module_pass(
      [child](IRModule m, PassContext& ctx) { return (*child)(std::move(m), ctx); },
      PassInfo{name + ".parent", 0, {}});
  auto leaf = named_pass(name);
  PassContext ctx({.instruments = session.instruments_for("thread=" + std::to_string(thread))});
  auto scope = ctx.enter();
  IRModule mod{{"main", "kernel" + std::to_string(thread)}};
  for (int i = 0; i < passes; ++i) mod = (i % 10 == 0 ? *parent : *leaf)(std::move(mod), ctx);
}

TEST(Concurrency, ThreadsCompilingIntoOneSessionKeepEveryRecordInTheirOwnSection) {
  PassTimingTool session(0.0, steady_clock(), Settings{});
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&session, t] { compile(session, t, kPassesPerThread); });
    }
  }
  const Profile profile = session.profile();
  ASSERT_EQ(profile.sections.size(), std::size_t{kThreads});
  std::set<std::string> contexts;
  for (const Section& s : profile.sections) {
    contexts.insert(s.context);
    const std::string thread = "thread" + s.context.substr(s.context.find('=') + 1);
    // 10,000 passes, and one extra child record for every parent.
    ASSERT_EQ(s.records.size(), std::size_t{kPassesPerThread + kPassesPerThread / 10}) << s.context;
    const auto records = pass_timing_records(s);
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto& r = records[i];
      ASSERT_EQ(r.sequence, i);
      ASSERT_TRUE(r.name.starts_with(thread)) << r.name << " in " << s.context;
      ASSERT_EQ(r.kernel, "kernel" + thread.substr(6));
      ASSERT_LE(r.self_duration_s, r.duration_s);
      ASSERT_EQ(r.depth, r.name.ends_with(".child") ? 1 : 0);
    }
  }
  EXPECT_EQ(contexts.size(), std::size_t{kThreads});
  session.finish();
}

TEST(Concurrency, NewSectionIsThreadSafe) {
  PassTimingTool session(0.0, steady_clock(), Settings{});
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&session] {
        for (int i = 0; i < 500; ++i) session.new_section("s");
      });
    }
  }
  EXPECT_EQ(session.session().section_count(), std::size_t{kThreads * 500});
  LogCapture log;
  session.finish();
}

TEST(Concurrency, ThreadsShareTheEventLogWithoutTearingALine) {
  const std::string path = ::testing::TempDir() + "concurrency_events.jsonl";
  {
    PassTimingTool session(0.0, steady_clock(), testing::output_settings("", path));
    LogCapture log;
    {
      std::vector<std::jthread> threads;
      for (int t = 0; t < 4; ++t)
        threads.emplace_back([&session, t] { compile(session, t, 2000); });
    }
    session.finish();
  }
  std::ifstream in(path);
  std::string line;
  int before = 0, after = 0, enter = 0, exit = 0;
  while (std::getline(in, line)) {
    ASSERT_TRUE(line.starts_with("{\"ev\":\"") && line.ends_with("}")) << line;
    before += line.starts_with("{\"ev\":\"before\"");
    after += line.starts_with("{\"ev\":\"after\"");
    enter += line.starts_with("{\"ev\":\"enter_ctx\"");
    exit += line.starts_with("{\"ev\":\"exit_ctx\"");
  }
  EXPECT_EQ(enter, 4);
  EXPECT_EQ(exit, 4);
  EXPECT_EQ(before, 4 * 2200);
  EXPECT_EQ(after, 4 * 2200);
}

/// One instrument in two threads' PassContexts at once is not supported: the
/// second thread is refused with an error and the first thread's records are
/// intact, never interleaved with the second's.
TEST(Concurrency, SharedInstrumentRefusesASecondThreadInsteadOfCorruptingTheFirst) {
  LogCapture log;
  TileLangPassTimingInstrument timing(0.0);
  std::latch first_inside(1), second_done(1);
  std::jthread first([&] {
    PassContext ctx({.instruments = {timing.instrument()}});
    auto scope = ctx.enter();
    IRModule mod;
    mod = (*named_pass("first.a"))(std::move(mod), ctx);
    first_inside.count_down();
    second_done.wait();
    mod = (*named_pass("first.b"))(std::move(mod), ctx);
  });
  std::jthread second([&] {
    first_inside.wait();
    {
      PassContext ctx({.instruments = {timing.instrument()}});
      auto scope = ctx.enter();
      IRModule mod;
      for (int i = 0; i < 100; ++i) mod = (*named_pass("second"))(std::move(mod), ctx);
    }
    second_done.count_down();
  });
  first.join();
  second.join();
  const auto records = timing.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "first.a");
  EXPECT_EQ(records[1].name, "first.b");
  const auto errors = log.messages(LogLevel::error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("second thread"), std::string::npos) << errors[0];
}

TEST(Concurrency, AnInstrumentMayMoveToAnotherThreadBetweenContexts) {
  LogCapture log;
  TileLangPassTimingInstrument timing(0.0);
  for (int round = 0; round < 3; ++round) {
    std::jthread([&] {
      PassContext ctx({.instruments = {timing.instrument()}});
      auto scope = ctx.enter();
      (void)(*named_pass("p"))(IRModule{}, ctx);
    }).join();
  }
  EXPECT_EQ(timing.records().size(), 1u);  // each enter starts afresh
  EXPECT_TRUE(log.messages(LogLevel::error).empty());
}

}  // namespace
}  // namespace passtiming
