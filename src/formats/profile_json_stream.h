#pragma once
/// \file
/// The JSON profile reader for the layout write_profile_file produces, which
/// reads a file a megabyte at a time instead of holding its whole text and
/// a parse tree several times its size.

#include <cstdint>
#include <optional>

#include "passtiming/profile.h"

namespace passtiming::detail {

/// Reads the profile in the regular file open as `fd`, from offset 0, whose
/// size is `size` bytes. nullopt when the file is laid out otherwise (a
/// profile may be laid out any way JSON allows; this reader knows the
/// writer's) or breaks a rule: the caller then reads it whole with
/// parse_profile_padded, which also names the line of the problem. A profile
/// it returns is the one that reader would return.
std::optional<Profile> read_profile_streamed(int fd, std::uint64_t size);

}  // namespace passtiming::detail
