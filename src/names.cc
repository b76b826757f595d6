#include "passtiming/names.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace passtiming {
namespace {

std::size_t cache_slot(const char* data, std::size_t size) {
  auto bits = reinterpret_cast<std::uintptr_t>(data);
  return ((bits >> 4) ^ (bits >> 10) ^ size) & 63;
}

}  // namespace

NameTable::NameTable() {
  strings_.emplace_back();
  index_.emplace(std::string_view(strings_.front()), 0);
}

NameTable::NameTable(const NameTable& other)
    : strings_(other.strings_), string_bytes_(other.string_bytes_) {
  rebuild_index();
}

NameTable& NameTable::operator=(const NameTable& other) {
  if (this != &other) {
    strings_ = other.strings_;
    string_bytes_ = other.string_bytes_;
    rebuild_index();
  }
  return *this;
}

// Moving a deque hands over its blocks, so the strings keep their addresses;
// rebuilding anyway keeps the index correct without relying on that.
NameTable::NameTable(NameTable&& other)
    : strings_(std::move(other.strings_)), string_bytes_(other.string_bytes_) {
  rebuild_index();
  other = NameTable();
}

NameTable& NameTable::operator=(NameTable&& other) {
  if (this != &other) {
    strings_ = std::move(other.strings_);
    string_bytes_ = other.string_bytes_;
    rebuild_index();
    other.strings_.clear();
    other.strings_.emplace_back();
    other.string_bytes_ = 0;
    other.rebuild_index();
  }
  return *this;
}

NameTable::~NameTable() = default;

void NameTable::rebuild_index() {
  index_.clear();
  cache_ = {};
  index_.reserve(strings_.size());
  for (std::size_t i = 0; i < strings_.size(); ++i) {
    index_.emplace(std::string_view(strings_[i]), static_cast<NameId>(i));
  }
}

NameId NameTable::intern(std::string_view text) {
  if (text.empty()) return 0;
  CacheSlot& slot = cache_[cache_slot(text.data(), text.size())];
  if (slot.data == text.data() && slot.size == text.size() &&
      std::memcmp(strings_[slot.id].data(), text.data(), text.size()) == 0) {
    return slot.id;
  }
  NameId id;
  if (auto it = index_.find(text); it != index_.end()) {
    id = it->second;
  } else {
    if (strings_.size() >= npos) throw std::length_error("passtiming: too many distinct names");
    id = static_cast<NameId>(strings_.size());
    strings_.emplace_back(text);
    string_bytes_ += text.size();
    index_.emplace(std::string_view(strings_.back()), id);
  }
  slot = CacheSlot{text.data(), text.size(), id};
  return id;
}

NameId NameTable::find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? npos : it->second;
}

}  // namespace passtiming
