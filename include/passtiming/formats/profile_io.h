#pragma once
/// \file
/// Files in and out: loading a profile from either a JSON profile or a JSONL
/// event log, writing output files atomically, and the metadata that
/// describes the running process.

#include <string>
#include <string_view>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/output_file.h"

namespace passtiming {

/// Reads `path` (`-` = stdin) as a JSON profile or a JSON Lines event log,
/// decided by the content, not the file name: a first line that is an event
/// (`{"ev":...`) makes it a log, anything else is read as a profile.
/// Throws InputError (`FILE:LINE: message`) when the file cannot be read or
/// is malformed.
///
///     Profile p = passtiming::load_profile("build/compile.json");
Profile load_profile(const std::string& path);

/// Parses `text` that came from `source`, with the same sniffing as
/// load_profile.
Profile parse_profile_text(std::string_view text, std::string_view source);

/// Who is running: tool `passtiming <version>`, the command line from
/// /proc/self/cmdline (arguments joined by spaces), the host name, the start
/// time of this call in UTC ISO 8601, and the process id.
ProfileMetadata current_process_metadata();

}  // namespace passtiming
