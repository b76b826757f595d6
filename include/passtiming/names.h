#pragma once
/// \file
/// Interned strings. Records hold 32-bit ids instead of strings, which keeps
/// a record at 48 bytes; the few distinct pass names and kernel labels are
/// stored once per section.

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace passtiming {

using NameId = std::uint32_t;

/// Whether the `size` bytes at `a` and `b` are equal. Pass names and kernel
/// labels are a few dozen bytes, and this runs two or three times per pass:
/// comparing them eight bytes at a time inline is several times cheaper than
/// a call to memcmp, which long texts still get.
inline bool same_bytes(const char* a, const char* b, std::size_t size) noexcept {
  auto word = [](const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  };
  if (size > 64) return std::memcmp(a, b, size) == 0;
  if (size >= 8) {
    for (std::size_t i = 0; i + 8 < size; i += 8) {
      if (word(a + i) != word(b + i)) return false;
    }
    return word(a + size - 8) == word(b + size - 8);  // the last 8, overlapping
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// A table of distinct strings. Id 0 is always the empty string.
///
///     NameTable names;
///     NameId id = names.intern("InstCombinePass");
///     std::string_view s = names[id];  // "InstCombinePass"
class NameTable {
 public:
  NameTable();
  NameTable(const NameTable& other);
  NameTable& operator=(const NameTable& other);
  NameTable(NameTable&&);
  NameTable& operator=(NameTable&&);
  ~NameTable();

  /// Forgets every name but keeps the allocated index, so a table reused for
  /// context after context does not allocate again.
  void clear();

  /// The id of `text`, adding it when new. Repeated calls with the same
  /// character buffer (a pass's name object, a module's cached label) are
  /// answered from a small cache keyed by the buffer's address, without
  /// hashing the text; the text is still compared, so a reused buffer with
  /// new contents is never mistaken for the old string.
  NameId intern(std::string_view text) {
    if (text.empty()) return 0;
    const CacheSlot& slot = cache_[cache_slot(text.data(), text.size())];
    if (slot.data == text.data() && slot.size == text.size() &&
        same_bytes(views_[slot.id].data(), text.data(), text.size())) {
      return slot.id;
    }
    return intern_slow(text);
  }

  /// The id of `text` when present, or `npos`.
  NameId find(std::string_view text) const;
  static constexpr NameId npos = ~NameId{0};

  std::string_view operator[](NameId id) const { return views_[id]; }
  std::size_t size() const { return views_.size(); }
  /// Bytes held by the strings themselves.
  std::size_t string_bytes() const { return string_bytes_; }

 private:
  void rebuild_index();
  NameId intern_slow(std::string_view text);
  static std::size_t cache_slot(const char* data, std::size_t size) {
    // Fibonacci hashing: neighbouring buffers (PassInfo objects side by
    // side) land in different slots.
    const auto bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(data)) ^ size;
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> 58);
  }

  struct CacheSlot {
    const char* data = nullptr;
    std::size_t size = 0;
    NameId id = 0;
  };
  /// std::deque keeps every string at a stable address, so the index's
  /// string_views stay valid as the table grows.
  std::deque<std::string> strings_;
  /// Views of `strings_`, for indexing without the deque's block arithmetic.
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, NameId> index_;
  std::array<CacheSlot, 64> cache_{};
  std::size_t string_bytes_ = 0;
};

}  // namespace passtiming
