#include "passtiming/engine/names.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>

// same_bytes() (names.h): pass names and kernel labels are a few dozen
// bytes, and they are compared two or three times per pass; comparing them
// eight bytes at a time inline is several times cheaper than a call to
// memcmp, which long texts still get.
//
// NameCache (names.h) has two ways per set and 512 sets: an -O2 pipeline
// keeps about 150 pass names and the current function's name live at once,
// and a direct-mapped cache of 64 slots missed on one intern in five from
// collisions between them. intern_stable() trusts a slot for the same
// address and size without reading the table, whose lines a pass running
// between two events has evicted.

namespace passtiming {
namespace {

/// Bytes of a chunk of the arena, unless a name is longer.
constexpr std::size_t kChunkBytes = 4096;
constexpr std::size_t kMinSlots = 64;

std::size_t hash_of(std::string_view text) noexcept {
  return std::hash<std::string_view>{}(text);
}

}  // namespace

NameTable::NameTable() {
  views_.emplace_back("");  // id 0: "", with a valid pointer for writers that copy it
  rebuild_index(kMinSlots);
}

NameTable::NameTable(const NameTable& other) : NameTable() {
  *this = other;
}

NameTable& NameTable::operator=(const NameTable& other) {
  if (this == &other) return *this;
  clear();
  views_.reserve(other.views_.size());
  for (std::size_t id = 1; id < other.views_.size(); ++id) {
    views_.push_back(store(other.views_[id]));
  }
  string_bytes_ = other.string_bytes_;
  rebuild_index(other.slots_.size());
  return *this;
}

// The chunks move with their owner, so the views stay valid.
NameTable::NameTable(NameTable&& other)
    : chunks_(std::move(other.chunks_)),
      chunk_used_(other.chunk_used_),
      chunk_size_(other.chunk_size_),
      views_(std::move(other.views_)),
      slots_(std::move(other.slots_)),
      string_bytes_(other.string_bytes_) {
  other = NameTable();
}

NameTable& NameTable::operator=(NameTable&& other) {
  if (this != &other) {
    chunks_ = std::move(other.chunks_);
    chunk_used_ = other.chunk_used_;
    chunk_size_ = other.chunk_size_;
    views_ = std::move(other.views_);
    slots_ = std::move(other.slots_);
    string_bytes_ = other.string_bytes_;
    other.chunks_.clear();
    other.chunk_used_ = other.chunk_size_ = 0;
    other.views_.assign(1, std::string_view(""));
    other.string_bytes_ = 0;
    other.rebuild_index(kMinSlots);
  }
  return *this;
}

NameTable::~NameTable() = default;

void NameTable::clear() {
  // The first chunk and the index stay: a table reused context after
  // context allocates nothing once it has grown.
  if (chunks_.size() > 1) {
    chunks_.resize(1);
    chunk_size_ = kChunkBytes;
  }
  chunk_used_ = 0;
  views_.resize(1);
  string_bytes_ = 0;
  std::fill(slots_.begin(), slots_.end(), NameId{0});
}

std::string_view NameTable::store(std::string_view text) {
  if (chunks_.empty() || chunk_size_ - chunk_used_ < text.size()) {
    chunk_size_ = std::max(kChunkBytes, text.size());
    chunks_.push_back(std::make_unique<char[]>(chunk_size_));
    chunk_used_ = 0;
  }
  char* at = chunks_.back().get() + chunk_used_;
  if (!text.empty()) std::memcpy(at, text.data(), text.size());
  chunk_used_ += text.size();
  return {at, text.size()};
}

std::size_t NameTable::slot_of(std::string_view text, std::size_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const NameId entry = slots_[i];
    if (entry == 0) return i;
    const std::string_view name = views_[entry - 1];
    if (name.size() == text.size() && same_bytes(name.data(), text.data(), text.size())) return i;
  }
}

void NameTable::rebuild_index(std::size_t capacity) {
  std::size_t slots = kMinSlots;
  while (slots < capacity || slots < 2 * views_.size()) slots *= 2;
  slots_.assign(slots, NameId{0});
  for (std::size_t id = 1; id < views_.size(); ++id) {
    slots_[slot_of(views_[id], hash_of(views_[id]))] = static_cast<NameId>(id + 1);
  }
}

NameId NameTable::intern(std::string_view text) {
  if (text.empty()) return 0;
  const std::size_t hash = hash_of(text);
  const std::size_t slot = slot_of(text, hash);
  if (slots_[slot] != 0) return slots_[slot] - 1;
  if (views_.size() >= npos - 1) throw std::length_error("passtiming: too many distinct names");
  const auto id = static_cast<NameId>(views_.size());
  views_.push_back(store(text));
  string_bytes_ += text.size();
  if (2 * views_.size() > slots_.size()) {
    rebuild_index(2 * slots_.size());
  } else {
    slots_[slot] = id + 1;
  }
  return id;
}

NameId NameTable::find(std::string_view text) const {
  if (text.empty()) return 0;
  const NameId entry = slots_[slot_of(text, hash_of(text))];
  return entry == 0 ? npos : entry - 1;
}

}  // namespace passtiming
