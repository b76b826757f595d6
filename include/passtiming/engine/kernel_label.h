#pragma once
/// \file
/// The seed's kernel label of an IR unit, the one rule every source applies
/// to the functions of the unit a pass runs on (TVM and TileLang modules,
/// LLVM's modules and call-graph SCCs, MLIR's symbol tables, the PassContext
/// host's modules). In the engine room so that every source can use it
/// without depending on another source.

#include <string>
#include <string_view>
#include <vector>

namespace passtiming {

/// The label of an IR unit made of functions with the given symbols, in the
/// unit's order: "" for none, "first" for one distinct symbol, and "first +N
/// more" where N counts the other distinct symbols. Never throws (out of
/// memory gives "").
///
///     kernel_label({"main", "helper", "main"});  // "main +1 more"
std::string kernel_label(const std::vector<std::string_view>& symbols) noexcept;

}  // namespace passtiming
