#include "remembered_name.h"

#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstring>

#include "passtiming/tvm.h"

namespace passtiming::tvm::detail {
namespace {

namespace ffi = ::tvm::ffi;

/// One remembered name. Trivially destructible: the held PassInfo is let go
/// of by forget_remembered_names(), never by a destructor at thread exit,
/// which could run after the library that frees it is gone. The name is
/// copied, not pointed at: a short ffi::String keeps its characters inside
/// the handle that was read, not in the PassInfo.
struct RememberedName {
  static constexpr std::size_t kCapacity = 94;
  const ffi::Object* info = nullptr;  ///< held, or null
  std::uint16_t size = 0;
  char text[kCapacity];
};

/// Direct-mapped by the PassInfo's address: a pipeline nests a few passes
/// at a time, and each pass's before- and after-callback meet in its slot.
constexpr unsigned kSlotBits = 4;
thread_local RememberedName remembered[1u << kSlotBits];

RememberedName& slot_of(const ffi::Object* info) {
  const auto key = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(info) / 16);
  return remembered[(key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
}

void release(RememberedName& slot) noexcept {
  if (slot.info != nullptr) TVMFFIObjectDecRef(const_cast<ffi::Object*>(slot.info));
  slot.info = nullptr;
}

}  // namespace

std::string_view remembered_pass_name(ffi::AnyView info) noexcept {
  const ffi::Object* object = info.as<ffi::Object>();
  if (object == nullptr) return {};
  RememberedName& slot = slot_of(object);
  if (slot.info == object) return {slot.text, slot.size};
  try {
    const ffi::String name = pass_name(info);
    if (name.size() > RememberedName::kCapacity) {
      // A name this long is read every time; the slot keeps what it has.
      thread_local std::string long_name;
      long_name.assign(name.data(), name.size());
      return long_name;
    }
    release(slot);
    std::memcpy(slot.text, name.data(), name.size());
    slot.size = static_cast<std::uint16_t>(name.size());
    TVMFFIObjectIncRef(const_cast<ffi::Object*>(object));
    slot.info = object;
    return {slot.text, slot.size};
  } catch (...) {
    return {};
  }
}

void forget_remembered_names() noexcept {
  for (RememberedName& slot : remembered) release(slot);
}

}  // namespace passtiming::tvm::detail
