// passtiming::llvm::PassTiming on LLVM's own PassBuilder, pass managers
// and adaptors, with an injected ManualClock so every duration is exact.

#include <gtest/gtest.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>

#include <map>
#include <memory>
#include <string>

#include "passtiming/engine/metric_sampler.h"
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

/// A function pass that adds one instruction (`add i32 0, 0`, unused) at
/// the top of the function's entry block, and says so.
struct GrowPass : ::llvm::PassInfoMixin<GrowPass> {
  static StringRef name() { return "GrowPass"; }
  PreservedAnalyses run(::llvm::Function& f, ::llvm::FunctionAnalysisManager&) {
    ::llvm::Type* i32 = ::llvm::Type::getInt32Ty(f.getContext());
    ::llvm::Constant* zero = ::llvm::ConstantInt::get(i32, 0);
    ::llvm::BinaryOperator::Create(::llvm::Instruction::Add, zero, zero, "grown",
                                   f.getEntryBlock().getFirstInsertionPt());
    return PreservedAnalyses::none();
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

TEST(PassTiming, RecordsManagersAdaptorsAndPassesWithDepthAndLabels) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);

  const Section& s = timing.recorder().section();
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

TEST(PassTiming, SlowInstrumentRegisteredEarlierStaysOutsideThePass) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  register_slow_instrument(p.pic, *clock);  // like -ftime-report: registered first
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);

  auto records = by_display(timing.recorder().section());
  // The pass's own time, exactly: the slow callbacks ran before our clock
  // read and after it.
  EXPECT_EQ(records.at("TickPass(even)").inclusive_ns, 5);
  // Its parent sees them (they run inside the parent): two seconds per pass.
  EXPECT_EQ(records.at("PassManager<Function>(even)").self_ns, 2'000'000'000);
}

TEST(PassTiming, SlowInstrumentRegisteredLaterWouldBeInside) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  register_slow_instrument(p.pic, *clock);  // registered after: its before runs inside
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);
  // Our after-callbacks are in front, so only the later before-callback counts.
  EXPECT_EQ(by_display(timing.recorder().section()).at("TickPass(even)").inclusive_ns,
            1'000'000'005);
}

TEST(PassTiming, SccLabelIsFirstFunctionPlusMore) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm;
  mpm.addPass(::llvm::createModuleToPostOrderCGSCCPassAdaptor(SccTickPass{{}, clock.get()}));
  p.run(mpm);
  auto records = by_display(timing.recorder().section());
  EXPECT_EQ(records.at("SccTickPass(even +1 more)").inclusive_ns, 3);
  EXPECT_EQ(records.at("SccTickPass(use)").inclusive_ns, 3);
  EXPECT_EQ(records.at("ModuleToPostOrderCGSCCPassAdaptor(test-module)").depth, 0);
}

TEST(PassTiming, SkippedPassesAreCountedNotRecorded) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  p.pic.registerShouldRunOptionalPassCallback(
      [](StringRef pass, Any) { return pass != "TickPass"; });
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);
  EXPECT_EQ(timing.recorder().section().skipped, 3u);
  EXPECT_EQ(by_display(timing.recorder().section()).count("TickPass(even)"), 0u);
}

TEST(PassTiming, AnalysesNestUnderThePassThatAskedWhenEnabled) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  Settings options;
  options.record_analyses = true;
  PassTiming timing(options, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock, /*wants_domtree=*/true);
  p.run(mpm);
  auto records = by_display(timing.recorder().section());
  const Record& pass = records.at("TickPass(even)");
  const Record& analysis = records.at("DominatorTreeAnalysis(even)");
  EXPECT_EQ(analysis.parent, pass.sequence);
  EXPECT_EQ(analysis.depth, pass.depth + 1);
}

TEST(PassTiming, AnalysesAreNotRecordedByDefault) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock, /*wants_domtree=*/true);
  p.run(mpm);
  EXPECT_EQ(by_display(timing.recorder().section()).count("DominatorTreeAnalysis(even)"), 0u);
}

TEST(PassTiming, AfterPassInvalidatedClosesTheFrame) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("odd");
  ASSERT_TRUE(instrumentation.runBeforePass<::llvm::Function>(pass, f));
  clock->advance(7);
  instrumentation.runAfterPassInvalidated<::llvm::Function>(pass, PreservedAnalyses::none());
  auto records = by_display(timing.recorder().section());
  ASSERT_EQ(timing.recorder().section().records.size(), 1u);
  EXPECT_EQ(records.at("TickPass(odd)").inclusive_ns, 7);
}

MetricSet ir_only() {
  MetricSet set;
  set.insert(Metric::ir);
  return set;
}

// kModuleText: @even and @odd have 6 instructions each, @use 3.
TEST(TimingInstrumentMetrics, IrSizesAreInstructionsOfTheUnitAndFlagsWhatThePassReturned) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  Settings options;
  options.metrics = ir_only();
  PassTiming timing(
      std::make_shared<Recorder>(options, clock, std::make_shared<ManualMetricSampler>()));
  EXPECT_EQ(timing.recorder().metrics().recorded, ir_only());
  timing.register_callbacks(p.pic);
  ::llvm::FunctionPassManager fpm;
  fpm.addPass(TickPass{{}, clock.get(), 1});
  fpm.addPass(GrowPass{});
  ::llvm::ModulePassManager mpm;
  mpm.addPass(::llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  p.run(mpm);

  const Section& s = timing.recorder().section();
  ASSERT_EQ(s.metrics.size(), s.records.size());
  std::map<std::string, RecordMetrics> metrics;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    metrics[display(s, s.records[i])] = s.metrics[i];
  }
  constexpr std::uint8_t kUnchanged = kIrChangeKnown | kIrPreservedKnown | kIrPreservedAll;
  constexpr std::uint8_t kChanged = kIrChangeKnown | kIrChanged | kIrPreservedKnown;
  const RecordMetrics tick = metrics.at("TickPass(even)");
  EXPECT_EQ(tick.ir_before, 6);
  EXPECT_EQ(tick.ir_after, 6);
  EXPECT_EQ(tick.ir_flags, kUnchanged);
  const RecordMetrics grow = metrics.at("GrowPass(use)");
  EXPECT_EQ(grow.ir_before, 3);
  EXPECT_EQ(grow.ir_after, 4);
  EXPECT_EQ(grow.ir_flags, kChanged);
  // The manager returns what its passes preserved in common.
  EXPECT_EQ(metrics.at("PassManager<Function>(odd)").ir_before, 6);
  EXPECT_EQ(metrics.at("PassManager<Function>(odd)").ir_after, 7);
  EXPECT_EQ(metrics.at("PassManager<Function>(odd)").ir_flags, kChanged);
  // A module pass counts every function's instructions.
  const RecordMetrics adaptor = metrics.at("ModuleToFunctionPassAdaptor(test-module)");
  EXPECT_EQ(adaptor.ir_before, 15);
  EXPECT_EQ(adaptor.ir_after, 18);
  EXPECT_EQ(adaptor.ir_flags, kChanged);
  // Only `ir` was asked for.
  EXPECT_EQ(tick.cpu_ns, kNotMeasured);
  EXPECT_EQ(tick.rss_start_bytes, kNotMeasured);
}

TEST(TimingInstrumentMetrics, AnSccCountsItsFunctions) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  Settings options;
  options.metrics = ir_only();
  PassTiming timing(
      std::make_shared<Recorder>(options, clock, std::make_shared<ManualMetricSampler>()));
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm;
  mpm.addPass(::llvm::createModuleToPostOrderCGSCCPassAdaptor(SccTickPass{{}, clock.get()}));
  p.run(mpm);
  const Section& s = timing.recorder().section();
  ASSERT_EQ(s.metrics.size(), s.records.size());
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> sizes;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    sizes[display(s, s.records[i])] = {s.metrics[i].ir_before, s.metrics[i].ir_after};
  }
  EXPECT_EQ(sizes.at("SccTickPass(even +1 more)"),
            std::make_pair(std::int64_t{12}, std::int64_t{12}));
  EXPECT_EQ(sizes.at("SccTickPass(use)"), std::make_pair(std::int64_t{3}, std::int64_t{3}));
}

TEST(TimingInstrumentMetrics, AnInvalidatedUnitIsNotCountedAfterThePass) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  Settings options;
  options.metrics = ir_only();
  PassTiming timing(
      std::make_shared<Recorder>(options, clock, std::make_shared<ManualMetricSampler>()));
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("odd");
  ASSERT_TRUE(instrumentation.runBeforePass<::llvm::Function>(pass, f));
  // What a pass that deletes its function leaves the after-callback with.
  f.eraseFromParent();
  instrumentation.runAfterPassInvalidated<::llvm::Function>(pass, PreservedAnalyses::none());
  const Section& s = timing.recorder().section();
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_EQ(s.metrics[0].ir_before, 6);
  EXPECT_EQ(s.metrics[0].ir_after, kNotMeasured);
  EXPECT_EQ(s.metrics[0].ir_flags, kIrChangeKnown | kIrChanged | kIrPreservedKnown);
}

TEST(TimingInstrumentMetrics, CpuFromTheSamplerIsReadAtBothEnds) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  auto sampler = std::make_shared<ManualMetricSampler>();
  Settings options;
  options.metrics.insert(Metric::cpu);
  options.metrics.insert(Metric::ir);
  PassTiming timing(std::make_shared<Recorder>(options, clock, sampler));
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("use");
  sampler->set(MetricSample{1000});
  instrumentation.runBeforePass<::llvm::Function>(pass, f);
  sampler->set(MetricSample{1700});
  instrumentation.runAfterPass<::llvm::Function>(pass, f, PreservedAnalyses::all());
  const Section& s = timing.recorder().section();
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_EQ(s.metrics[0].cpu_ns, 700);
  EXPECT_EQ(s.metrics[0].cpu_self_ns, 700);
  EXPECT_EQ(s.metrics[0].ir_before, 3);
  EXPECT_EQ(s.metrics[0].ir_after, 3);
}

TEST(TimingInstrumentMetrics, WithoutMetricsTheRecordsCarryNone) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
  EXPECT_TRUE(timing.recorder().metrics().empty());
  timing.register_callbacks(p.pic);
  ::llvm::ModulePassManager mpm = function_pipeline(*clock);
  p.run(mpm);
  EXPECT_EQ(timing.recorder().section().records.size(), 7u);
  EXPECT_TRUE(timing.recorder().section().metrics.empty());
}

TEST(PassTiming, FinishDiscardsRunningFramesKeepsRecordsAndIgnoresLaterCallbacks) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  Settings options;
  options.context = "tu=test";
  PassTiming timing(options, clock);
  timing.register_callbacks(p.pic);
  ::llvm::PassInstrumentation instrumentation(&p.pic);
  TickPass pass{{}, clock.get(), 0};
  ::llvm::Function& f = *p.module->getFunction("use");
  instrumentation.runBeforePass<::llvm::Function>(pass, f);
  clock->advance(2);
  instrumentation.runAfterPass<::llvm::Function>(pass, f, PreservedAnalyses::all());
  instrumentation.runBeforePass<::llvm::Module>(pass, *p.module);  // never finishes
  const Section& s = timing.finish();
  EXPECT_EQ(s.context, "tu=test");
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].inclusive_ns, 2);
  // Callbacks after finish() are ignored: the section stays as it was.
  instrumentation.runBeforePass<::llvm::Function>(pass, f);
  instrumentation.runAfterPass<::llvm::Function>(pass, f, PreservedAnalyses::all());
  EXPECT_EQ(timing.recorder().section().records.size(), 1u);
  EXPECT_FALSE(timing.stopped());
}

/// The seed's format, under the neutral title of a compiler other than
/// TileLang's, with the top passes ranked by self time.
TEST(PassTiming, ReportIsTheSeedFormatWithANeutralTitle) {
  auto clock = std::make_shared<ManualClock>();
  Pipeline p;
  PassTiming timing({}, clock);
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
      timing.recorder().report(),
      rule + "\nPass Timing Report\n" + rule + "\nTotal: 2.0000s (1 passes)\n" + dash +
          "\n  #  Pass Name                                    Inclusive       Self   Incl %  "
          "Self %\n" +
          dash +
          "\n  1  TickPass(use)                                  2.0000s    2.0000s  100.0%  "
          "100.0%\n" +
          dash +
          "\nTop 1 Slowest Passes by Self Time:\n"
          "   1. TickPass(use)                                    2.0000s 100.0%\n" +
          rule);
}

}  // namespace
}  // namespace passtiming::llvm
