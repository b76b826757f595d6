#include "json_text.h"

#include <cstdint>
#include <cstring>

namespace passtiming::detail {
namespace {

/// Length of the valid UTF-8 sequence starting at `p` (1..4), or 0 when the
/// bytes there are not one (bad lead byte, missing continuation, overlong
/// form, surrogate, or beyond U+10FFFF).
std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) noexcept {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  auto cont = [&](std::size_t i) { return p + i < end && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && p[1] >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;   // overlong
    if (c == 0xF4 && p[1] >= 0x90) return 0;  // beyond U+10FFFF
    return 4;
  }
  return 0;
}

bool needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

/// Whether any of the eight bytes of `w` may need escaping (below 0x20, a
/// quote, a backslash, or not ASCII). Exact in the "none" direction, which is
/// all the caller relies on: a word it clears is copied as it is.
bool word_may_need_escape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  auto has_zero_byte = [&](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const std::uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;
  return (control | has_zero_byte(w ^ (kOnes * '"')) | has_zero_byte(w ^ (kOnes * '\\')) |
          (w & kHigh)) != 0;
}

}  // namespace

char* write_json_string(char* out, std::string_view text) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  *out++ = '"';
  while (p < end) {
    // Plain runs are copied in one go: pass names are almost always ASCII.
    // Pass names are logged on every event, so the scan goes a word at a time.
    const unsigned char* run = p;
    for (std::uint64_t w; end - p >= 8; p += 8) {
      std::memcpy(&w, p, sizeof w);
      if (word_may_need_escape(w)) break;
    }
    while (p < end && !needs_escape(*p)) ++p;
    if (p != run) {
      std::memcpy(out, run, static_cast<std::size_t>(p - run));
      out += p - run;
      if (p == end) break;
    }
    const unsigned char c = *p;
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(p, end);
      if (n == 0) {
        std::memcpy(out, "\xEF\xBF\xBD", 3);  // U+FFFD REPLACEMENT CHARACTER
        out += 3;
        ++p;
      } else {
        std::memcpy(out, p, n);
        out += n;
        p += n;
      }
      continue;
    }
    *out++ = '\\';
    switch (c) {
      case '"': *out++ = '"'; break;
      case '\\': *out++ = '\\'; break;
      case '\n': *out++ = 'n'; break;
      case '\r': *out++ = 'r'; break;
      case '\t': *out++ = 't'; break;
      default:
        *out++ = 'u';
        *out++ = '0';
        *out++ = '0';
        *out++ = kHex[c >> 4];
        *out++ = kHex[c & 15];
    }
    ++p;
  }
  *out++ = '"';
  return out;
}

void append_json_string(std::string& out, std::string_view text) {
  const std::size_t old = out.size();
  out.resize(old + json_string_max_size(text));
  char* end = write_json_string(out.data() + old, text);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

void append_metadata_members(std::string& out, const ProfileMetadata& m,
                             void (*append_string)(std::string&, std::string_view)) {
  out += "\"tool\":";
  append_string(out, m.tool);
  out += ",\"command\":";
  append_string(out, m.command);
  out += ",\"host\":";
  append_string(out, m.host);
  out += ",\"start_time\":";
  append_string(out, m.start_time);
  out += ",\"pid\":";
  out += std::to_string(m.pid);
  // Written only when known, so the TileLang and TVM sources' files are
  // what they always were.
  if (!m.source.empty()) {
    out += ",\"source\":";
    append_string(out, m.source);
  }
}

void append_origin_member(std::string& out, const SectionOrigin& origin,
                          void (*append_string)(std::string&, std::string_view)) {
  // Only a merged section has one: a recorded profile's files are
  // unchanged.
  if (origin.empty()) return;
  out += ",\"origin\":{\"file\":";
  append_string(out, origin.file);
  out += ',';
  append_metadata_members(out, origin.metadata, append_string);
  out += '}';
}

std::size_t find_invalid_utf8(std::string_view text) noexcept {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = begin + text.size();
  for (const unsigned char* p = begin; p < end;) {
    const std::size_t n = utf8_sequence_length(p, end);
    if (n == 0) return static_cast<std::size_t>(p - begin);
    p += n;
  }
  return std::string_view::npos;
}

}  // namespace passtiming::detail
