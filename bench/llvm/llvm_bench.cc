// The per-pass cost of timing inside LLVM: the same 3-deep event stream
// (adaptor → pass manager → pass, as ModuleToFunctionPassAdaptor →
// PassManager<Function> → InstCombinePass) fed through LLVM's own
// PassInstrumentation to
//   - nothing registered (the dispatch cost LLVM always pays),
//   - LLVM's TimePassesHandler (what -ftime-report runs),
//   - passtiming::llvm::PassTiming,
// beside the floor: two steady-clock reads per pass.
// Each iteration is one innermost pass pair plus, every 8th iteration, the
// enclosing manager and adaptor, so the per-item figure is per pass pair.

#include <benchmark/benchmark.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Support/SourceMgr.h>

#include <chrono>
#include <memory>

#include "instruments.h"

namespace {

/// Fixed at the size of a real compile, so that the records the instrument
/// keeps (48 bytes each) grow as they do there.
constexpr benchmark::IterationCount kPairs = 300'000;  // about one sqlite3.c compile

struct FakeAdaptor : llvm::PassInfoMixin<FakeAdaptor> {
  static llvm::StringRef name() { return "ModuleToFunctionPassAdaptor"; }
};
struct FakeManager : llvm::PassInfoMixin<FakeManager> {
  static llvm::StringRef name() { return "PassManager<Function>"; }
};
struct FakeInstCombine : llvm::PassInfoMixin<FakeInstCombine> {
  static llvm::StringRef name() { return "InstCombinePass"; }
};

struct Ir {
  Ir() {
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString("define void @kernel() {\n  ret void\n}\n", error, context);
  }
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
};

/// The event stream: per iteration one InstCombinePass pair; every 8 pairs
/// the manager and the adaptor around them open and close (items = pairs).
void feed(benchmark::State& state, llvm::PassInstrumentationCallbacks* callbacks) {
  Ir ir;
  const llvm::Module& m = *ir.module;
  const llvm::Function& f = *ir.module->getFunction("kernel");
  llvm::PassInstrumentation pi(callbacks);
  FakeAdaptor adaptor;
  FakeManager manager;
  FakeInstCombine pass;
  const auto pa = llvm::PreservedAnalyses::all();
  std::int64_t pairs = 0;
  for (auto _ : state) {
    if ((pairs & 7) == 0) {
      pi.runBeforePass<llvm::Module>(adaptor, m);
      pi.runBeforePass<llvm::Function>(manager, f);
    }
    pi.runBeforePass<llvm::Function>(pass, f);
    pi.runAfterPass<llvm::Function>(pass, f, pa);
    if ((pairs & 7) == 7) {
      pi.runAfterPass<llvm::Function>(manager, f, pa);
      pi.runAfterPass<llvm::Module>(adaptor, m, pa);
    }
    ++pairs;
  }
  // Close what is still open so every instrument ends balanced.
  if ((pairs & 7) != 0) {
    pi.runAfterPass<llvm::Function>(manager, f, pa);
    pi.runAfterPass<llvm::Module>(adaptor, m, pa);
  }
  state.SetItemsProcessed(pairs);
}

void BM_ClockFloor(benchmark::State& state) {
  std::int64_t sum = 0;
  for (auto _ : state) {
    auto a = std::chrono::steady_clock::now();
    auto b = std::chrono::steady_clock::now();
    sum += (b - a).count();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClockFloor)->Iterations(kPairs);

void BM_NoInstrumentation(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  feed(state, &pic);
}
BENCHMARK(BM_NoInstrumentation)->Iterations(kPairs);

void BM_TimePassesHandler(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  passtiming::bench::TimePassesInstrument handler(pic);
  feed(state, &pic);
}
BENCHMARK(BM_TimePassesHandler)->Iterations(kPairs);

void BM_PasstimingInstrument(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  passtiming::bench::PasstimingInstrument timing(pic);
  feed(state, &pic);
  benchmark::DoNotOptimize(timing.records());
}
BENCHMARK(BM_PasstimingInstrument)->Iterations(kPairs);

}  // namespace

BENCHMARK_MAIN();
