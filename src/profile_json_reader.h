#pragma once
/// \file
/// The JSON profile reader over an already padded buffer, so that files read
/// straight into simdjson's padded storage are parsed without another copy.

#include <simdjson.h>

#include <string_view>

#include "passtiming/profile.h"

namespace passtiming::detail {

/// parse_profile_json without the copy into padded storage.
Profile parse_profile_padded(simdjson::padded_string_view text, std::string_view source);

}  // namespace passtiming::detail
