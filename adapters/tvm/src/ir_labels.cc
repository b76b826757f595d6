/// \file
/// Pass names and kernel labels read natively from TVM's PassInfo and
/// IRModule, by field name through tvm-ffi's reflection.

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include <optional>
#include <string>
#include <vector>

#include "object_fields.h"
#include "passtiming/ir_module.h"
#include "passtiming/tvm.h"

namespace passtiming::tvm {
namespace ffi = ::tvm::ffi;
namespace {

const detail::FieldReader kName("name");
const detail::FieldReader kFunctions("functions");
const detail::FieldReader kAttrs("attrs");
const detail::FieldReader kAttrsDict("__dict__");
const detail::FieldReader kNameHint("name_hint");

/// `attrs.get("global_symbol")` of a function, as text, or nothing.
std::optional<std::string> global_symbol(const ffi::Any& function) {
  ffi::Any attrs = kAttrs.read(function.as<ffi::Object>());
  ffi::Any dict = kAttrsDict.read(attrs.as<ffi::Object>());
  const auto* entries = dict.as<ffi::MapObj>();
  if (entries == nullptr) return std::nullopt;
  auto found = entries->find(ffi::String("global_symbol"));
  if (found == entries->end()) return std::nullopt;
  if (auto text = found->second.try_cast<ffi::String>()) return std::string(*text);
  // The seed takes str() of whatever is stored; TVM stores a String.
  return std::nullopt;
}

}  // namespace

std::string pass_name(ffi::AnyView info) {
  ffi::Any name = kName.read(info.as<ffi::Object>());
  return std::string(name.cast<ffi::String>());
}

std::string kernel_label(ffi::AnyView mod) noexcept {
  try {
    ffi::Any functions = kFunctions.read(mod.as<ffi::Object>());
    const auto* map = functions.as<ffi::MapObj>();
    if (map == nullptr) return "";
    std::vector<std::string> names;
    names.reserve(map->size());
    for (const auto& [global_var, function] : *map) {
      std::optional<std::string> name = global_symbol(function);
      if (!name) {
        ffi::Any hint = kNameHint.read(global_var.as<ffi::Object>());
        if (auto text = hint.try_cast<ffi::String>()) name = std::string(*text);
      }
      if (name) names.push_back(std::move(*name));
    }
    // The label rule (first, then "+N more" distinct others) is the core's.
    return passtiming::kernel_label(std::vector<std::string_view>(names.begin(), names.end()));
  } catch (...) {
    return "";
  }
}

}  // namespace passtiming::tvm
