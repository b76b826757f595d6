/// \file
/// The `ir` metric of a TVM IRModule: its objects counted by a walk of
/// tvm-ffi's reflection, and tvm-ffi's structural hash to tell whether a
/// pass changed the module.

#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/extra/structural_hash.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "object_fields.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/tvm.h"

namespace passtiming::tvm {
namespace ffi = ::tvm::ffi;
namespace {

/// How the walk reads one reflected field.
struct FieldAccess {
  std::int64_t offset;
  /// The field holds an ObjectRef (a node, an Array, a Map): its object
  /// pointer is read in place. Otherwise the field's getter is called and
  /// its value looked at (an Any, an Optional, a Variant, a String).
  bool object_ref;
  TVMFFIFieldGetter getter;
};

/// Whether a field of this static type may hold an object the walk follows.
/// Plain values (ints, floats, data types, devices, raw pointers) never do.
bool may_hold_object(std::int32_t static_type_index) {
  return static_type_index == ffi::TypeIndex::kTVMFFIAny ||
         static_type_index >= ffi::TypeIndex::kTVMFFIStaticObjectBegin;
}

bool stored_as_object_ref(std::int32_t static_type_index) {
  switch (static_type_index) {
    case ffi::TypeIndex::kTVMFFIObject:
    case ffi::TypeIndex::kTVMFFIArray:
    case ffi::TypeIndex::kTVMFFIList:
    case ffi::TypeIndex::kTVMFFIMap:
    case ffi::TypeIndex::kTVMFFIDict: return true;
    default: return static_type_index >= ffi::TypeIndex::kTVMFFIDynObjectBegin;
  }
}

void add_fields(const TVMFFITypeInfo* type, std::vector<FieldAccess>& out) {
  for (std::int32_t i = 0; i < type->num_fields; ++i) {
    const TVMFFIFieldInfo& field = type->fields[i];
    // What structural equality ignores (spans, source maps) is not the IR.
    if (field.flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
    if (!may_hold_object(field.field_static_type_index)) continue;
    const bool in_place = stored_as_object_ref(field.field_static_type_index);
    if (!in_place && field.getter == nullptr) continue;
    out.push_back(FieldAccess{field.offset, in_place, field.getter});
  }
}

/// The fields the walk reads for objects of type `type_index` (≥
/// kTVMFFIDynObjectBegin): the type's own and its ancestors'. Per thread,
/// built on the type's first sight; type infos are never freed.
const std::vector<FieldAccess>& fields_of(std::int32_t type_index) {
  thread_local std::vector<std::optional<std::vector<FieldAccess>>> by_type;
  const std::size_t slot =
      static_cast<std::size_t>(type_index - ffi::TypeIndex::kTVMFFIDynObjectBegin);
  if (slot >= by_type.size()) by_type.resize(slot + 1);
  std::optional<std::vector<FieldAccess>>& fields = by_type[slot];
  if (!fields) {
    fields.emplace();
    if (const TVMFFITypeInfo* type = TVMFFIGetTypeInfo(type_index)) {
      for (std::int32_t depth = 0; depth < type->type_depth; ++depth) {
        if (type->type_ancestors[depth] != nullptr)
          add_fields(type->type_ancestors[depth], *fields);
      }
      add_fields(type, *fields);
    }
  }
  return *fields;
}

/// A set of object addresses: open addressing, linear probing, kept per
/// thread and cleared between walks so that a walk allocates nothing once
/// the set has grown to the module's size.
class AddressSet {
 public:
  void clear() {
    if (size_ == 0) return;
    std::fill(slots_.begin(), slots_.end(), nullptr);
    size_ = 0;
  }
  /// False when `address` was already in the set.
  bool insert(const void* address) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = index_of(address);
    while (slots_[i] != nullptr) {
      if (slots_[i] == address) return false;
      i = (i + 1) & (slots_.size() - 1);
    }
    slots_[i] = address;
    ++size_;
    return true;
  }

 private:
  std::size_t index_of(const void* address) const {
    // Objects are 8-byte aligned: drop those bits, then mix.
    std::uint64_t h = reinterpret_cast<std::uintptr_t>(address) >> 3;
    h *= 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> 32) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<const void*> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, nullptr);
    size_ = 0;
    for (const void* address : old) {
      if (address != nullptr) insert(address);
    }
  }

  std::vector<const void*> slots_;
  std::size_t size_ = 0;
};

class NodeCounter {
 public:
  std::int64_t count(const ffi::Object* root) {
    seen_.clear();
    pending_.clear();
    std::int64_t nodes = 0;
    visit(root);
    while (!pending_.empty()) {
      const ffi::Object* object = pending_.back();
      pending_.pop_back();
      const std::int32_t type_index = object->type_index();
      if (type_index >= ffi::TypeIndex::kTVMFFIDynObjectBegin) {
        ++nodes;
        walk_fields(object, type_index);
      } else if (type_index == ffi::TypeIndex::kTVMFFIArray ||
                 type_index == ffi::TypeIndex::kTVMFFIList) {
        for (const ffi::Any& element : *static_cast<const ffi::SeqBaseObj*>(object)) {
          visit(element);
        }
      } else if (type_index == ffi::TypeIndex::kTVMFFIMap ||
                 type_index == ffi::TypeIndex::kTVMFFIDict) {
        for (const auto& [key, value] : *static_cast<const ffi::MapBaseObj*>(object)) {
          visit(key);
          visit(value);
        }
      }
    }
    return nodes;
  }

 private:
  void visit(const ffi::Object* object) {
    if (object != nullptr && seen_.insert(object)) pending_.push_back(object);
  }
  void visit(const ffi::Any& value) {
    if (value.type_index() >= ffi::TypeIndex::kTVMFFIStaticObjectBegin) {
      visit(detail::object_of(value));
    }
  }
  void walk_fields(const ffi::Object* object, std::int32_t type_index) {
    const char* base = reinterpret_cast<const char*>(object);
    for (const FieldAccess& field : fields_of(type_index)) {
      if (field.object_ref) {
        visit(*reinterpret_cast<const ffi::Object* const*>(base + field.offset));
        continue;
      }
      ffi::Any value;
      void* address = const_cast<char*>(base + field.offset);
      if (field.getter(address, reinterpret_cast<TVMFFIAny*>(&value)) != 0) {
        // The getter raised an error for its caller: dropped, and the field
        // skipped.
        TVMFFIObjectHandle error = nullptr;
        TVMFFIErrorMoveFromRaised(&error);
        if (error != nullptr) TVMFFIObjectDecRef(error);
        continue;
      }
      // The object stays alive after `value` goes: its owner holds it.
      visit(value);
    }
  }

  AddressSet seen_;
  std::vector<const ffi::Object*> pending_;
};

}  // namespace

std::int64_t ir_node_count(ffi::AnyView mod) noexcept {
  try {
    const ffi::Object* root = detail::object_of(mod);
    if (root == nullptr) return kNotMeasured;
    thread_local NodeCounter counter;
    return counter.count(root);
  } catch (...) {
    return kNotMeasured;
  }
}

std::optional<std::uint64_t> ir_structural_hash(ffi::AnyView mod) noexcept {
  try {
    if (detail::object_of(mod) == nullptr) return std::nullopt;
    return ffi::StructuralHash::Hash(ffi::Any(mod), /*map_free_vars=*/false,
                                     /*skip_tensor_content=*/true);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace passtiming::tvm
