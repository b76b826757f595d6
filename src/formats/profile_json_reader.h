#pragma once
/// \file
/// The JSON profile reader over an already padded buffer, so that files read
/// straight into simdjson's padded storage are parsed without another copy.

#include <simdjson.h>

#include <cstdint>
#include <string_view>

#include "passtiming/profile.h"

namespace passtiming::detail {

/// parse_profile_json without the copy into padded storage.
Profile parse_profile_padded(simdjson::padded_string_view text, std::string_view source);

/// The DOM parser every reader on this thread shares: its buffers are kept
/// between files, which makes reading thousands of small profiles cheap.
simdjson::dom::parser& thread_dom_parser();

/// Appends the records of a parsed JSON array to `section`, by the rules of
/// the profile reader, raising `max_thread` to the largest thread index seen.
/// False when the value is not an array or a record breaks a rule (the
/// records before it are then appended already).
bool append_records(simdjson::dom::element records, Section& section, std::uint32_t& max_thread);

}  // namespace passtiming::detail
