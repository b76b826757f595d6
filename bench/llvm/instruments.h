#pragma once
/// \file
/// The instruments the LLVM benchmarks compare, each registered on a
/// PassInstrumentationCallbacks the way a compiler would register it, so that
/// llvm_bench (warm) and llvm_cold_bench (cold) measure the same set-up.

#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Support/raw_ostream.h>

#include <string>

#include "passtiming/llvm.h"

namespace passtiming::bench {

/// LLVM's TimePassesHandler, what -ftime-report runs. Its report, printed
/// when the handler is destroyed, is not part of the per-pass cost: it goes
/// to a string declared before the handler, so it outlives it.
class TimePassesInstrument {
 public:
  explicit TimePassesInstrument(::llvm::PassInstrumentationCallbacks& pic) {
    handler_.setOutStream(out_);
    handler_.registerCallbacks(pic);
  }

 private:
  std::string report_;
  ::llvm::raw_string_ostream out_{report_};
  ::llvm::TimePassesHandler handler_{/*Enabled=*/true};
};

/// passtiming's instrument, recording every pass as the plugin does.
class PasstimingInstrument {
 public:
  explicit PasstimingInstrument(::llvm::PassInstrumentationCallbacks& pic) {
    timing_.register_callbacks(pic);
  }
  /// Records so far, for benchmark::DoNotOptimize.
  std::size_t records() const { return timing_.recorder().section().records.size(); }

 private:
  passtiming::llvm::PassTiming timing_;
};

}  // namespace passtiming::bench
