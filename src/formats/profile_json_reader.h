#pragma once
/// \file
/// The one reader of the JSON profile (docs/profile-format.md). It has one
/// set of rules, a record's members coming from kRecordFields
/// (profile_json_fields.h), and three modes that follow them:
///
/// - fast: accepts or refuses, naming nothing;
/// - located: names the line and the member of the first problem;
/// - streamed: reads a file in the writer's layout a megabyte at a time,
///   never holding its whole text.
///
/// A text the fast mode accepts, every mode accepts, and reads to the same
/// profile. The located mode does not check the syntax inside the members it
/// skips, so it may accept a text the fast mode refuses; read_profile_json
/// then says `malformed profile`.

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "passtiming/engine/profile.h"

namespace passtiming::detail {

/// parse_profile_json on text already in padded storage (no copy): the fast
/// mode, then, when it refuses, the located mode for the message. Throws
/// InputError (`SOURCE:LINE: message`).
Profile read_profile_json(simdjson::padded_string_view text, std::string_view source);

/// The fast mode alone: the profile, or nullopt when the text breaks a rule.
std::optional<Profile> read_profile_json_fast(simdjson::padded_string_view text);

/// The located mode alone: the profile, or InputError naming `source`, the
/// line and, where there is one, the member of the first problem.
Profile read_profile_json_located(simdjson::padded_string_view text, std::string_view source);

/// The streamed mode: the profile in the regular file open as `fd`, read
/// from offset 0, whose size is `size` bytes. nullopt when the file is laid
/// out otherwise than the writer lays it out (a profile may be laid out any
/// way JSON allows) or breaks a rule; read_profile_json then reads it whole
/// and names the problem.
std::optional<Profile> read_profile_json_streamed(int fd, std::uint64_t size);

}  // namespace passtiming::detail
