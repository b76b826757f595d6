// The per-pass cost of timing inside LLVM when the pass between the two
// callbacks has done real work. In llvm_bench every callback finds its code
// and data in the first-level caches; in a compile it does not: a pass runs
// for tens of microseconds over megabytes of IR and code, and the callbacks
// that follow find their cache lines, and their pages' translations, evicted.
// On sqlite3.c that is why the instrument cost about twice the wall time its
// instruction count predicts.
//
// Here each pass pair runs on one of 1,024 functions with one of 32 pass
// names (a pass manager opening and closing around each function's 32
// passes, a module adaptor around them all), and between the before- and
// after-callback the "pass" reads one cache line on each of 4,096 random pages
// of a 256 MiB buffer (more pages than the second-level TLB maps, more lines
// than the second-level cache holds) and runs 128 KiB of distinct code (twice
// the first-level instruction cache). Only the callbacks are timed (manual
// time), so the eviction's own cost does not enter the figures; the clock
// reads around them are the same in every variant, so `passtiming` minus
// `empty callbacks` is the instrument's own cold cost per pass pair.

#include <benchmark/benchmark.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Support/SourceMgr.h>
#include <sys/mman.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "instruments.h"

namespace {

constexpr benchmark::IterationCount kColdPairs = 4'096;
constexpr std::size_t kFunctions = 1'024;
constexpr std::size_t kPassesPerFunction = 32;
constexpr std::size_t kEvictBytes = std::size_t{256} << 20;
constexpr std::size_t kPageBytes = 4096;
constexpr std::size_t kEvictPages = 4'096;
constexpr std::size_t kCodeBlocks = 2'048;  ///< 64 bytes each: 128 KiB of code

/// Names from an -O2 pipeline, short ones (kept inside std::string) and long
/// ones (on the heap) alike.
// clang-format off
constexpr std::array<const char*, kPassesPerFunction> kPassNames = {
    "InstCombinePass",                "SimplifyCFGPass",                "SROAPass",
    "EarlyCSEPass",                   "GVNPass",                        "SCCPPass",
    "ADCEPass",                       "DSEPass",                        "MemCpyOptPass",
    "JumpThreadingPass",              "CorrelatedValuePropagationPass", "ReassociatePass",
    "LoopSimplifyPass",               "LCSSAPass",                      "LICMPass",
    "LoopRotatePass",                 "IndVarSimplifyPass",             "LoopDeletionPass",
    "LoopFullUnrollPass",             "MergedLoadStoreMotionPass",      "BDCEPass",
    "AggressiveInstCombinePass",      "ConstraintEliminationPass",      "TailCallElimPass",
    "LibCallsShrinkWrapPass",         "PGOMemOPSizeOpt",                "SpeculativeExecutionPass",
    "VectorCombinePass",              "LoopUnrollPass",                 "SLPVectorizerPass",
    "LoopVectorizePass",              "AlignmentFromAssumptionsPass"};
// clang-format on

template <std::size_t N>
struct NamedPass : llvm::PassInfoMixin<NamedPass<N>> {
  static llvm::StringRef name() { return kPassNames[N]; }
};
struct FakeAdaptor : llvm::PassInfoMixin<FakeAdaptor> {
  static llvm::StringRef name() { return "ModuleToFunctionPassAdaptor"; }
};
struct FakeManager : llvm::PassInfoMixin<FakeManager> {
  static llvm::StringRef name() { return "PassManager<Function>"; }
};

/// One block of distinct code: 60 bytes of no-ops and a return.
template <std::size_t N>
[[gnu::noinline, gnu::aligned(64)]] void code_block() {
  asm volatile(".fill 56, 1, 0x90" ::: "memory");
}
template <std::size_t... N>
constexpr std::array<void (*)(), sizeof...(N)> code_blocks(std::index_sequence<N...>) {
  return {&code_block<N>...};
}
constexpr auto kCode = code_blocks(std::make_index_sequence<kCodeBlocks>());

/// What a pass does to the caches and the TLB.
class Evictor {
 public:
  Evictor() {
    void* p =
        ::mmap(nullptr, kEvictBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Small pages, as most of a compiler's heap is: each page is its own
    // translation.
    ::madvise(p, kEvictBytes, MADV_NOHUGEPAGE);
    bytes_ = static_cast<unsigned char*>(p);
    for (std::size_t i = 0; i < kEvictBytes; i += kPageBytes) bytes_[i] = 1;
  }
  ~Evictor() { ::munmap(bytes_, kEvictBytes); }
  Evictor(const Evictor&) = delete;
  Evictor& operator=(const Evictor&) = delete;

  void run() {
    unsigned sum = 0;
    for (std::size_t i = 0; i < kEvictPages; ++i) {
      state_ ^= state_ << 13;
      state_ ^= state_ >> 7;
      state_ ^= state_ << 17;
      const std::size_t page = state_ % (kEvictBytes / kPageBytes);
      const std::size_t line = (state_ >> 32) % (kPageBytes / 64);
      sum += bytes_[page * kPageBytes + line * 64];
    }
    benchmark::DoNotOptimize(sum);
    for (auto block : kCode) block();
  }

 private:
  unsigned char* bytes_ = nullptr;
  std::uint64_t state_ = 0x9E3779B97F4A7C15ull;
};

struct Ir {
  Ir() {
    std::string text;
    for (std::size_t i = 0; i < kFunctions; ++i) {
      // sqlite3-like names of 14 to 30 bytes.
      text += "define void @sqlite3Func" + std::to_string(i) + std::string(i % 7 * 2, 'x') +
              "() {\n  ret void\n}\n";
    }
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString(text, error, context);
    for (const llvm::Function& f : *module) functions.push_back(&f);
  }
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  std::vector<const llvm::Function*> functions;
};

using Clock = std::chrono::steady_clock;

/// One pass pair of pass N on `f` through `pi`, with the eviction between
/// the callbacks; returns the callbacks' time.
template <std::size_t N>
Clock::duration timed_pair(const llvm::PassInstrumentation& pi, const llvm::Function& f,
                           const llvm::PreservedAnalyses& pa, Evictor& evictor) {
  NamedPass<N> pass;
  evictor.run();
  auto t0 = Clock::now();
  pi.runBeforePass<llvm::Function>(pass, f);
  auto t1 = Clock::now();
  evictor.run();
  auto t2 = Clock::now();
  pi.runAfterPass<llvm::Function>(pass, f, pa);
  auto t3 = Clock::now();
  return (t1 - t0) + (t3 - t2);
}
using PairFn = Clock::duration (*)(const llvm::PassInstrumentation&, const llvm::Function&,
                                   const llvm::PreservedAnalyses&, Evictor&);
template <std::size_t... N>
constexpr std::array<PairFn, sizeof...(N)> pair_functions(std::index_sequence<N...>) {
  return {&timed_pair<N>...};
}
constexpr auto kPairFns = pair_functions(std::make_index_sequence<kPassesPerFunction>());

/// Empty callbacks: the four libpasstiming_llvm.so registers, with empty
/// bodies (as bench/llvm/null_plugin.cc). What LLVM spends on any instrument.
void register_empty_callbacks(llvm::PassInstrumentationCallbacks& pic) {
  using llvm::Any;
  using llvm::PreservedAnalyses;
  using llvm::StringRef;
  pic.registerBeforeNonSkippedPassCallback([](StringRef, Any) {});
  pic.registerAfterPassCallback([](StringRef, Any, const PreservedAnalyses&) {}, true);
  pic.registerAfterPassInvalidatedCallback([](StringRef, const PreservedAnalyses&) {}, true);
  pic.registerBeforeSkippedPassCallback([](StringRef, Any) {});
}

/// The same stream through two pipelines at once, pass pair by pass pair:
/// `baseline` (empty callbacks) and `measured`. Both see the host in the same
/// state, so their difference is steady where each alone drifts by tens of
/// percent on a shared machine. Counters, per pass pair: `baseline_ns`,
/// `measured_ns` and `extra_ns` (their difference); the manual time is the
/// measured pipeline's.
void feed_cold(benchmark::State& state, llvm::PassInstrumentationCallbacks* measured) {
  Ir ir;
  Evictor evictor;
  llvm::PassInstrumentationCallbacks baseline_callbacks;
  register_empty_callbacks(baseline_callbacks);
  const llvm::PassInstrumentation pis[2] = {llvm::PassInstrumentation(&baseline_callbacks),
                                            llvm::PassInstrumentation(measured)};
  FakeAdaptor adaptor;
  FakeManager manager;
  const auto pa = llvm::PreservedAnalyses::all();
  const llvm::Module& m = *ir.module;
  for (const auto& pi : pis) pi.runBeforePass<llvm::Module>(adaptor, m);
  Clock::duration totals[2] = {};
  std::size_t pair = 0;
  for (auto _ : state) {
    const llvm::Function& f = *ir.functions[pair / kPassesPerFunction % kFunctions];
    const std::size_t pass = pair % kPassesPerFunction;
    Clock::duration spent[2] = {};
    // Which pipeline goes first alternates.
    for (std::size_t k = 0; k < 2; ++k) {
      const std::size_t which = (pair + k) % 2;
      const llvm::PassInstrumentation& pi = pis[which];
      if (pass == 0) {
        auto t0 = Clock::now();
        pi.runBeforePass<llvm::Function>(manager, f);
        spent[which] += Clock::now() - t0;
      }
      spent[which] += kPairFns[pass](pi, f, pa, evictor);
      if (pass == kPassesPerFunction - 1) {
        auto t0 = Clock::now();
        pi.runAfterPass<llvm::Function>(manager, f, pa);
        spent[which] += Clock::now() - t0;
      }
    }
    totals[0] += spent[0];
    totals[1] += spent[1];
    state.SetIterationTime(std::chrono::duration<double>(spent[1]).count());
    ++pair;
  }
  for (const auto& pi : pis) {
    if (pair % kPassesPerFunction != 0) {
      pi.runAfterPass<llvm::Function>(manager,
                                      *ir.functions[pair / kPassesPerFunction % kFunctions], pa);
    }
    pi.runAfterPass<llvm::Module>(adaptor, m, pa);
  }
  const double per_pair = pair ? 1.0 / static_cast<double>(pair) : 0.0;
  const double baseline_ns = std::chrono::duration<double, std::nano>(totals[0]).count() * per_pair;
  const double measured_ns = std::chrono::duration<double, std::nano>(totals[1]).count() * per_pair;
  state.counters["baseline_ns"] = baseline_ns;
  state.counters["measured_ns"] = measured_ns;
  state.counters["extra_ns"] = measured_ns - baseline_ns;
  state.SetItemsProcessed(static_cast<std::int64_t>(pair));
}

void BM_ColdNoCallbacks(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  feed_cold(state, &pic);
}
BENCHMARK(BM_ColdNoCallbacks)->Iterations(kColdPairs)->UseManualTime();

void BM_ColdEmptyCallbacks(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  register_empty_callbacks(pic);
  feed_cold(state, &pic);
}
BENCHMARK(BM_ColdEmptyCallbacks)->Iterations(kColdPairs)->UseManualTime();

void BM_ColdTimePassesHandler(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  passtiming::bench::TimePassesInstrument handler(pic);
  feed_cold(state, &pic);
}
BENCHMARK(BM_ColdTimePassesHandler)->Iterations(kColdPairs)->UseManualTime();

void BM_ColdPasstiming(benchmark::State& state) {
  llvm::PassInstrumentationCallbacks pic;
  passtiming::bench::PasstimingInstrument timing(pic);
  feed_cold(state, &pic);
  benchmark::DoNotOptimize(timing.records());
}
BENCHMARK(BM_ColdPasstiming)->Iterations(kColdPairs)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
