#pragma once
/// \file
/// The JSON profile (docs/profile-format.md): a versioned file that keeps a
/// compile session's sections and records, written by the library and read by
/// the CLI. Reading a profile and writing it again gives the same bytes.

#include <span>
#include <string>
#include <string_view>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/output_file.h"

namespace passtiming {

/// The `format` member of every profile.
inline constexpr std::string_view kProfileFormatName = "passtiming-profile";
/// The newest schema version, which this library reads along with every
/// older one. Version 2 added metrics (the top-level `metrics` member and
/// the records' metric members), version 3 the compile's phases (`phases`,
/// and a section's `phase`). A profile is written at the lowest version
/// that holds what it has, so one without phases or metrics is version 1,
/// byte for byte as before.
inline constexpr int kProfileFormatVersion = 3;
/// The version of a profile with metrics and no phases.
inline constexpr int kProfileFormatVersionWithMetrics = 2;
/// The version of a profile without metrics or phases.
inline constexpr int kProfileFormatVersionWithoutMetrics = 1;

/// The profile as JSON text: one record per line, integer nanoseconds, so the
/// text is deterministic and survives a read/write round trip byte for byte.
/// Names that are not valid UTF-8 have each bad byte replaced by U+FFFD.
///
///     std::string json = passtiming::profile_to_json(session.profile());
std::string profile_to_json(const Profile& profile);

/// profile_to_json(), handed to `sink` in pieces of about 64 KiB, so a
/// profile of a million records (about 170 MB) never exists whole in memory.
void write_profile_json(const Profile& profile, const TextSink& sink);

/// Parses a JSON profile. `source` names the input in errors. Throws
/// InputError (`SOURCE:LINE: message`, naming the field) on malformed input,
/// a wrong type, a number that does not fit, or invalid UTF-8.
///
///     Profile p = passtiming::parse_profile_json(text, "run.json");
Profile parse_profile_json(std::string_view text, std::string_view source);

/// Appends `text` to `out` as a quoted JSON string, escaped as the profile
/// writer does it (bytes that are not valid UTF-8 become U+FFFD), for every
/// command that prints JSON.
void append_json_string(std::string& out, std::string_view text);

/// Writes the profile's JSON to `path`, a piece at a time, through a temporary file in
/// the same directory that is renamed over `path`, so readers never see half a
/// file. `-` writes to stdout. Throws std::runtime_error naming the path.
void write_profile_file(const Profile& profile, const std::string& path);

/// write_profile_file() of the profile made of `metadata`, `metrics`,
/// `phases` and `sections`, written where they are, without copying them (a
/// compile session's sections, held by their recorders); section `i` ran in
/// phase `section_phases[i]` (kNoPhase past its end).
void write_profile_file(const ProfileMetadata& metadata, const ProfileMetrics& metrics,
                        const std::vector<Phase>& phases, std::span<const Section* const> sections,
                        std::span<const PhaseIndex> section_phases, const std::string& path);

}  // namespace passtiming
