#include "object_fields.h"

#include <tvm/ffi/string.h>

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

/// One type's field, immutable once published but for `borrow`, which
/// any thread may learn (each learns the same answer).
struct FieldReader::Remembered {
  /// Whether the field's storage is the value its getter gives.
  enum class Borrow : std::uint8_t { unknown, yes, no };
  std::int32_t type_index;
  const TVMFFIFieldInfo* field;  ///< type infos are never freed
  Remembered* next;
  std::atomic<Borrow> borrow{Borrow::unknown};
};

FieldReader::Remembered& FieldReader::find(std::int32_t type_index) const {
  Remembered* last = last_.load(std::memory_order_acquire);
  if (last != nullptr && last->type_index == type_index) [[likely]]
    return *last;
  return find_slow(type_index);
}

FieldReader::Remembered& FieldReader::find_slow(std::int32_t type_index) const {
  for (Remembered* r = learnt_.load(std::memory_order_acquire); r != nullptr; r = r->next) {
    if (r->type_index == type_index) {
      last_.store(r, std::memory_order_release);
      return *r;
    }
  }
  const TVMFFITypeInfo* type = TVMFFIGetTypeInfo(type_index);
  const TVMFFIFieldInfo* field = nullptr;
  if (type != nullptr) {
    // The type's own fields first, then its ancestors' from the nearest up.
    field = own_field(type, name_);
    for (std::int32_t depth = type->type_depth - 1; field == nullptr && depth >= 0; --depth) {
      field = own_field(type->type_ancestors[depth], name_);
    }
  }
  // Two threads learning one type at once both publish it; the list keeps
  // both, which costs a node and nothing else.
  auto* learnt = new Remembered{type_index, field, learnt_.load(std::memory_order_relaxed)};
  while (!learnt_.compare_exchange_weak(learnt->next, learnt, std::memory_order_release,
                                        std::memory_order_relaxed)) {
  }
  last_.store(learnt, std::memory_order_release);
  return *learnt;
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

void FieldReader::remember_borrowable(std::int32_t type_index, std::int64_t offset) const {
  // An offset past 31 bits (never seen) is not remembered: the slow path
  // serves it.
  if (offset < 0 || offset >= (std::int64_t{1} << 31)) return;
  borrowable_.store((std::uint64_t{static_cast<std::uint32_t>(type_index)} << 32) |
                        (static_cast<std::uint64_t>(offset) << 1) | 1u,
                    std::memory_order_relaxed);
}

std::optional<const ::tvm::ffi::Object*> FieldReader::borrow_slow(
    const ::tvm::ffi::Object* object) const {
  Remembered& slot = find(object->type_index());
  if (slot.field == nullptr || slot.field->getter == nullptr) return std::nullopt;
  using Borrow = Remembered::Borrow;
  const Borrow known = slot.borrow.load(std::memory_order_relaxed);
  if (known == Borrow::no) return std::nullopt;
  // An object reference is one pointer to the object; read it in place.
  const auto* stored = *reinterpret_cast<const ::tvm::ffi::Object* const*>(
      reinterpret_cast<const char*>(object) + slot.field->offset);
  if (known == Borrow::yes) {
    remember_borrowable(slot.type_index, slot.field->offset);
    return stored;
  }
  // Not known yet: the getter's value tells, once it is an object.
  const ::tvm::ffi::Any value = get(*slot.field, object);
  const ::tvm::ffi::Object* given = object_of(value);
  if (given == nullptr) return std::nullopt;
  slot.borrow.store(given == stored ? Borrow::yes : Borrow::no, std::memory_order_relaxed);
  if (given != stored) return std::nullopt;
  remember_borrowable(slot.type_index, slot.field->offset);
  return stored;
}

std::optional<std::string_view> FieldReader::borrow_text_slow(
    const ::tvm::ffi::Object* object) const {
  Remembered& slot = find(object->type_index());
  if (slot.field == nullptr || slot.field->getter == nullptr) return std::nullopt;
  using Borrow = Remembered::Borrow;
  const Borrow known = slot.borrow.load(std::memory_order_relaxed);
  if (known == Borrow::no) return std::nullopt;
  // A String, and an Any, is one tagged cell; the tag is checked at every
  // read, so a cell that holds something else is never taken for text.
  const std::optional<std::string_view> text = cell_text(*reinterpret_cast<const TVMFFIAny*>(
      reinterpret_cast<const char*>(object) + slot.field->offset));
  if (!text) return text;
  if (known == Borrow::yes) {
    remember_borrowable(slot.type_index, slot.field->offset);
    return text;
  }
  // Not known yet: the getter's value tells. A string object must be the
  // very one stored (its bytes at the same address); short inline text,
  // equal.
  const ::tvm::ffi::Any value = get(*slot.field, object);
  const std::optional<::tvm::ffi::String> given = value.try_cast<::tvm::ffi::String>();
  const bool same = given && (given->data() == text->data() ||
                              (text->size() < sizeof(TVMFFIAny{}.v_bytes) &&
                               std::string_view(given->data(), given->size()) == *text));
  slot.borrow.store(same ? Borrow::yes : Borrow::no, std::memory_order_relaxed);
  if (!same) return std::nullopt;
  remember_borrowable(slot.type_index, slot.field->offset);
  return text;
}

}  // namespace passtiming::tvm::detail
