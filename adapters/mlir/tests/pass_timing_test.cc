// The instrumentation on a real mlir::PassManager: record structure with and
// without threads, exact times with a ManualClock, and failing passes.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "passtiming/formats/report.h"
#include "passtiming/mlir.h"

namespace passtiming::mlir {
namespace {

constexpr std::string_view kAdaptor = "Pipeline Collection : ['func.func']";
constexpr std::string_view kPipeline = "'func.func' Pipeline";

/// A func.func pass that fails on the function named "bad".
struct FailOnBadFunction
    : public ::mlir::PassWrapper<FailOnBadFunction, ::mlir::OperationPass<::mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FailOnBadFunction)
  llvm::StringRef getArgument() const final { return "test-fail-on-bad"; }
  llvm::StringRef getName() const final { return "FailOnBadFunction"; }
  void runOnOperation() override {
    if (getOperation().getSymName() == "bad") signalPassFailure();
  }
};

/// A module of `count` functions named k0..k{count-1}, with foldable
/// arithmetic so that canonicalize and cse have work.
std::string module_text(int count, bool with_bad = false) {
  std::string text = "module {\n";
  for (int i = 0; i < count; ++i) {
    std::string name = (with_bad && i == count / 2) ? "bad" : "k" + std::to_string(i);
    text += "  func.func @" + name + "(%x: i32) -> i32 {\n";
    text += "    %c1 = arith.constant 1 : i32\n    %c2 = arith.constant 2 : i32\n";
    text += "    %a = arith.addi %c1, %c2 : i32\n    %b = arith.addi %c1, %c2 : i32\n";
    text += "    %m = arith.muli %a, %b : i32\n    %r = arith.addi %x, %m : i32\n";
    text += "    return %r : i32\n  }\n";
  }
  return text + "}\n";
}

class MlirPassTimingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.insert<::mlir::func::FuncDialect, ::mlir::arith::ArithDialect>();
    context_ = std::make_unique<::mlir::MLIRContext>(registry_);
    context_->loadAllAvailableDialects();
  }

  ::mlir::OwningOpRef<::mlir::ModuleOp> parse(const std::string& text) {
    auto module = ::mlir::parseSourceString<::mlir::ModuleOp>(text, context_.get());
    EXPECT_TRUE(module);
    return module;
  }

  /// builtin.module(canonicalize, func.func(canonicalize, cse[, fail]), cse)
  static void build_pipeline(::mlir::PassManager& pm, bool with_fail) {
    pm.addPass(::mlir::createCanonicalizerPass());
    ::mlir::OpPassManager& functions = pm.nest<::mlir::func::FuncOp>();
    functions.addPass(::mlir::createCanonicalizerPass());
    functions.addPass(::mlir::createCSEPass());
    if (with_fail) functions.addPass(std::make_unique<FailOnBadFunction>());
    pm.addPass(::mlir::createCSEPass());
  }

  ::mlir::DialectRegistry registry_;
  std::unique_ptr<::mlir::MLIRContext> context_;
};

const Record& only(const Section& s, std::string_view name) {
  const Record* found = nullptr;
  for (const Record& r : s.records) {
    if (s.name_of(r) == name) {
      EXPECT_EQ(found, nullptr) << "two records named " << name;
      found = &r;
    }
  }
  EXPECT_NE(found, nullptr) << "no record named " << name;
  static const Record missing;
  return found ? *found : missing;
}

/// Checks the pass tree of the standard pipeline over `count` functions.
void expect_pipeline_tree(const Section& s, int count, bool threaded) {
  ASSERT_EQ(s.records.size(), static_cast<std::size_t>(3 + 3 * count));
  std::map<std::uint32_t, const Record*> by_sequence;
  for (const Record& r : s.records) by_sequence[r.sequence] = &r;
  ASSERT_EQ(by_sequence.size(), s.records.size()) << "sequences must be distinct";

  // Top level: canonicalize, the adaptor, cse, in that order.
  const Record* first = by_sequence.begin()->second;
  EXPECT_EQ(s.name_of(*first), "Canonicalizer");
  EXPECT_EQ(first->depth, 0);
  EXPECT_EQ(s.kernel_of(*first), "k0 +" + std::to_string(count - 1) + " more");
  const Record& adaptor = only(s, kAdaptor);
  EXPECT_EQ(adaptor.depth, 0);
  EXPECT_EQ(adaptor.parent, kNoParent);
  EXPECT_EQ(adaptor.sequence, 1u);

  std::set<std::string> labels;
  std::set<std::uint32_t> threads;
  Nanoseconds pipelines_sum = 0;
  for (const Record& r : s.records) {
    EXPECT_GE(r.self_ns, 0);
    EXPECT_LE(r.self_ns, r.inclusive_ns);
    EXPECT_EQ(r.flags, 0);
    if (s.name_of(r) != kPipeline) continue;
    EXPECT_EQ(r.depth, 1);
    EXPECT_EQ(r.parent, adaptor.sequence);
    labels.insert(std::string(s.kernel_of(r)));
    threads.insert(r.thread);
    pipelines_sum += r.inclusive_ns;
    // Its passes follow it in tree order, on its thread, with its label.
    const Record& canonicalize = *by_sequence.at(r.sequence + 1);
    const Record& cse = *by_sequence.at(r.sequence + 2);
    for (const Record* pass : {&canonicalize, &cse}) {
      EXPECT_EQ(pass->depth, 2);
      EXPECT_EQ(pass->parent, r.sequence);
      EXPECT_EQ(pass->thread, r.thread);
      EXPECT_EQ(s.kernel_of(*pass), s.kernel_of(r));
    }
    EXPECT_EQ(s.name_of(canonicalize), "Canonicalizer");
    EXPECT_EQ(s.name_of(cse), "CSE");
    EXPECT_EQ(r.self_ns, r.inclusive_ns - canonicalize.inclusive_ns - cse.inclusive_ns);
  }
  EXPECT_EQ(labels.size(), static_cast<std::size_t>(count));
  EXPECT_TRUE(labels.count("k0"));
  if (threaded) {
    // The adaptor's thread waits; the pipelines run on pool workers.
    EXPECT_FALSE(threads.count(adaptor.thread));
    EXPECT_EQ(adaptor.self_ns, std::max<Nanoseconds>(0, adaptor.inclusive_ns - pipelines_sum));
  } else {
    EXPECT_EQ(threads, std::set<std::uint32_t>{adaptor.thread});
    EXPECT_EQ(adaptor.self_ns, adaptor.inclusive_ns - pipelines_sum);
  }
  // No double counting: the total is the three top-level passes.
  const Record& last_cse = *by_sequence.rbegin()->second;
  EXPECT_EQ(s.name_of(last_cse), "CSE");
  EXPECT_EQ(last_cse.depth, 0);
  EXPECT_DOUBLE_EQ(s.total_seconds(), to_seconds(first->inclusive_ns) +
                                          to_seconds(adaptor.inclusive_ns) +
                                          to_seconds(last_cse.inclusive_ns));
}

TEST_F(MlirPassTimingTest, SingleThreadTree) {
  context_->disableMultithreading();
  auto module = parse(module_text(8));
  ::mlir::PassManager pm(context_.get());
  build_pipeline(pm, false);
  PassTiming timing;
  timing.enable(pm);
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  timing.finish();
  expect_pipeline_tree(timing.snapshot(), 8, /*threaded=*/false);
}

TEST_F(MlirPassTimingTest, ThreadedTreeAttachesWorkerPipelinesToTheAdaptor) {
  context_->enableMultithreading(true);
  auto module = parse(module_text(64));
  // Several runs, to give interleavings a chance.
  for (int run = 0; run < 3; ++run) {
    ::mlir::PassManager pm(context_.get());
    build_pipeline(pm, false);
    PassTiming timing;
    timing.enable(pm);
    ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
    timing.finish();
    expect_pipeline_tree(timing.snapshot(), 64, /*threaded=*/true);
  }
}

TEST_F(MlirPassTimingTest, ThreadedReportIsATree) {
  context_->enableMultithreading(true);
  auto module = parse(module_text(4));
  ::mlir::PassManager pm(context_.get());
  build_pipeline(pm, false);
  Settings options;
  options.context = "stage=opt";
  auto timing = enable_pass_timing(pm, std::make_shared<Recorder>(options));
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  const std::string report = timing->recorder().report(timing->recorder().context_label());
  EXPECT_NE(report.find("Context: stage=opt\n"), std::string::npos);
  EXPECT_NE(report.find("(15 passes)"), std::string::npos);
  // Each pipeline row is followed by its own two passes.
  for (int i = 0; i < 4; ++i) {
    const std::string k = "k" + std::to_string(i);
    const std::string block = "'func.func' Pipeline(" + k + ")";
    auto at = report.find(block);
    ASSERT_NE(at, std::string::npos) << report;
    auto next1 = report.find('\n', at);
    auto next2 = report.find('\n', next1 + 1);
    EXPECT_NE(report.substr(next1, next2 - next1).find("      Canonicalizer(" + k + ")"),
              std::string::npos)
        << report;
  }
}

TEST_F(MlirPassTimingTest, ExactTimesWithManualClock) {
  context_->disableMultithreading();
  auto module = parse(module_text(1));
  ::mlir::PassManager pm(context_.get());
  pm.nest<::mlir::func::FuncOp>().addPass(::mlir::createCSEPass());
  auto clock = std::make_shared<ManualClock>();
  // Reads: start of the section, adaptor before, pipeline before, cse
  // before, cse after, pipeline after, adaptor after.
  clock->script({0, 10, 20, 30, 70, 80, 100});
  PassTiming timing({}, clock);
  timing.enable(pm);
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  const Section s = timing.snapshot();
  ASSERT_EQ(s.records.size(), 3u);
  const Record& cse = only(s, "CSE");
  const Record& pipeline = only(s, kPipeline);
  const Record& adaptor = only(s, kAdaptor);
  EXPECT_EQ(cse.inclusive_ns, 40);
  EXPECT_EQ(cse.self_ns, 40);
  EXPECT_EQ(pipeline.start_ns, 20);
  EXPECT_EQ(pipeline.inclusive_ns, 60);
  EXPECT_EQ(pipeline.self_ns, 20);
  EXPECT_EQ(adaptor.inclusive_ns, 90);
  EXPECT_EQ(adaptor.self_ns, 30);
  EXPECT_EQ(s.kernel_of(adaptor), "k0");
  EXPECT_EQ(s.kernel_of(pipeline), "k0");
  EXPECT_EQ(s.kernel_of(cse), "k0");
  EXPECT_EQ((std::vector<std::uint16_t>{cse.depth, pipeline.depth, adaptor.depth}),
            (std::vector<std::uint16_t>{2, 1, 0}));
  EXPECT_EQ(clock->reads(), 7u);
}

TEST_F(MlirPassTimingTest, FailingNestedPassIsClosedAndMarked) {
  for (bool threaded : {false, true}) {
    SCOPED_TRACE(threaded ? "threaded" : "single thread");
    context_->enableMultithreading(threaded);
    auto module = parse(module_text(6, /*with_bad=*/true));
    ::mlir::PassManager pm(context_.get());
    build_pipeline(pm, /*with_fail=*/true);
    PassTiming timing;
    timing.enable(pm);
    ASSERT_TRUE(::mlir::failed(pm.run(*module)));
    timing.finish();
    const Section s = timing.snapshot();
    const Record& adaptor = only(s, kAdaptor);
    EXPECT_EQ(adaptor.flags, kRecordFailed);
    int failed_passes = 0;
    bool top_canonicalize = false;
    for (const Record& r : s.records) {
      if (s.name_of(r) == "FailOnBadFunction" && (r.flags & kRecordFailed)) {
        ++failed_passes;
        EXPECT_EQ(s.kernel_of(r), "bad");
        EXPECT_EQ(r.depth, 2);
      }
      if (s.name_of(r) == kPipeline && s.kernel_of(r) == "bad") {
        // MLIR never calls runAfterPipeline for it: the failure closed it.
        EXPECT_EQ(r.flags, kRecordFailed);
        EXPECT_EQ(r.depth, 1);
      }
      if (s.name_of(r) == "Canonicalizer" && r.depth == 0) top_canonicalize = true;
      if (s.name_of(r) == "CSE") {
        EXPECT_NE(r.depth, 0) << "the last pass never ran";
      }
    }
    EXPECT_EQ(failed_passes, 1);
    EXPECT_TRUE(top_canonicalize);
    // The report is still produced with everything that completed.
    EXPECT_NE(timing.recorder().report().find("FailOnBadFunction(bad)"), std::string::npos);
  }
}

// Metric `ir`: operations under the pass's operation, itself included.

/// @f: func.func, arith.constant, arith.addi, func.return (4), which
/// canonicalize folds to func.func and func.return (2); @g is those 2
/// already. The module: itself and both functions, 7.
constexpr const char* kFoldModule = R"(module {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    return %a : i32
  }
  func.func @g(%x: i32) -> i32 {
    return %x : i32
  }
})";

MetricSet metric_set(std::initializer_list<Metric> metrics) {
  MetricSet set;
  for (Metric m : metrics) set.insert(m);
  return set;
}

/// The metrics of each record, by "Name(kernel)".
std::map<std::string, RecordMetrics> metrics_by_display(const Section& s) {
  EXPECT_EQ(s.metrics.size(), s.records.size());
  std::map<std::string, RecordMetrics> out;
  for (std::size_t i = 0; i < s.records.size() && i < s.metrics.size(); ++i) {
    const std::string key =
        std::string(s.name_of(s.records[i])) + "(" + std::string(s.kernel_of(s.records[i])) + ")";
    EXPECT_EQ(out.count(key), 0u) << "two records " << key;
    out[key] = s.metrics[i];
  }
  return out;
}

constexpr std::uint8_t kChanged = kIrChangeKnown | kIrChanged;
constexpr std::uint8_t kUnchanged = kIrChangeKnown;

void expect_ir(const std::map<std::string, RecordMetrics>& m, const std::string& record,
               std::int64_t before, std::int64_t after, std::uint8_t flags) {
  SCOPED_TRACE(record);
  ASSERT_EQ(m.count(record), 1u);
  EXPECT_EQ(m.at(record).ir_before, before);
  EXPECT_EQ(m.at(record).ir_after, after);
  EXPECT_EQ(m.at(record).ir_flags, flags);
}

TEST_F(MlirPassTimingTest, IrCountsOperationsAndTheFingerprintTellsAChange) {
  context_->disableMultithreading();
  auto module = parse(kFoldModule);
  ::mlir::PassManager pm(context_.get());
  pm.nest<::mlir::func::FuncOp>().addPass(::mlir::createCanonicalizerPass());
  pm.addPass(::mlir::createCSEPass());
  Settings options;
  options.metrics = metric_set({Metric::ir});
  PassTiming timing(options);
  EXPECT_EQ(timing.recorder().metrics().recorded, metric_set({Metric::ir}));
  EXPECT_TRUE(timing.recorder().metrics().unavailable.empty());
  timing.enable(pm);
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  timing.finish();
  const Section s = timing.snapshot();
  ASSERT_EQ(s.records.size(), 6u);
  const std::map<std::string, RecordMetrics> m = metrics_by_display(s);
  expect_ir(m, "Canonicalizer(f)", 4, 2, kChanged);
  expect_ir(m, "Canonicalizer(g)", 2, 2, kUnchanged);
  expect_ir(m, std::string(kAdaptor) + "(f +1 more)", 7, 5, kChanged);
  expect_ir(m, "CSE(f +1 more)", 5, 5, kUnchanged);
  // A pipeline is no pass: it has no IR of its own.
  expect_ir(m, std::string(kPipeline) + "(f)", kNotMeasured, kNotMeasured, 0);
  EXPECT_EQ(m.at("CSE(f +1 more)").cpu_ns, kNotMeasured);
  EXPECT_EQ(timing.recorder().profile().metrics.recorded, metric_set({Metric::ir}));
}

TEST_F(MlirPassTimingTest, IrIsCountedOnEachWorkerThread) {
  context_->enableMultithreading(true);
  // module_text's functions have 8 operations, which canonicalize folds to
  // 4: func.func, arith.constant 9, arith.addi, func.return.
  constexpr int kFunctions = 32;
  auto module = parse(module_text(kFunctions));
  ::mlir::PassManager pm(context_.get());
  ::mlir::OpPassManager& functions = pm.nest<::mlir::func::FuncOp>();
  functions.addPass(::mlir::createCanonicalizerPass());
  functions.addPass(::mlir::createCSEPass());
  Settings options;
  options.metrics = metric_set({Metric::ir, Metric::cpu});
  PassTiming timing(options);
  timing.enable(pm);
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  timing.finish();
  const Section s = timing.snapshot();
  ASSERT_EQ(s.records.size(), static_cast<std::size_t>(1 + 3 * kFunctions));
  const std::map<std::string, RecordMetrics> m = metrics_by_display(s);
  for (int i = 0; i < kFunctions; ++i) {
    const std::string k = "(k" + std::to_string(i) + ")";
    expect_ir(m, "Canonicalizer" + k, 8, 4, kChanged);
    expect_ir(m, "CSE" + k, 4, 4, kUnchanged);
  }
  expect_ir(m, std::string(kAdaptor) + "(k0 +" + std::to_string(kFunctions - 1) + " more)",
            1 + 8 * kFunctions, 1 + 4 * kFunctions, kChanged);
  for (const RecordMetrics& r : s.metrics) {
    EXPECT_GE(r.cpu_self_ns, 0);
    EXPECT_LE(r.cpu_self_ns, r.cpu_ns);
  }
}

TEST_F(MlirPassTimingTest, AFailingPassHasNoIrSizeAfterIt) {
  context_->disableMultithreading();
  auto module = parse(module_text(3, /*with_bad=*/true));
  ::mlir::PassManager pm(context_.get());
  pm.nest<::mlir::func::FuncOp>().addPass(std::make_unique<FailOnBadFunction>());
  Settings options;
  options.metrics = metric_set({Metric::ir});
  PassTiming timing(options);
  timing.enable(pm);
  ASSERT_TRUE(::mlir::failed(pm.run(*module)));
  timing.finish();
  const std::map<std::string, RecordMetrics> m = metrics_by_display(timing.snapshot());
  expect_ir(m, "FailOnBadFunction(k0)", 8, 8, kUnchanged);
  expect_ir(m, "FailOnBadFunction(bad)", 8, kNotMeasured, 0);
  expect_ir(m, std::string(kAdaptor) + "(k0 +2 more)", 25, kNotMeasured, 0);
}

TEST_F(MlirPassTimingTest, WithoutMetricsNothingIsCounted) {
  context_->disableMultithreading();
  auto module = parse(kFoldModule);
  ::mlir::PassManager pm(context_.get());
  pm.nest<::mlir::func::FuncOp>().addPass(::mlir::createCanonicalizerPass());
  PassTiming timing;
  timing.enable(pm);
  ASSERT_TRUE(::mlir::succeeded(pm.run(*module)));
  EXPECT_TRUE(timing.snapshot().metrics.empty());
  EXPECT_TRUE(timing.recorder().profile().metrics.empty());
}

}  // namespace
}  // namespace passtiming::mlir
