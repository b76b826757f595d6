#pragma once
/// \file
/// One profile from many: what `passtiming merge` writes, and how
/// `passtiming gate` makes one profile of a run that compiled several times
/// (a build, a script compiling several kernels).

#include <string>

#include "passtiming/engine/profile.h"

namespace passtiming::cli {

/// Appends `profile`, read from `file`, to `merged`: its sections, each
/// keeping its context and naming in its origin the file and the process
/// that recorded it (a section merged before keeps its origin); its phases,
/// under a root phase "input" of their own, as the inputs' clocks are not
/// one clock (unless merged before); and the metrics it recorded, and those
/// it could not. `merged.metadata` is the caller's to set.
void merge_into(Profile& merged, Profile&& profile, const std::string& file);

}  // namespace passtiming::cli
