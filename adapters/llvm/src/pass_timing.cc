// PassTiming: LLVM's pass instrumentation callbacks driving the core
// TimingStateMachine. This file is the boundary between LLVM (built without
// exceptions) and the core (which may throw): nothing thrown here ever
// reaches an LLVM frame.

#include <llvm/ADT/Any.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/PassInstrumentation.h>

#include <cstdio>
#include <exception>
#include <new>

#include "passtiming/engine/logging.h"
#include "passtiming/llvm.h"

// Placement: the callbacks every pass runs are [[gnu::hot]] (llvm.h), so
// they sit in .text.hot on one or two pages rather than wherever the linker
// would put them, which, once a pass has evicted the instruction TLB, is
// fewer page walks. The flags every callback tests (stopped_, count_ir_,
// steady_) sit together in front of the recorder.

namespace passtiming::llvm {
namespace {

std::string_view view(::llvm::StringRef text) {
  return {text.data(), text.size()};
}

/// LLVM runs one pipeline on one thread per set of callbacks, so every frame
/// goes on the same stack.
constexpr ThreadKey kPipelineThread = 0;

/// Records reserved for a pipeline: an -O2 compile of a large translation
/// unit runs about 300,000 passes. The reservation is address space (48 MiB),
/// not memory: pages are touched only as records are written, 2 MiB at a
/// time (huge pages: a fault per 2 MiB rather than per 4 KiB, which on a
/// virtual machine was most of the instrument's cost), and the records are
/// never copied as the pipeline grows.
constexpr std::size_t kReservedRecords = std::size_t{1} << 20;

/// Reserves what it can: a process with little address space to spare
/// (ulimit -v) still gets timed, growing as it goes.
void reserve_records(TimingStateMachine& state) noexcept {
  try {
    state.reserve(kReservedRecords);
  } catch (const std::exception&) {
  }
}

/// Registers the callbacks that forward to `*self`; `keep_alive` (possibly
/// null) is held by each of them so that it dies with the last one.
void add_callbacks(::llvm::PassInstrumentationCallbacks& pic, PassTiming* self,
                   const std::shared_ptr<void>& keep_alive, bool record_analyses) {
  using ::llvm::Any;
  using ::llvm::PreservedAnalyses;
  using ::llvm::StringRef;
  // The before-callback goes last, so that earlier instruments' work precedes
  // the clock read; the after-callbacks go in front, so the clock is read
  // before any other instrument runs.
  pic.registerBeforeNonSkippedPassCallback(
      [self, keep_alive](StringRef pass, Any ir) { self->before_pass(view(pass), ir); });
  pic.registerAfterPassCallback(
      [self, keep_alive](StringRef pass, Any ir, const PreservedAnalyses& preserved) {
        self->after_pass(view(pass), ir, &preserved);
      },
      /*ToFront=*/true);
  pic.registerAfterPassInvalidatedCallback(
      [self, keep_alive](StringRef pass, const PreservedAnalyses& preserved) {
        self->after_pass_invalidated(view(pass), preserved);
      },
      /*ToFront=*/true);
  pic.registerBeforeSkippedPassCallback(
      [self, keep_alive](StringRef pass, Any ir) { self->skipped_pass(view(pass), ir); });
  if (record_analyses) {
    pic.registerBeforeAnalysisCallback(
        [self, keep_alive](StringRef analysis, Any ir) { self->before_pass(view(analysis), ir); });
    pic.registerAfterAnalysisCallback(
        [self, keep_alive](StringRef analysis, Any ir) {
          self->after_pass(view(analysis), ir, nullptr);
        },
        /*ToFront=*/true);
  }
}

}  // namespace

PassTiming::PassTiming(std::shared_ptr<Recorder> recorder, ModuleContext module_context)
    : recorder_(recorder ? std::move(recorder) : std::make_shared<Recorder>()),
      machine_(&recorder_->machine()),
      clock_(&recorder_->clock()),
      module_context_(std::move(module_context)) {
  // The clock is read inline when it is the process's steady clock.
  steady_ = clock_ == steady_clock().get();
  // Nothing is read when every metric asked for is unavailable: the profile
  // says why, and the callbacks stay as cheap as without metrics.
  count_ir_ = recorder_->metrics().recorded.contains(Metric::ir);
  if (module_context_) {
    // The callbacks wait for the first pass, which every one of them tests
    // for already (stopped_): the hot path gains no test.
    stopped_ = true;
  } else {
    recorder_->begin_context();
  }
  reserve_records(*machine_);
  scratch_symbols_.reserve(16);
}

namespace {

/// `settings`, marked as LLVM's unless the host said otherwise.
Settings llvm_settings(Settings settings) {
  if (settings.source.empty()) settings.source = "llvm";
  return settings;
}

}  // namespace

PassTiming::PassTiming(const Settings& settings, std::shared_ptr<const Clock> clock)
    : PassTiming(std::make_shared<Recorder>(llvm_settings(settings), std::move(clock))) {}

PassTiming::~PassTiming() = default;

void PassTiming::register_callbacks(::llvm::PassInstrumentationCallbacks& pic) {
  add_callbacks(pic, this, nullptr, recorder_->settings().record_analyses);
}

void PassTiming::register_callbacks(::llvm::PassInstrumentationCallbacks& pic,
                                    std::shared_ptr<void> keep_alive) {
  add_callbacks(pic, this, keep_alive, recorder_->settings().record_analyses);
}

void PassTiming::before_pass(std::string_view pass, const ::llvm::Any& ir) noexcept {
  if (stopped_ && !open_at_first_pass(ir)) return;
  try {
    // A pass on the unit of the pass around it takes that pass's label; the
    // label is looked up only for the first pass on each unit.
    auto label = [&] { return ir_unit_label(ir, scratch_label_, scratch_symbols_); };
    // Counted before the clock is read, so the count is not the pass's time.
    if (count_ir_) [[unlikely]] {
      state().note_ir(ir_unit_size(ir));
    }
    // LLVM's pass names are type names in the binary: the same pass gives
    // the same address before and after.
    const BeginEvent<decltype(label)> event{.pass = pass,
                                            .kernel = label,
                                            .thread = kPipelineThread,
                                            .unit = ir_unit_identity(ir),
                                            .stable_name = true};
    // The frame is pushed first and the clock read last.
    if (steady_) {
      state().begin_now(static_cast<const SteadyClock&>(*clock_), event);
    } else {
      state().begin_now(*clock_, event);
    }
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
}

void PassTiming::after_pass(std::string_view pass) noexcept {
  // The clock is read before anything else happens; with metrics, the
  // machine reads the sampler and then the clock again (EndEvent::clock).
  const Nanoseconds t = now();
  if (stopped_) return;
  try {
    state().end(t, {pass, kPipelineThread, 0, nullptr, clock_});
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
}

void PassTiming::after_pass(std::string_view pass, const ::llvm::Any& ir,
                            const ::llvm::PreservedAnalyses* preserved) noexcept {
  // The clock is read before anything else happens, the count included.
  Nanoseconds t = now();
  if (stopped_) return;
  try {
    if (count_ir_) [[unlikely]] {
      // The other figures, then the clock again (the CPU interval then lies
      // inside the wall interval), then the count, which is part of neither
      // the pass's time nor its CPU time nor its instructions.
      MetricSample end;
      state().read_sample(end);
      t = now();
      state().note_ir(ir_unit_size(ir), preserved != nullptr ? ir_flags_of(*preserved) : 0);
      state().end(t, {pass, kPipelineThread, 0, &end});
      return;
    }
    state().end(t, {pass, kPipelineThread, 0, nullptr, clock_});
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
}

void PassTiming::after_pass_invalidated(std::string_view pass,
                                        const ::llvm::PreservedAnalyses& preserved) noexcept {
  const Nanoseconds t = now();
  if (stopped_) return;
  try {
    // The unit may have been deleted: its size after the pass is not
    // measured, but what the pass returned is known.
    if (count_ir_) [[unlikely]] {
      state().note_ir(kNotMeasured, ir_flags_of(preserved));
    }
    state().end(t, {pass, kPipelineThread, 0, nullptr, clock_});
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
}

void PassTiming::skipped_pass(std::string_view pass, const ::llvm::Any& ir) noexcept {
  if (stopped_ && !open_at_first_pass(ir)) return;
  try {
    std::string_view kernel = ir_unit_label(ir, scratch_label_, scratch_symbols_);
    state().skip(now(), pass, kernel, kPipelineThread);
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
}

void PassTiming::stop(const char* what) noexcept {
  stopped_ = true;
  // The records so far stay; the running frames can no longer be trusted.
  // A stack buffer, because the usual cause is that memory ran out.
  char message[256];
  std::snprintf(message, sizeof message,
                "pass timing stopped after an internal error (%s); the compile goes on untimed",
                what ? what : "unknown error");
  // The recorder made its logger already: finding it allocates nothing.
  get_logger(timing_logger_name(recorder_->settings().source)).error(message);
}

bool PassTiming::open_at_first_pass(const ::llvm::Any& ir) noexcept {
  if (!module_context_ || finished_) return false;
  try {
    ModuleContext label = std::move(module_context_);
    module_context_ = nullptr;
    recorder_->set_context_label(label(ir_module_identifier(ir)));
    recorder_->begin_context();
    stopped_ = false;
    return true;
  } catch (const std::exception& e) {
    stop(e.what());
  } catch (...) {
    stop("unknown error");
  }
  return false;
}

const Section& PassTiming::finish() {
  if (!finished_) {
    // A pipeline that ran no pass still has its (empty) section.
    if (module_context_) {
      module_context_ = nullptr;
      recorder_->begin_context();
    }
    finished_ = true;
    // Later callbacks find the instrument stopped, which every callback
    // tests already: finishing costs the hot path nothing.
    stopped_ = true;
    recorder_->finish_context();
  }
  return recorder_->section();
}

}  // namespace passtiming::llvm
