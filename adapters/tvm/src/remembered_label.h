#pragma once
/// \file
/// The kernel label as the native instrument reads it before every pass:
/// kernel_label() (passtiming/tvm.h), with the function's global symbol
/// remembered on the thread by the function's attribute dictionary.

#include <tvm/ffi/any.h>

#include <string_view>

namespace passtiming::tvm::detail {

/// kernel_label(mod), exactly. For a module of one function whose
/// attribute dictionary is the one seen last on this thread, the symbol
/// read then is given again without reading the dictionary: a pass that
/// rewrites a function's body keeps its attributes object, and that object
/// is held (one reference) until forget_remembered_label(), so its address
/// cannot be reused by another, and a copy-on-write change of it makes a new
/// object. The view is valid until the next call on this thread. Never
/// throws.
std::string_view remembered_kernel_label(::tvm::ffi::AnyView mod) noexcept;

/// Lets go of the attribute dictionary this thread holds, if any: called
/// when a PassContext is entered and left, so that no user IR is kept
/// beyond its context.
void forget_remembered_label() noexcept;

}  // namespace passtiming::tvm::detail
