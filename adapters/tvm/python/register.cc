/// \file
/// libpasstiming_tvm.so: the TVM adapter for the `passtiming` Python package.
/// `passtiming.tvm` loads it with ctypes once tvm-ffi is loaded; loading
/// registers tvm-ffi global functions, so the instrument reaches Python
/// as TVM's own `tvm.ir.instrument.PassInstrument` object:
///
///   passtiming.tvm.make_pass_instrument(sink_address, name) -> PassInstrument
///   passtiming.tvm.kernel_label(mod) -> str
///   passtiming.tvm.ir_node_count(mod) -> int   (the `ir` metric's size)
///   passtiming.tvm.ir_structural_hash(mod) -> int or None
///
/// `sink_address` is the address of a std::shared_ptr<PassEventSink> owned
/// by the `passtiming` extension module, which made the sink: the callbacks
/// then run that module's code on that module's state. This library links
/// no Python and shares nothing else with the extension.

#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "passtiming/tvm.h"

namespace {
namespace ffi = ::tvm::ffi;

ffi::ObjectRef make_pass_instrument(std::int64_t sink_address, ffi::String name) {
  if (sink_address == 0) throw std::invalid_argument("passtiming: no event sink");
  const auto* sink =
      reinterpret_cast<const std::shared_ptr<passtiming::PassEventSink>*>(sink_address);
  return passtiming::tvm::make_pass_instrument(*sink, std::string_view(name.data(), name.size()));
}

ffi::String kernel_label(ffi::Any mod) {
  return ffi::String(passtiming::tvm::kernel_label(mod));
}

std::int64_t ir_node_count(ffi::Any mod) {
  return passtiming::tvm::ir_node_count(mod);
}

/// The hash, or None when the module's types cannot be hashed.
ffi::Any ir_structural_hash(ffi::Any mod) {
  const std::optional<std::uint64_t> hash = passtiming::tvm::ir_structural_hash(mod);
  if (!hash) return ffi::Any();
  // As an int64: Python turns it back into the unsigned value if needed.
  return static_cast<std::int64_t>(*hash);
}

// Registered when the library is loaded. Loading it twice (two copies of the
// package) overrides with identical functions.
__attribute__((constructor)) void register_functions() {
  ffi::Function::SetGlobal("passtiming.tvm.make_pass_instrument",
                           ffi::Function::FromTyped(make_pass_instrument), /*override=*/true);
  ffi::Function::SetGlobal("passtiming.tvm.kernel_label", ffi::Function::FromTyped(kernel_label),
                           /*override=*/true);
  ffi::Function::SetGlobal("passtiming.tvm.ir_node_count", ffi::Function::FromTyped(ir_node_count),
                           /*override=*/true);
  ffi::Function::SetGlobal("passtiming.tvm.ir_structural_hash",
                           ffi::Function::FromTyped(ir_structural_hash), /*override=*/true);
}

}  // namespace
