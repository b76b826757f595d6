#pragma once
/// \file
/// Reading a TVM object's reflected field by name, wherever in the object's
/// type hierarchy the field is declared (`attrs` is BaseFunc's, not
/// PrimFunc's). Names, not C++ types: the adapter never includes TVM's own
/// headers, only tvm-ffi's, so it works on any TVM built on that ABI.

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>

#include <cstdint>
#include <string_view>

namespace passtiming::tvm::detail {

/// One field name, looked up per object type and remembered per thread for
/// the last type seen (a pass pipeline shows the same few types again and
/// again).
///
///     static const FieldReader name("name");
///     tvm::ffi::Any value = name.read(pass_info);
class FieldReader {
 public:
  explicit constexpr FieldReader(std::string_view name) : name_(name) {}

  /// The field's value; None when `object` is null or its type has no field
  /// of this name. Throws tvm::ffi::Error when the field's getter fails.
  ::tvm::ffi::Any read(const ::tvm::ffi::Object* object) const;

 private:
  /// The field of this name in the type `type_index` or its ancestors.
  const TVMFFIFieldInfo* find(std::int32_t type_index) const;

  std::string_view name_;
};

}  // namespace passtiming::tvm::detail
