/// \file
/// The native PassInstrument: four tvm-ffi functions over a PassEventSink,
/// handed to TVM's own `instrument.PassInstrument` constructor.

#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "passtiming/tvm.h"

namespace passtiming::tvm {
namespace ffi = ::tvm::ffi;
namespace {

constexpr const char* kConstructor = "instrument.PassInstrument";

/// A pass name as the sink takes it: the PassInfo's `name`, or "" when the
/// host passed something else (the sink then records an unnamed pass rather
/// than failing the compile).
ffi::String name_of(const ffi::PackedArgs& args) noexcept {
  try {
    if (args.size() > 1) return pass_name(args[1]);
  } catch (...) {
  }
  return ffi::String();
}

std::string_view view(const ffi::String& text) {
  return {text.data(), text.size()};
}

}  // namespace

ffi::ObjectRef make_pass_instrument(std::shared_ptr<PassEventSink> events, std::string_view name) {
  if (!events) throw std::invalid_argument("passtiming::tvm::make_pass_instrument: no event sink");
  std::optional<ffi::Function> constructor = ffi::Function::GetGlobal(kConstructor);
  if (!constructor) {
    throw std::runtime_error(std::string("passtiming: TVM's function '") + kConstructor +
                             "' is not registered in this process; load TVM (import tvm, or "
                             "tilelang) before creating the pass timing instrument");
  }
  // Each callback owns a reference to the sink, never to a wrapper, so the
  // PassContext may outlive whatever made the instrument.
  auto enter =
      ffi::Function::FromPacked([events](ffi::PackedArgs, ffi::Any*) { events->enter_pass_ctx(); });
  auto exit =
      ffi::Function::FromPacked([events](ffi::PackedArgs, ffi::Any*) { events->exit_pass_ctx(); });
  auto before = ffi::Function::FromPacked([events](ffi::PackedArgs args, ffi::Any*) {
    // Name and label are read before the sink reads the clock.
    const ffi::String pass = name_of(args);
    const std::string kernel = args.size() > 0 ? kernel_label(args[0]) : std::string();
    events->run_before_pass(view(pass), kernel);
  });
  auto after = ffi::Function::FromPacked([events](ffi::PackedArgs args, ffi::Any*) {
    const ffi::String pass = name_of(args);
    events->run_after_pass(view(pass));
  });
  ffi::Any instrument =
      (*constructor)(ffi::String(std::string(name)), enter, exit, ffi::Any(), before, after);
  return instrument.cast<ffi::ObjectRef>();
}

}  // namespace passtiming::tvm
