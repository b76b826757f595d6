// passtiming::llvm::TimingInstrument on LLVM's own PassBuilder, pass managers
// and adaptors, with an injected ManualClock so every duration is exact.

#include <gtest/gtest.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>

#include <map>
#include <memory>
#include <string>

#include "passtiming/llvm.h"

namespace passtiming::llvm {
namespace {

using ::llvm::Any;
using ::llvm::PreservedAnalyses;
using ::llvm::StringRef;

constexpr const char* kModuleText = R"(
define i1 @even(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %yes, label %rec
yes:
  ret i1 true
rec:
  %m = sub i32 %n, 1
  %r = call i1 @odd(i32 %m)
  ret i1 %r
}
define i1 @odd(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %no, label %rec
no:
  ret i1 false
rec:
  %m = sub i32 %n, 1
  %r = call i1 @even(i32 %m)
  ret i1 %r
}
define i32 @use(i32 %n) {
entry:
  %e = call i1 @even(i32 %n)
  %r = zext i1 %e to i32
  ret i32 %r
}
)";

/// A function pass that takes exactly `ticks` ns on the manual clock, and
/// optionally asks for the dominator tree.
struct TickPass : ::llvm::PassInfoMixin<TickPass> {
  static StringRef name() { return "TickPass"; }
  ManualClock* clock;
  Nanoseconds ticks;
  bool wants_domtree = false;
  PreservedAnalyses run(::llvm::Function& f, ::llvm::FunctionAnalysisManager& fam) {
    clock->advance(ticks);
    if (wants_domtree) fam.getResult<::llvm::DominatorTreeAnalysis>(f);
    return PreservedAnalyses::all();
  }
};

/// A CGSCC pass, to see the SCC label.
struct SccTickPass : ::llvm::PassInfoMixin<SccTickPass> {
  static StringRef name() { return "SccTickPass"; }
  ManualClock* clock;
  PreservedAnalyses run(::llvm::LazyCallGraph::SCC&, ::llvm::CGSCCAnalysisManager&,
                        ::llvm::LazyCallGraph&, ::llvm::CGSCCUpdateResult&) {
    clock->advance(3);
    return PreservedAnalyses::all();
  }
};

/// LLVM's pipeline machinery around one module, as a compiler sets it up.
class Pipeline {
 public:
  Pipeline() {
    ::llvm::SMDiagnostic error;
    module = ::llvm::parseAssemblyString(kModuleText, error, context);
    module->setModuleIdentifier("test-module");
  }
  void run(::llvm::ModulePassManager& mpm) {
    ::llvm::PassBuilder builder(nullptr, ::llvm::PipelineTuningOptions(), std::nullopt, &pic);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    mpm.run(*module, mam);
  }

  ::llvm::LLVMContext context;
  std::unique_ptr<::llvm::Module> module;
  ::llvm::PassInstrumentationCallbacks pic;
  ::llvm::LoopAnalysisManager lam;
  ::llvm::FunctionAnalysisManager fam;
  ::llvm::CGSCCAnalysisManager cgam;
  ::llvm::ModuleAnalysisManager mam;
};

std::string display(const Section& s, const Record& r) {
  std::string text(s.name_of(r));
  if (!s.kernel_of(r).empty()) text += "(" + std::string(s.kernel_of(r)) + ")";
  return text;
}

/// Records by "Name(kernel)"; the test modules run each pass once per unit.
std::map<std::string, Record> by_display(const Section& s) {
  std::map<std::string, Record> out;
  for (const Record& r : s.records) out[display(s, r)] = r;
  return out;
}

/// A deliberately slow instrument: one second per callback, on the same clock.
void register_slow_instrument(::llvm::PassInstrumentationCallbacks& pic, ManualClock& clock) {
  pic.registerBeforeNonSkippedPassCallback(
      [&clock](StringRef, Any) { clock.advance(1'000'000'000); });
  pic.registerAfterPassCallback(
      [&clock](StringRef, Any, const PreservedAnalyses&) { clock.advance(1'000'000'000); });
}

::llvm::ModulePassManager function_pipeline(ManualClock& clock, bool wants_domtree = false) {
  ::llvm::FunctionPassManager fpm;
  fpm.addPass(TickPass{{}, &clock, 5, wants_domtree});
  ::llvm::ModulePassManager mpm;
  mpm.addPass(::llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  return mpm;
}

TEST(TimingInstrument, RecordsManagersAdaptorsAndPassesWithDepthAndLabels) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);

  const Section& s = timing.section();
  ASSERT_EQ(s.records.size(), 7u);  // adaptor + 3 x (manager + pass)
  auto records = by_display(s);
  const Record& adaptor = records.at("ModuleToFunctionPassAdaptor(test-module)");
  EXPECT_EQ(adaptor.depth, 0);
  EXPECT_EQ(adaptor.inclusive_ns, 15);
  EXPECT_EQ(adaptor.self_ns, 0);
  for (const char* f : {"even", "odd", "use"}) {
    const Record& manager = records.at("PassManager<Function>(" + std::string(f) + ")");
    const Record& pass = records.at("TickPass(" + std::string(f) + ")");
    EXPECT_EQ(manager.depth, 1);
    EXPECT_EQ(manager.parent, adaptor.sequence);
    EXPECT_EQ(pass.depth, 2);
    EXPECT_EQ(pass.parent, manager.sequence);
    EXPECT_EQ(pass.inclusive_ns, 5);
    EXPECT_EQ(manager.self_ns, 0);
  }
}

TEST(TimingInstrument, SlowInstrumentRegisteredEarlierStaysOutsideThePass) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  register_slow_instrument(p.pic, *clock);  // like -ftime-report: registered first
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);

  auto records = by_display(timing.section());
  // The pass's own time, exactly: the slow callbacks ran before our clock
  // read and after it.
  EXPECT_EQ(records.at("TickPass(even)").inclusive_ns, 5);
  // Its parent sees them (they run inside the parent): two seconds per pass.
  EXPECT_EQ(records.at("PassManager<Function>(even)").self_ns, 2'000'000'000);
}

TEST(TimingInstrument, SlowInstrumentRegisteredLaterWouldBeInside) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  register_slow_instrument(p.pic, *clock);  // registered after: its before runs inside
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);
  // Our after-callbacks are in front, so only the later before-callback counts.
  EXPECT_EQ(by_display(timing.section()).at("TickPass(even)").inclusive_ns, 1'000'000'005);
}

TEST(TimingInstrument, SccLabelIsFirstFunctionPlusMore) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm;
  mpm.addPass(::llvm::createModuleToPostOrderCGSCCPassAdaptor(SccTickPass{{}, clock.get()}));
  p.run(mpm);
  auto records = by_display(timing.section());
  EXPECT_EQ(records.at("SccTickPass(even +1 more)").inclusive_ns, 3);
  EXPECT_EQ(records.at("SccTickPass(use)").inclusive_ns, 3);
  EXPECT_EQ(records.at("ModuleToPostOrderCGSCCPassAdaptor(test-module)").depth, 0);
}

TEST(TimingInstrument, SkippedPassesAreCountedNotRecorded) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  p.pic.registerShouldRunOptionalPassCallback(
      [](StringRef pass, Any) { return pass != "TickPass"; });
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);
  EXPECT_EQ(timing.section().skipped, 3u);
  EXPECT_EQ(by_display(timing.section()).count("TickPass(even)"), 0u);
}

TEST(TimingInstrument, AnalysesNestUnderThePassThatAskedWhenEnabled) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  InstrumentOptions options;
  options.record_analyses = true;
  TimingInstrument timing(options, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock, /*wants_domtree=*/true);
  p.run(mpm);
  auto records = by_display(timing.section());
  const Record& pass = records.at("TickPass(even)");
  const Record& analysis = records.at("DominatorTreeAnalysis(even)");
  EXPECT_EQ(analysis.parent, pass.sequence);
  EXPECT_EQ(analysis.depth, pass.depth + 1);
}

TEST(TimingInstrument, AnalysesAreNotRecordedByDefault) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock, /*wants_domtree=*/true);
  p.run(mpm);
  EXPECT_EQ(by_display(timing.section()).count("DominatorTreeAnalysis(even)"), 0u);
}

TEST(TimingInstrument, AfterPassInvalidatedClosesTheFrame) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("odd");
  ASSERT_TRUE(instrumentation.runBeforePass<::llvm::Function>(pass, f));
  clock->advance(7);
  instrumentation.runAfterPassInvalidated<::llvm::Function>(pass, PreservedAnalyses::none());
  auto records = by_display(timing.section());
  ASSERT_EQ(timing.section().records.size(), 1u);
  EXPECT_EQ(records.at("TickPass(odd)").inclusive_ns, 7);
}

TEST(TimingInstrument, FinishDiscardsRunningFramesAndKeepsRecords) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  InstrumentOptions options;
  options.context = "tu=test";
  TimingInstrument timing(options, clock);
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("use");
  instrumentation.runBeforePass<::llvm::Function>(pass, f);
  clock->advance(2);
  instrumentation.runAfterPass<::llvm::Function>(pass, f, PreservedAnalyses::all());
  instrumentation.runBeforePass<::llvm::Module>(pass, *p.module);  // never finishes
  Section s = timing.finish();
  EXPECT_EQ(s.context, "tu=test");
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].inclusive_ns, 2);
  EXPECT_TRUE(timing.section().records.empty());
}

TEST(TimingInstrument, ReportIsTheSeedFormat) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  TimingInstrument timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  instrumentation.runBeforePass<::llvm::Function>(pass, *p.module->getFunction("use"));
  clock->advance(2'000'000'000);
  instrumentation.runAfterPass<::llvm::Function>(pass, *p.module->getFunction("use"),
                                                 PreservedAnalyses::all());
  const std::string rule(96, '=');
  const std::string dash(96, '-');
  EXPECT_EQ(
      timing.report(0.0),
      rule + "\nTileLang Pass Timing Report\n" + rule + "\nTotal: 2.0000s (1 passes)\n" + dash +
          "\n  #  Pass Name                                    Inclusive       Self   Incl %  "
          "Self %\n" +
          dash +
          "\n  1  TickPass(use)                                  2.0000s    2.0000s  100.0%  "
          "100.0%\n" +
          dash +
          "\nTop 1 Slowest Passes by Inclusive Time:\n"
          "   1. TickPass(use)                                    2.0000s 100.0%\n" +
          rule);
}

}  // namespace
}  // namespace passtiming::llvm
