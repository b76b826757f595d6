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
#include <string>

namespace {

std::int64_t thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void spin_for(std::int64_t ns) {
  const std::int64_t end = thread_cpu_ns() + ns;
  // Each iteration reads the clock: a cheap vDSO call, and the spin stays
  // within a microsecond of the asked time.
  while (thread_cpu_ns() < end) {
  }
}

void register_spin(llvm::PassBuilder& builder) {
  llvm::PassInstrumentationCallbacks* callbacks = builder.getPassInstrumentationCallbacks();
  const char* pass = std::getenv("PASSTIMING_SPIN_PASS");
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
        if (ns > 0 && id == name) spin_for(ns);
      });
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "passtiming-spin", "0",
          [](llvm::PassBuilder& builder) { register_spin(builder); }};
}
