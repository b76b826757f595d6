#pragma once
/// \file
/// JSON string literals for the writers (profile, event log): escaping that is
/// fast for the plain ASCII names passes have, and always produces valid
/// UTF-8, because every reader (simdjson included) rejects anything else.

#include <cstddef>
#include <string>
#include <string_view>

#include "passtiming/engine/profile.h"

namespace passtiming::detail {

/// Bytes write_json_string may write for `text`, quotes included.
inline std::size_t json_string_max_size(std::string_view text) {
  return 6 * text.size() + 2;
}

/// Writes `text` as a quoted JSON string at `out`, which must have room for
/// json_string_max_size(text) bytes; returns the end. Control characters,
/// quotes and backslashes are escaped; a byte that does not start a valid
/// UTF-8 sequence becomes U+FFFD.
char* write_json_string(char* out, std::string_view text) noexcept;

/// Appends `text` as a quoted JSON string to `out`.
void append_json_string(std::string& out, std::string_view text);

/// Appends the members of `m` that every JSON output carries, in this order:
/// `"tool":…,"command":…,"host":…,"start_time":…,"pid":N` (no braces), with
/// strings quoted by `append_string` (the HTML report quotes them for a
/// `<script>` element).
void append_metadata_members(std::string& out, const ProfileMetadata& m,
                             void (*append_string)(std::string&,
                                                   std::string_view) = &append_json_string);

/// Appends `,"origin":{"file":…,` + the metadata members `}` of a merged
/// section (docs/profile-format.md); nothing for a section as recorded.
void append_origin_member(std::string& out, const SectionOrigin& origin,
                          void (*append_string)(std::string&,
                                                std::string_view) = &append_json_string);

/// Offset of the first byte of `text` that is not part of valid UTF-8, or
/// npos when all of it is valid.
std::size_t find_invalid_utf8(std::string_view text) noexcept;

}  // namespace passtiming::detail
