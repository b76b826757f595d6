// A pass plugin that makes one named pass slower on purpose, to calibrate
// `passtiming diff --gate` on real compiles: before each execution of the
// pass named by PASSTIMING_SPIN_PASS (LLVM's pass name, e.g. IPSCCPPass) it
// spins for PASSTIMING_SPIN_US microseconds of the thread's CPU time. CPU
// time rather than wall time, so that the slowdown is the same in the wall
// and cpu measures even when the thread is preempted.
//
// Load it after libpasstiming_llvm.so (`passtiming run` puts that plugin
// first on the command line): passtiming's before-pass callback then runs
// first and the spin falls inside the pass's measured interval.
//
//     export PASSTIMING_SPIN_PASS=IPSCCPPass PASSTIMING_SPIN_US=2000
//     passtiming run -o 'slow-%r.json' --repeat 10 --
//         clang-19 -O2 -c -fpass-plugin=libpasstiming_spin.so particles.c -o /dev/null
//
// With PASSTIMING_SPIN_PCT=P instead of PASSTIMING_SPIN_US, each execution
// of the pass is made P percent slower than it was in that very compile:
// after the pass, the plugin spins P percent of the time the execution
// took, less the passes nested in it (the self time passtiming records).
// The slowdown is then a true P percent whatever the machine's speed at
// that moment, which a fixed spin, set from another compile, is not. Its
// after-pass callback goes in front of the others, passtiming's included,
// so the spin falls inside the pass's measured interval. This mode frames
// the passes and spins on the monotonic clock, which the vDSO reads
// without entering the kernel: the thread CPU clock is a system call,
// thousands of which in a spin would also slow the passes after it (the
// kernel's entries and exits cost them their caches and predictors), and
// four of which around every pass would add to the recorded time of its
// smallest executions a cost the spin does not grow. At the gate's
// priority (nice -20) a pass is seldom preempted, so its wall time is its
// CPU time.
//
// With PASSTIMING_SPIN_US=fail, the named pass stops the compile instead,
// with a fatal error as a failing LLVM pass does (`error in backend`): the
// tests of a compile cut short in a pass use it.

#include <llvm/ADT/Any.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/ErrorHandling.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

/// The thread's CPU time: a system call on Linux (the vDSO has no thread
/// clocks), for the fixed spin only.
std::int64_t thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

/// The monotonic clock, read in user space through the vDSO.
std::int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

/// Spins `ns` nanoseconds of the clock `now`.
template <typename Clock>
void spin_for(std::int64_t ns, Clock now) {
  const std::int64_t end = now() + ns;
  while (now() < end) {
  }
}

/// One running pass: when it began, and the CPU time of the passes nested in
/// it so far.
struct Frame {
  std::int64_t start = 0;
  std::int64_t nested = 0;
};

/// Ends the innermost pass; returns its self time (0 when unbalanced).
std::int64_t pop_frame(std::vector<Frame>& frames) {
  if (frames.empty()) return 0;
  const Frame frame = frames.back();
  frames.pop_back();
  const std::int64_t elapsed = monotonic_ns() - frame.start;
  if (!frames.empty()) frames.back().nested += elapsed;
  return elapsed - frame.nested;
}

/// PASSTIMING_SPIN_PCT: every pass is framed, so that the named pass's
/// self time is known when it ends.
void register_proportional(llvm::PassInstrumentationCallbacks& callbacks, std::string name,
                           double percent) {
  auto frames = std::make_shared<std::vector<Frame>>();
  callbacks.registerBeforeNonSkippedPassCallback(
      [frames](llvm::StringRef, llvm::Any) { frames->push_back({monotonic_ns(), 0}); });
  const auto end = [frames, name, percent](llvm::StringRef id) {
    const std::int64_t self = pop_frame(*frames);
    if (id != name || self <= 0) return;
    const auto extra = static_cast<std::int64_t>(static_cast<double>(self) * percent / 100);
    spin_for(extra, monotonic_ns);
    // The spin is the pass's own time: its parent's nested time grows too.
    if (!frames->empty()) frames->back().nested += extra;
  };
  callbacks.registerAfterPassCallback(
      [end](llvm::StringRef id, llvm::Any, const llvm::PreservedAnalyses&) { end(id); },
      /*ToFront=*/true);
  callbacks.registerAfterPassInvalidatedCallback(
      [end](llvm::StringRef id, const llvm::PreservedAnalyses&) { end(id); }, /*ToFront=*/true);
}

void register_spin(llvm::PassBuilder& builder) {
  llvm::PassInstrumentationCallbacks* callbacks = builder.getPassInstrumentationCallbacks();
  const char* pass = std::getenv("PASSTIMING_SPIN_PASS");
  const char* percent = std::getenv("PASSTIMING_SPIN_PCT");
  if (callbacks && pass && *pass && percent) {
    char* end = nullptr;
    const double value = std::strtod(percent, &end);
    if (end != percent && *end == '\0' && value >= 0) {
      register_proportional(*callbacks, pass, value);
    }
    return;
  }
  const char* micros = std::getenv("PASSTIMING_SPIN_US");
  if (!callbacks || !pass || !*pass || !micros) return;
  if (std::string(micros) == "fail") {
    callbacks->registerBeforeNonSkippedPassCallback(
        [name = std::string(pass)](llvm::StringRef id, llvm::Any) {
          if (id == name)
            llvm::report_fatal_error("passtiming-spin: " + llvm::Twine(name) + " failed");
        });
    return;
  }
  char* end = nullptr;
  const double us = std::strtod(micros, &end);
  if (end == micros || *end != '\0' || !(us >= 0)) return;
  const auto ns = static_cast<std::int64_t>(us * 1000);
  // Registered even for 0 us, so that a calibration's unchanged side pays
  // the same callback (a string comparison per pass) as its slowed side.
  callbacks->registerBeforeNonSkippedPassCallback(
      [name = std::string(pass), ns](llvm::StringRef id, llvm::Any) {
        if (ns > 0 && id == name) spin_for(ns, thread_cpu_ns);
      });
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "passtiming-spin", "0",
          [](llvm::PassBuilder& builder) { register_spin(builder); }};
}
