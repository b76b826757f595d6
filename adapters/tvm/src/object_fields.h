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

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace passtiming::tvm::detail {

/// The object `value` holds, or null when it holds none: what
/// `value.as<tvm::ffi::Object>()` gives, without the type-table lookup that
/// `as` makes on the way (it tests the object against `const Object` as
/// against any base class: a call into libtvm_ffi and a read of its type
/// table, where every object is an Object). The pass callbacks ask it four
/// times a pass.
inline const ::tvm::ffi::Object* object_of(::tvm::ffi::AnyView value) noexcept {
  if (value.type_index() < ::tvm::ffi::TypeIndex::kTVMFFIStaticObjectBegin) return nullptr;
  return reinterpret_cast<const ::tvm::ffi::Object*>(value.CopyToTVMFFIAny().v_obj);
}

/// One field name, looked up once per object type and remembered for the
/// process (a pass pipeline shows the same few types again and again).
///
///     static const FieldReader name("name");
///     tvm::ffi::Any value = name.read(pass_info);
class FieldReader {
 public:
  explicit constexpr FieldReader(std::string_view name) : name_(name) {}

  /// The field's value; None when `object` is null or its type has no field
  /// of this name. Throws tvm::ffi::Error when the field's getter fails.
  ::tvm::ffi::Any read(const ::tvm::ffi::Object* object) const;

  /// The object the field holds, borrowed: read from the field's storage
  /// without calling its getter or taking a reference, so valid while
  /// `object` lives and the field is not assigned. Null when the field holds
  /// none. Nullopt when that storage is not known to be one object pointer
  /// (an unknown type, a value that is not an object, a getter that makes
  /// its value): read() then. Whether a type's field may be borrowed is
  /// learnt by comparing the storage with the getter's value the first time
  /// it holds an object. Throws as read() does.
  std::optional<const ::tvm::ffi::Object*> borrow(const ::tvm::ffi::Object* object) const {
    if (object == nullptr) return nullptr;
    if (const std::optional<std::int64_t> offset = known_borrowable(object->type_index())) {
      return *reinterpret_cast<const ::tvm::ffi::Object* const*>(
          reinterpret_cast<const char*>(object) + *offset);
    }
    return borrow_slow(object);
  }

  /// The text of a string field, read from the field's storage without
  /// calling its getter or taking a reference: valid while `object` lives
  /// and the field is not assigned. Nullopt when the storage does not hold a
  /// string now, or is not known to be the field's value (read() then);
  /// whether it is, is learnt as borrow() learns it, by comparing
  /// the storage with the getter's value the first time it holds text.
  /// Throws as read() does.
  std::optional<std::string_view> borrow_text(const ::tvm::ffi::Object* object) const {
    if (object == nullptr) return std::nullopt;
    if (const std::optional<std::int64_t> offset = known_borrowable(object->type_index())) {
      return cell_text(
          *reinterpret_cast<const TVMFFIAny*>(reinterpret_cast<const char*>(object) + *offset));
    }
    return borrow_text_slow(object);
  }

 private:
  struct Remembered;
  /// What is remembered of this field in the type `type_index` or its
  /// ancestors (its `field` null when there is none).
  Remembered& find(std::int32_t type_index) const;
  /// find() past the last type: looks the type up, or learns it.
  Remembered& find_slow(std::int32_t type_index) const;
  // borrow() and borrow_text() are inline up to here, the known type's read
  // (a pass's name is read twice a pass, between passes that have evicted
  // the callbacks' code): learning a type, and any other type, is not.
  std::optional<const ::tvm::ffi::Object*> borrow_slow(const ::tvm::ffi::Object* object) const;
  std::optional<std::string_view> borrow_text_slow(const ::tvm::ffi::Object* object) const;
  /// The text of a string held in a tagged cell, the layout of both a
  /// String and an Any: the short text inline, or a string object. Nullopt
  /// when the cell holds something else.
  static std::optional<std::string_view> cell_text(const TVMFFIAny& cell) {
    if (cell.type_index == ::tvm::ffi::TypeIndex::kTVMFFISmallStr) {
      return std::string_view(cell.v_bytes, cell.small_str_len);
    }
    if (cell.type_index == ::tvm::ffi::TypeIndex::kTVMFFIStr) {
      const TVMFFIByteArray* bytes = TVMFFIBytesGetByteArrayPtr(cell.v_obj);
      return std::string_view(bytes->data, bytes->size);
    }
    return std::nullopt;
  }
  /// The field's offset in objects of `type_index` when the field is known
  /// to be borrowable there, from one load of `borrowable_`.
  std::optional<std::int64_t> known_borrowable(std::int32_t type_index) const {
    const std::uint64_t word = borrowable_.load(std::memory_order_relaxed);
    if ((word & 1) == 0 ||
        static_cast<std::uint32_t>(word >> 32) != static_cast<std::uint32_t>(type_index)) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>((word & 0xFFFF'FFFFu) >> 1);
  }
  /// Makes `type_index` the type known_borrowable() answers.
  void remember_borrowable(std::int32_t type_index, std::int64_t offset) const;

  std::string_view name_;
  /// The types learnt, newest first, never freed: a reader is a static, and
  /// a process shows a bounded set of types. Written under a lock, read
  /// without one.
  mutable std::atomic<Remembered*> learnt_{nullptr};
  /// The type of the last read, so that a run of one type costs one load.
  mutable std::atomic<Remembered*> last_{nullptr};
  /// The last type whose field was learnt to be borrowable, with the
  /// field's offset, in one word: (type index << 32) | (offset << 1) | 1, or
  /// 0. A borrow of that type then touches nothing but this word and the
  /// object: the pass callbacks run between passes that have evicted the
  /// reader's other state from the cache.
  mutable std::atomic<std::uint64_t> borrowable_{0};
};

}  // namespace passtiming::tvm::detail
