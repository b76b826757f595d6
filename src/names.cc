#include "passtiming/names.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace passtiming {
NameTable::NameTable() {
  strings_.emplace_back();
  rebuild_index();
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

void NameTable::clear() {
  strings_.resize(1);
  string_bytes_ = 0;
  rebuild_index();
}

void NameTable::rebuild_index() {
  index_.clear();
  views_.clear();
  index_.reserve(strings_.size());
  views_.reserve(strings_.size());
  for (std::size_t i = 0; i < strings_.size(); ++i) {
    views_.emplace_back(strings_[i]);
    index_.emplace(views_.back(), static_cast<NameId>(i));
  }
}

NameId NameTable::intern(std::string_view text) {
  if (text.empty()) return 0;
  NameId id;
  if (auto it = index_.find(text); it != index_.end()) {
    id = it->second;
  } else {
    if (strings_.size() >= npos) throw std::length_error("passtiming: too many distinct names");
    id = static_cast<NameId>(strings_.size());
    strings_.emplace_back(text);
    string_bytes_ += text.size();
    views_.emplace_back(strings_.back());
    index_.emplace(views_.back(), id);
  }
  return id;
}

NameId NameTable::find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? npos : it->second;
}

}  // namespace passtiming
