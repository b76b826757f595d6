#pragma once
/// \file
/// Interned strings. Records hold 32-bit ids instead of strings, which keeps
/// a record at 48 bytes; the few distinct pass names and kernel labels are
/// stored once per section.

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace passtiming {

using NameId = std::uint32_t;

/// Whether the `size` bytes at `a` and `b` are equal (inline: it runs two
/// or three times per pass; see names.cc).
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

  /// The id of `text`, adding it when new.
  NameId intern(std::string_view text);

  /// The id of `text` when present, or `npos`.
  NameId find(std::string_view text) const;
  static constexpr NameId npos = ~NameId{0};

  std::string_view operator[](NameId id) const { return views_[id]; }
  std::size_t size() const { return views_.size(); }
  /// Bytes held by the strings themselves.
  std::size_t string_bytes() const { return string_bytes_; }

 private:
  /// Copies `text` into the arena; the copy never moves.
  std::string_view store(std::string_view text);
  /// Puts every name of `views_` in a fresh index of at least `capacity`
  /// slots (a power of two).
  void rebuild_index(std::size_t capacity);
  /// The slot that holds `text`, or the empty slot where it would go.
  std::size_t slot_of(std::string_view text, std::size_t hash) const;

  /// The names' bytes, in chunks that are never moved or freed before the
  /// table is: views stay valid as the table grows.
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::size_t chunk_used_ = 0;  ///< bytes used in chunks_.back()
  std::size_t chunk_size_ = 0;  ///< size of chunks_.back()
  /// Views of the names, by id.
  std::vector<std::string_view> views_;
  /// Open addressing: each slot holds id + 1, or 0 when empty; kept at most
  /// half full. Interning a new name allocates nothing but, now and then, a
  /// chunk or a larger index, and clear() keeps both.
  std::vector<NameId> slots_;
  std::size_t string_bytes_ = 0;
};

/// A cache in front of a NameTable for a source whose names come from stable
/// buffers: an LLVM pass's name, a function's name, a module's identifier.
/// It answers a repeated buffer by its address, without hashing the text.
/// The text is still compared with the table's, so a buffer reused with new
/// contents, or a table cleared since, is never given a stale id: a cached id
/// is trusted only when the table holds exactly `text` under it, which makes
/// the cache need no invalidation. (Its size and shape: names.cc.)
class NameCache {
 public:
  NameId intern(NameTable& table, std::string_view text) {
    if (text.empty()) return 0;
    Set& set = sets_[set_of(text.data(), text.size())];
    if (set.ways[0].data == text.data() && holds(table, set.ways[0].id, text)) {
      return set.ways[0].id;
    }
    if (set.ways[1].data == text.data() && holds(table, set.ways[1].id, text)) {
      return set.ways[1].id;
    }
    return remember(set, text, table.intern(text));
  }

  /// intern() for text whose bytes never change while the cache is in use
  /// (an LLVM pass name: a type name in the binary): a slot for the same
  /// address and size is trusted without reading the table. The owner clears
  /// the cache whenever it clears or replaces the table, since this way does
  /// not look at the table to catch a stale id.
  NameId intern_stable(NameTable& table, std::string_view text) {
    if (text.empty()) return 0;
    if (stale_) [[unlikely]]
      forget();
    Set& set = sets_[set_of(text.data(), text.size())];
    for (const Slot& way : set.ways) {
      if (way.data == text.data() && way.size == text.size()) return way.id;
    }
    return remember(set, text, table.intern(text));
  }

  /// Required after the table is cleared or replaced: intern_stable() then
  /// forgets every slot before its next lookup. intern() keeps using them,
  /// since it checks each against the table: a source that only calls
  /// intern() (the TVM adapter) keeps its hits from context to context and
  /// never pays for wiping the cache's 16 KiB.
  void clear() { stale_ = true; }

 private:
  struct Slot {
    const char* data = nullptr;
    std::uint32_t size = 0;  ///< the text's size; a size past 32 bits never matches
    NameId id = 0;
  };
  /// Way 0 holds the newest entry, way 1 the one before it.
  struct Set {
    std::array<Slot, 2> ways;
  };
  static constexpr std::size_t kSetBits = 9;

  static bool holds(const NameTable& table, NameId id, std::string_view text) {
    if (id >= table.size()) return false;
    const std::string_view held = table[id];
    return held.size() == text.size() && same_bytes(held.data(), text.data(), text.size());
  }
  static std::size_t set_of(const char* data, std::size_t size) {
    // Fibonacci hashing: neighbouring buffers (pass objects side by side)
    // land in different sets.
    const auto bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(data)) ^ size;
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> (64 - kSetBits));
  }
  static NameId remember(Set& set, std::string_view text, NameId id) {
    set.ways[1] = set.ways[0];
    const bool fits = text.size() <= 0xFFFFFFFFu;
    set.ways[0] = Slot{fits ? text.data() : nullptr, static_cast<std::uint32_t>(text.size()), id};
    return id;
  }

  void forget() {
    sets_ = {};
    stale_ = false;
  }

  std::array<Set, std::size_t{1} << kSetBits> sets_{};
  /// clear() ran since the slots were last forgotten: some may name ids of
  /// a table that no longer holds them.
  bool stale_ = false;
};

}  // namespace passtiming
