#include "object_fields.h"

namespace passtiming::tvm::detail {
namespace {

const TVMFFIFieldInfo* own_field(const TVMFFITypeInfo* type, std::string_view name) {
  for (std::int32_t i = 0; i < type->num_fields; ++i) {
    const TVMFFIFieldInfo& field = type->fields[i];
    if (std::string_view(field.name.data, field.name.size) == name) return &field;
  }
  return nullptr;
}

}  // namespace

/// A slot per thread, shared by the readers that hash to it: type infos are
/// never freed, so a remembered pointer stays valid, and threads never share
/// a slot.
struct FieldReader::Remembered {
  /// Whether the field's storage is the object its getter gives.
  enum class Borrow : std::uint8_t { unknown, yes, no };
  const FieldReader* reader = nullptr;
  std::int32_t type_index = -1;
  const TVMFFIFieldInfo* field = nullptr;
  Borrow borrow = Borrow::unknown;
};

FieldReader::Remembered& FieldReader::find(std::int32_t type_index) const {
  // Direct-mapped by a Fibonacci hash of the reader's address: readers
  // defined side by side (every read of a kernel label uses four) land in
  // different slots, so a pipeline's reads all hit once each type is seen.
  constexpr unsigned kSlotBits = 4;
  thread_local Remembered remembered[1u << kSlotBits];
  const auto key =
      static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(this) / sizeof(FieldReader));
  Remembered& slot = remembered[(key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
  if (slot.reader == this && slot.type_index == type_index) return slot;

  const TVMFFITypeInfo* type = TVMFFIGetTypeInfo(type_index);
  const TVMFFIFieldInfo* field = nullptr;
  if (type != nullptr) {
    // The type's own fields first, then its ancestors' from the nearest up.
    field = own_field(type, name_);
    for (std::int32_t depth = type->type_depth - 1; field == nullptr && depth >= 0; --depth) {
      field = own_field(type->type_ancestors[depth], name_);
    }
  }
  slot = {this, type_index, field, Remembered::Borrow::unknown};
  return slot;
}

namespace {

::tvm::ffi::Any get(const TVMFFIFieldInfo& field, const ::tvm::ffi::Object* object) {
  ::tvm::ffi::Any value;
  void* address = const_cast<char*>(reinterpret_cast<const char*>(object)) + field.offset;
  TVM_FFI_CHECK_SAFE_CALL(field.getter(address, reinterpret_cast<TVMFFIAny*>(&value)));
  return value;
}

}  // namespace

::tvm::ffi::Any FieldReader::read(const ::tvm::ffi::Object* object) const {
  if (object == nullptr) return {};
  const TVMFFIFieldInfo* field = find(object->type_index()).field;
  if (field == nullptr || field->getter == nullptr) return {};
  return get(*field, object);
}

std::optional<const ::tvm::ffi::Object*> FieldReader::borrow(
    const ::tvm::ffi::Object* object) const {
  if (object == nullptr) return nullptr;
  Remembered& slot = find(object->type_index());
  if (slot.field == nullptr || slot.field->getter == nullptr) return std::nullopt;
  using Borrow = Remembered::Borrow;
  if (slot.borrow == Borrow::no) return std::nullopt;
  // An object reference is one pointer to the object; read it in place.
  const auto* stored = *reinterpret_cast<const ::tvm::ffi::Object* const*>(
      reinterpret_cast<const char*>(object) + slot.field->offset);
  if (slot.borrow == Borrow::yes) return stored;
  // Not known yet: the getter's value tells, once it is an object.
  const ::tvm::ffi::Any value = get(*slot.field, object);
  const ::tvm::ffi::Object* given = value.as<::tvm::ffi::Object>();
  if (given == nullptr) return std::nullopt;
  slot.borrow = given == stored ? Borrow::yes : Borrow::no;
  if (slot.borrow == Borrow::no) return std::nullopt;
  return stored;
}

}  // namespace passtiming::tvm::detail
