#pragma once
/// \file
/// The pass name as the native instrument reads it, twice a pass: pass_name()
/// (passtiming/tvm.h), remembered on the thread by the PassInfo object. TVM
/// hands a pass the same PassInfo before and after it runs, so the name is
/// read through reflection once per pass object and context rather than at
/// every callback.

#include <tvm/ffi/any.h>

#include <string_view>

namespace passtiming::tvm::detail {

/// pass_name(info), exactly; "" when `info` is not an object or its name
/// cannot be read. A PassInfo seen before on this thread gives the name
/// remembered then: the PassInfo is held (one reference) until
/// forget_remembered_names(), so its address cannot be reused by another,
/// and TVM never changes a PassInfo it shares. The view is valid until the
/// next call on this thread. Never throws.
std::string_view remembered_pass_name(::tvm::ffi::AnyView info) noexcept;

/// Lets go of the PassInfo objects this thread holds: called when a
/// PassContext is entered and left, so that no pass is kept beyond its
/// context.
void forget_remembered_names() noexcept;

}  // namespace passtiming::tvm::detail
