#pragma once
/// \file
/// The members of a JSON profile record (docs/profile-format.md), once: for
/// each its key, its kind of value, whether it is required, its range and
/// the member of passtiming::Record that holds it, in the order the writer
/// puts them on the line. The profile's writer and its one reader are both
/// made from this table, and so are the members of a fleet row that repeat
/// a record's; a record's metric members come from metric_fields.h, at the
/// place the table marks.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "passtiming/engine/profile.h"
#include "text_writing.h"

namespace passtiming::detail {

/// The kind of a record member's value: how it is written and read.
enum class RecordValue : std::uint8_t {
  name,              ///< a string, held as a NameId of the section's NameTable
  unsigned_number,   ///< an integer from 0 to `max`
  signed_number,     ///< an integer from `min` to `max`
  unsigned_or_null,  ///< an integer from 0 to `max`, or null for kNoParent
  flag,              ///< a boolean, the bit `bit` of the member; written, as true, only when set
  metrics,           ///< no member of its own: the record's metric members go here
};

/// One member of a record. `Member` is a pointer to the member of Record
/// that holds it (std::nullptr_t for the place of the metric members).
template <typename Member>
struct RecordField {
  std::string_view key;
  RecordValue value;
  bool required;
  Member member;
  std::int64_t min = 0;   ///< for numbers: the smallest value allowed
  std::int64_t max = 0;   ///< for numbers: the largest value allowed
  std::uint16_t bit = 0;  ///< for a flag: its bit of `member`
};

/// A record's members in the order they are written. A reader requires the
/// `required` ones, ignores keys it does not know, and leaves a member that
/// is absent at Record's default ("" for a name, kNoParent, thread 0, no
/// flag).
inline constexpr std::tuple kRecordFields{
    RecordField{"name", RecordValue::name, true, &Record::name},
    RecordField{"kernel", RecordValue::name, false, &Record::kernel},
    RecordField{"depth", RecordValue::unsigned_number, true, &Record::depth, 0, UINT16_MAX},
    RecordField{"sequence", RecordValue::unsigned_number, true, &Record::sequence, 0,
                kNoParent - 1},
    RecordField{"parent", RecordValue::unsigned_or_null, false, &Record::parent, 0, kNoParent - 1},
    RecordField{"thread", RecordValue::unsigned_number, false, &Record::thread, 0, UINT32_MAX},
    RecordField{"start_ns", RecordValue::signed_number, true, &Record::start_ns, INT64_MIN,
                INT64_MAX},
    RecordField{"inclusive_ns", RecordValue::signed_number, true, &Record::inclusive_ns, 0,
                INT64_MAX},
    RecordField{"self_ns", RecordValue::signed_number, true, &Record::self_ns, 0, INT64_MAX},
    RecordField{"", RecordValue::metrics, false, nullptr},
    RecordField{"failed", RecordValue::flag, false, &Record::flags, 0, 0, kRecordFailed},
};

inline constexpr std::size_t kRecordFieldCount = std::tuple_size_v<decltype(kRecordFields)>;

/// Calls `fn.template operator()<I>()` for every field I of the table, in order.
template <typename Fn>
constexpr void for_each_record_field(Fn&& fn) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (fn.template operator()<I>(), ...);
  }(std::make_index_sequence<kRecordFieldCount>{});
}

/// Calls `fn.template operator()<I>()` for the fields in order until one
/// returns true; whether one did.
template <typename Fn>
constexpr bool any_record_field(Fn&& fn) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (fn.template operator()<I>() || ...);
  }(std::make_index_sequence<kRecordFieldCount>{});
}

/// The index in kRecordFields of the field with `key`; a key the table does
/// not have does not compile.
consteval std::size_t record_field_index(std::string_view key) {
  std::size_t found = kRecordFieldCount;
  for_each_record_field([&]<std::size_t I>() {
    if (std::get<I>(kRecordFields).key == key) found = I;
  });
  if (found == kRecordFieldCount) throw "no record field has this key";
  return found;
}

/// `"KEY":` of field I, after the character `lead` unless it is 0.
template <std::size_t I, char Lead>
inline constexpr auto kRecordMemberPrefix = [] {
  constexpr std::string_view key = std::get<I>(kRecordFields).key;
  std::array<char, key.size() + 3 + (Lead != 0)> text{};
  std::size_t n = 0;
  if (Lead != 0) text[n++] = Lead;
  text[n++] = '"';
  for (char c : key) text[n++] = c;
  text[n++] = '"';
  text[n++] = ':';
  return text;
}();

/// kRecordMemberPrefix as a string.
template <std::size_t I, char Lead = ','>
constexpr std::string_view record_member_prefix() {
  return {kRecordMemberPrefix<I, Lead>.data(), kRecordMemberPrefix<I, Lead>.size()};
}

/// Writes kRecordMemberPrefix<I, Lead> at `p`; returns the end.
template <std::size_t I, char Lead = ','>
char* put_record_member_prefix(char* p) noexcept {
  constexpr auto& text = kRecordMemberPrefix<I, Lead>;
  constexpr std::size_t n = text.size();
  static_assert(n >= 8 && n <= 16, "a prefix is written as two words of 8 bytes");
  // Two overlapping words made at compile time, so that the prefix is
  // stored from immediates as a string literal's bytes are (a copy from the
  // array loads it first).
  constexpr auto word_at = [](std::size_t at) {
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < 8; ++k) {
      const auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(text[at + k]));
      word |= byte << (std::endian::native == std::endian::little ? 8 * k : 56 - 8 * k);
    }
    return word;
  };
  constexpr std::uint64_t first = word_at(0), last = word_at(n - 8);
  std::memcpy(p, &first, 8);
  std::memcpy(p + n - 8, &last, 8);
  return p + n;
}

/// Writes field I of `r` at `p` as `"KEY":VALUE` after `Lead` (a flag only
/// when set, as `true`; a name as its entry in `quoted`, the section's names
/// as JSON strings); returns the end. The caller makes room for the key,
/// kMaxIntChars and the quoted name. Not for the place of the metric members.
template <std::size_t I, char Lead = ','>
char* put_record_member(char* p, const Record& r, const std::vector<std::string>& quoted) noexcept {
  constexpr auto& field = std::get<I>(kRecordFields);
  static_assert(field.value != RecordValue::metrics, "the metric members are the caller's");
  if constexpr (field.value == RecordValue::flag) {
    if (!(r.*field.member & field.bit)) return p;
    p = put_record_member_prefix<I, Lead>(p);
    return put(p, "true");
  } else {
    p = put_record_member_prefix<I, Lead>(p);
    if constexpr (field.value == RecordValue::name) {
      return put(p, quoted[r.*field.member]);
    } else if constexpr (field.value == RecordValue::unsigned_or_null) {
      return r.*field.member == kNoParent ? put(p, "null") : put_int(p, r.*field.member);
    } else {
      return put_int(p, r.*field.member);
    }
  }
}

/// Bytes put_record_member writes at most for the fields that are not names.
constexpr std::size_t record_numbers_max_bytes() {
  std::size_t bytes = 0;
  for_each_record_field([&]<std::size_t I>() {
    constexpr auto& field = std::get<I>(kRecordFields);
    if constexpr (field.value != RecordValue::name && field.value != RecordValue::metrics) {
      bytes += record_member_prefix<I>().size() + kMaxIntChars;
    }
  });
  return bytes;
}

}  // namespace passtiming::detail
