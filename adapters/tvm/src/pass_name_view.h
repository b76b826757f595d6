#pragma once
/// \file
/// The pass name as the native instrument reads it, twice a pass: the text
/// of pass_name() (passtiming/tvm.h), read in place from the PassInfo.

#include <tvm/ffi/any.h>

#include <string_view>

namespace passtiming::tvm::detail {

/// pass_name(info)'s text, exactly; "" when `info` is not an object or its
/// name cannot be read. Read from the PassInfo's own storage where its type
/// stores the name as a string (FieldReader::borrow_text): no getter, no
/// reference count, no copy, so the view is valid while `info` lives and
/// its name is not assigned, which covers a callback. Otherwise read by
/// pass_name() into a per-thread copy, valid until the next call on this
/// thread. Never throws.
std::string_view pass_name_view(::tvm::ffi::AnyView info) noexcept;

}  // namespace passtiming::tvm::detail
