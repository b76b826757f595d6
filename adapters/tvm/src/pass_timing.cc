/// \file
/// The native PassInstrument: four tvm-ffi functions over a PassEventSink,
/// handed to TVM's own `instrument.PassInstrument` constructor.

#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pass_name_view.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/tvm.h"
#include "remembered_label.h"

namespace passtiming::tvm {
namespace ffi = ::tvm::ffi;
namespace {

constexpr const char* kConstructor = "instrument.PassInstrument";

/// A pass name as the sink takes it: the PassInfo's `name`, or "" when the
/// host passed something else (the sink then records an unnamed pass rather
/// than failing the compile). Valid for the callback.
std::string_view name_of(const ffi::PackedArgs& args) noexcept {
  return args.size() > 1 ? detail::pass_name_view(args[1]) : std::string_view();
}

/// The structural hash of the module before each running pass, innermost
/// last, for the `ir` metric's "changed". Per thread, since TVM runs a
/// PassContext's passes on the thread that entered it; `sink` tells apart
/// two instruments in one context.
struct HashFrame {
  const PassEventSink* sink;
  std::optional<std::uint64_t> hash;
};
thread_local std::vector<HashFrame> hash_frames;

/// Drops `sink`'s frames (a pass that threw never reached its after-callback).
void drop_hash_frames(const PassEventSink* sink) noexcept {
  std::erase_if(hash_frames, [sink](const HashFrame& frame) { return frame.sink == sink; });
}

/// The before-pass measure: the module's size to the sink, its hash kept.
void note_ir_before(PassEventSink& events, const ffi::PackedArgs& args) noexcept {
  const ffi::AnyView mod = args.size() > 0 ? args[0] : ffi::AnyView();
  try {
    hash_frames.push_back(HashFrame{&events, ir_structural_hash(mod)});
  } catch (...) {
    // Out of memory: this pass's change stays unknown.
  }
  events.note_ir(ir_node_count(mod), 0);
}

/// The after-pass measure, called by the sink once it has read the clock.
struct AfterPass {
  const PassEventSink* events;
  ffi::AnyView mod;

  static std::int64_t count(void* context, std::uint8_t& flags) noexcept {
    const auto& self = *static_cast<const AfterPass*>(context);
    std::optional<std::uint64_t> before;
    for (auto frame = hash_frames.rbegin(); frame != hash_frames.rend(); ++frame) {
      if (frame->sink != self.events) continue;
      before = frame->hash;
      hash_frames.erase(std::next(frame).base());
      break;
    }
    if (before) {
      if (std::optional<std::uint64_t> after = ir_structural_hash(self.mod)) {
        flags = kIrChangeKnown | (*after != *before ? kIrChanged : 0);
      }
    }
    return ir_node_count(self.mod);
  }
};

/// What the four callbacks share: the sink, and whether it records the
/// `ir` metric in the current context. That is asked once, as the context
/// is entered (a sink takes new metrics for the contexts entered after
/// them), so that a pass costs no virtual call into the sink for it: a
/// cache line of code the pass before has evicted, twice a pass.
struct Callbacks {
  explicit Callbacks(std::shared_ptr<PassEventSink> sink)
      : events(std::move(sink)), counts_ir(events->records_ir_size()) {}
  std::shared_ptr<PassEventSink> events;
  /// Atomic only for a second thread's callbacks, which the sink refuses.
  std::atomic<bool> counts_ir;
};

}  // namespace

ffi::ObjectRef make_pass_instrument(std::shared_ptr<PassEventSink> events, std::string_view name) {
  if (!events) throw std::invalid_argument("passtiming::tvm::make_pass_instrument: no event sink");
  std::optional<ffi::Function> constructor = ffi::Function::GetGlobal(kConstructor);
  if (!constructor) {
    throw std::runtime_error(std::string("passtiming: TVM's function '") + kConstructor +
                             "' is not registered in this process; load TVM (import tvm, or "
                             "tilelang) before creating the pass timing instrument");
  }
  // Each callback owns a reference to the shared state, never to a
  // wrapper, so the PassContext may outlive whatever made the instrument.
  auto shared = std::make_shared<Callbacks>(std::move(events));
  auto enter = ffi::Function::FromPacked([shared](ffi::PackedArgs, ffi::Any*) {
    drop_hash_frames(shared->events.get());
    detail::forget_remembered_label();
    shared->counts_ir.store(shared->events->records_ir_size(), std::memory_order_relaxed);
    shared->events->enter_pass_ctx();
  });
  auto exit = ffi::Function::FromPacked([shared](ffi::PackedArgs, ffi::Any*) {
    shared->events->exit_pass_ctx();
    drop_hash_frames(shared->events.get());
    detail::forget_remembered_label();
  });
  auto before = ffi::Function::FromPacked([shared](ffi::PackedArgs args, ffi::Any*) {
    PassEventSink& events = *shared->events;
    // Name, label and IR size are read before the sink reads the clock.
    const std::string_view pass = name_of(args);
    const std::string_view kernel =
        args.size() > 0 ? detail::remembered_kernel_label(args[0]) : std::string_view();
    if (shared->counts_ir.load(std::memory_order_relaxed)) [[unlikely]] {
      note_ir_before(events, args);
    }
    events.run_before_pass(pass, kernel);
  });
  auto after = ffi::Function::FromPacked([shared](ffi::PackedArgs args, ffi::Any*) {
    PassEventSink& events = *shared->events;
    const std::string_view pass = name_of(args);
    if (shared->counts_ir.load(std::memory_order_relaxed)) [[unlikely]] {
      // The sink reads the clock, then has the module measured.
      AfterPass measure{&events, args.size() > 0 ? args[0] : ffi::AnyView()};
      events.run_after_pass_counting_ir(pass, &AfterPass::count, &measure);
      return;
    }
    events.run_after_pass(pass);
  });
  ffi::Any instrument =
      (*constructor)(ffi::String(std::string(name)), enter, exit, ffi::Any(), before, after);
  return instrument.cast<ffi::ObjectRef>();
}

}  // namespace passtiming::tvm
