// clang's time trace read as phases and code generation's passes: exact
// values from a small trace in clang's layout (ts and dur in microseconds
// from beginningOfTime), whole and cut short.

#include "passtiming/formats/clang_time_trace.h"

#include <gtest/gtest.h>

#include <string>

#include "passtiming/engine/errors.h"

namespace passtiming {
namespace {

std::string event(const std::string& name, int ts, int dur, const std::string& detail = "",
                  int tid = 42) {
  std::string e = "{\"pid\":42,\"tid\":" + std::to_string(tid) +
                  ",\"ph\":\"X\",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
                  ",\"name\":\"" + name + "\"";
  if (!detail.empty()) e += ",\"args\":{\"detail\":\"" + detail + "\"}";
  return e + "}";
}

std::string trace(const std::vector<std::string>& events) {
  std::string t = "{\"traceEvents\":[";
  for (std::size_t i = 0; i < events.size(); ++i) t += (i ? "," : "") + events[i];
  return t + "],\"beginningOfTime\":1000}";
}

/// The events of a whole compile: a front end with one declaration, an
/// optimizer, code generation of one function by two passes.
std::vector<std::string> compile_events() {
  return {event("ExecuteCompiler", 0, 1000),
          event("Frontend", 10, 290),
          event("ParseDeclarationOrFunctionDefinition", 20, 80, "a.c:1:1"),
          event("EvaluateAsInt", 30, 1, "a.c:1:5"),
          event("Backend", 310, 680),
          event("Optimizer", 320, 280),
          event("InstCombinePass", 330, 70, "f"),
          event("CodeGenPasses", 610, 370),
          event("OptModule", 611, 360, "a.c"),
          event("OptFunction", 620, 280, "f"),
          event("RunPass", 630, 70, "ISel"),
          event("RunPass", 700, 100, "RA"),
          event("RunPass", 720, 30, "Liveness"),
          event("Total ExecuteCompiler", 0, 1000, "", 7)};
}

constexpr Nanoseconds kUs = 1000;
constexpr Nanoseconds kBase = 1000 * kUs;  // beginningOfTime, with no offset

TEST(ClangTimeTraceTest, AWholeCompileIsATreeOfPhasesAndCodeGenerationsPasses) {
  const ImportedTimeTrace t =
      import_clang_time_trace(trace(compile_events()), "t.json", {}, "a.c -> a.o");
  ASSERT_EQ(t.phases.size(), 6u);
  const std::vector<std::tuple<std::string, std::string, PhaseIndex, Nanoseconds, Nanoseconds>>
      want = {{"compile", "a.c -> a.o", kNoPhase, 0, 1000},
              {"front end", "", 0, 10, 290},
              {"parse declaration", "a.c:1:1", 1, 20, 80},
              {"back end", "", 0, 310, 680},
              {"optimizer", "", 3, 320, 280},
              {"code generation", "", 3, 610, 370}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& [name, detail, parent, start, dur] = want[i];
    EXPECT_EQ(t.phases[i].name, name) << i;
    EXPECT_EQ(t.phases[i].detail, detail) << i;
    EXPECT_EQ(t.phases[i].parent, parent) << i;
    EXPECT_EQ(t.phases[i].start_ns, kBase + start * kUs) << i;
    EXPECT_EQ(t.phases[i].duration_ns, dur * kUs) << i;
    EXPECT_EQ(t.phases[i].thread, 42u) << i;
    EXPECT_FALSE(t.phases[i].failed()) << i;
  }
  EXPECT_EQ(t.optimizer, 4u);
  EXPECT_EQ(t.pid, 42);
  const Section& s = t.code_generation;
  EXPECT_EQ(s.phase, 5u);
  ASSERT_EQ(s.records.size(), 3u);
  // Completion order: ISel, Liveness (inside RA), RA.
  EXPECT_EQ(s.name_of(s.records[0]), "ISel");
  EXPECT_EQ(s.name_of(s.records[1]), "Liveness");
  EXPECT_EQ(s.name_of(s.records[2]), "RA");
  for (const Record& r : s.records) EXPECT_EQ(s.kernel_of(r), "f");
  EXPECT_EQ(s.records[1].parent, s.records[2].sequence);
  EXPECT_EQ(s.records[1].depth, 1u);
  EXPECT_EQ(s.records[2].inclusive_ns, 100 * kUs);
  EXPECT_EQ(s.records[2].self_ns, 70 * kUs);
  EXPECT_EQ(s.records[0].start_ns, kBase + 630 * kUs);
}

TEST(ClangTimeTraceTest, TheClockOffsetMovesEveryTime) {
  const ImportedTimeTrace t =
      import_clang_time_trace(trace(compile_events()), "t.json", {-kBase + 5});
  EXPECT_EQ(t.phases[0].start_ns, 5);
  EXPECT_EQ(t.code_generation.records[0].start_ns, 630 * kUs + 5);
}

TEST(ClangTimeTraceTest, ACompileCutShortGetsTheScopesItWasInFailed) {
  // Stopped in code generation, at 900 us: the compile, the back end, code
  // generation and the function were still open, so clang wrote none of them.
  const std::vector<std::string> events = {event("Frontend", 10, 290), event("Optimizer", 320, 280),
                                           event("InstCombinePass", 330, 70, "f"),
                                           event("RunPass", 630, 70, "ISel")};
  const ImportedTimeTrace t =
      import_clang_time_trace(trace(events), "t.json", {}, "a.c", false, kBase + 900 * kUs);
  ASSERT_EQ(t.phases.size(), 5u);
  const std::vector<std::tuple<std::string, PhaseIndex, Nanoseconds, Nanoseconds, bool>> want = {
      {"compile", kNoPhase, 10, 890, true},
      {"front end", 0, 10, 290, false},
      {"back end", 0, 300, 600, true},
      {"optimizer", 2, 320, 280, false},
      {"code generation", 2, 600, 300, true}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& [name, parent, start, dur, failed] = want[i];
    EXPECT_EQ(t.phases[i].name, name) << i;
    EXPECT_EQ(t.phases[i].parent, parent) << i;
    EXPECT_EQ(t.phases[i].start_ns, kBase + start * kUs) << i;
    EXPECT_EQ(t.phases[i].duration_ns, dur * kUs) << i;
    EXPECT_EQ(t.phases[i].failed(), failed) << i;
  }
  EXPECT_EQ(t.code_generation.phase, 4u);
  ASSERT_EQ(t.code_generation.records.size(), 1u);
}

TEST(ClangTimeTraceTest, ACompileCutShortInTheOptimizerFailsTheOptimizer) {
  const std::vector<std::string> events = {event("Frontend", 10, 290),
                                           event("InstCombinePass", 330, 70, "f")};
  const ImportedTimeTrace t =
      import_clang_time_trace(trace(events), "t.json", {}, "", false, kBase + 500 * kUs);
  ASSERT_EQ(t.phases.size(), 4u);
  EXPECT_EQ(t.phases[2].name, "back end");
  EXPECT_EQ(t.phases[3].name, "optimizer");
  EXPECT_TRUE(t.phases[3].failed());
  EXPECT_EQ(t.phases[3].start_ns, kBase + 300 * kUs);
  EXPECT_EQ(t.phases[3].duration_ns, 200 * kUs);
}

TEST(ClangTimeTraceTest, NotATraceIsAnErrorNamingTheInput) {
  EXPECT_THROW(import_clang_time_trace("{\"a\":1}", "x.json", {}), InputError);
  try {
    import_clang_time_trace("{", "x.json", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("x.json:1: not a time trace", 0), 0u) << e.what();
  }
  EXPECT_EQ(time_trace_pid("{\"traceEvents\":[{\"pid\":1234,\"tid\":1"), 1234);
  EXPECT_EQ(time_trace_pid("{\"traceEvents\":["), -1);
}

}  // namespace
}  // namespace passtiming
