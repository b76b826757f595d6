#pragma once
/// \file
/// The library's version, for profile metadata and `--version`.

#include <string_view>

namespace passtiming {

inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace passtiming
