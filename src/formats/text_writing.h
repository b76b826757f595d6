#pragma once
/// \file
/// Writing text into a buffer the caller has sized: the inner loop of every
/// writer that emits a line per pass (profile, event log, report). Each
/// helper returns the end of what it wrote, so a line is built as a chain
/// of pointer bumps with no capacity check between the pieces.

#include <fmt/compile.h>
#include <fmt/format.h>

#include <concepts>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace passtiming::detail {

/// Characters put_int writes at most: any 64-bit integer, sign included.
inline constexpr std::size_t kMaxIntChars = 20;

/// `text`, a string literal, at `p` without its terminating zero; the length
/// is a constant, so the copy compiles to a few stores.
template <std::size_t N>
char* put(char* p, const char (&text)[N]) noexcept {
  std::memcpy(p, text, N - 1);
  return p + (N - 1);
}

/// `text` at `p`.
inline char* put(char* p, std::string_view text) noexcept {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

/// `value` in decimal at `p`, at most kMaxIntChars characters, by {fmt}'s
/// integer writer. On a sqlite3 profile's numbers (clock values of 14
/// digits among small counts) it runs about 52 instructions a number,
/// against 70 for std::to_chars.
template <std::integral Int>
char* put_int(char* p, Int value) noexcept {
  return fmt::format_to(p, FMT_COMPILE("{}"), value);
}

}  // namespace passtiming::detail
