/// \file
/// Pass names and kernel labels read natively from TVM's PassInfo and
/// IRModule, by field name through tvm-ffi's reflection.

#include <fmt/format.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/string.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "object_fields.h"
#include "passtiming/engine/kernel_label.h"
#include "passtiming/tvm.h"

namespace passtiming::tvm {
namespace ffi = ::tvm::ffi;
namespace {

const detail::FieldReader kName("name");
const detail::FieldReader kFunctions("functions");
const detail::FieldReader kAttrs("attrs");
const detail::FieldReader kAttrsDict("__dict__");
const detail::FieldReader kNameHint("name_hint");

/// A number as Python's str() writes it: the seed takes str() of whatever
/// `global_symbol` holds.
std::string python_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, as Python's repr; Python adds ".0" to an
  // integral value and writes large and small ones with an exponent.
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

/// `attrs.get("global_symbol")` of a function, as the seed's str() of it
/// gives it (TVM stores a String; a number or bool is written as Python
/// writes it), or nothing when absent or None. Another kind of object is
/// taken as absent: its Python str() is a printout only Python can make.
std::optional<std::string> global_symbol(const ffi::Any& function) {
  ffi::Any attrs = kAttrs.read(function.as<ffi::Object>());
  ffi::Any dict = kAttrsDict.read(attrs.as<ffi::Object>());
  const auto* entries = dict.as<ffi::MapObj>();
  if (entries == nullptr) return std::nullopt;
  // Made once and never freed: a static destroyed at exit could outlive
  // the tvm-ffi library that frees it.
  static const ffi::String* const key = new ffi::String("global_symbol");
  auto found = entries->find(*key);
  if (found == entries->end()) return std::nullopt;
  const ffi::Any& value = found->second;
  if (auto text = value.try_cast<ffi::String>()) return std::string(*text);
  switch (value.type_index()) {
    case ffi::TypeIndex::kTVMFFIBool: return value.cast<bool>() ? "True" : "False";
    case ffi::TypeIndex::kTVMFFIInt: return std::to_string(value.cast<std::int64_t>());
    case ffi::TypeIndex::kTVMFFIFloat: return python_text(value.cast<double>());
    default: return std::nullopt;
  }
}

}  // namespace

ffi::String pass_name(ffi::AnyView info) {
  return kName.read(info.as<ffi::Object>()).cast<ffi::String>();
}

/// The name the seed gives one function: its global symbol, else its
/// GlobalVar's name hint.
std::optional<std::string> function_name(const ffi::Any& global_var, const ffi::Any& function) {
  if (std::optional<std::string> symbol = global_symbol(function)) return symbol;
  ffi::Any hint = kNameHint.read(global_var.as<ffi::Object>());
  if (auto text = hint.try_cast<ffi::String>()) return std::string(*text);
  return std::nullopt;
}

std::string kernel_label(ffi::AnyView mod) noexcept {
  try {
    ffi::Any functions = kFunctions.read(mod.as<ffi::Object>());
    const auto* map = functions.as<ffi::MapObj>();
    if (map == nullptr) return "";
    if (map->size() == 1) {
      // The common case in a lowering pipeline: one function, its name.
      const auto& [global_var, function] = *map->begin();
      return function_name(global_var, function).value_or("");
    }
    std::vector<std::string> names;
    names.reserve(map->size());
    for (const auto& [global_var, function] : *map) {
      if (std::optional<std::string> name = function_name(global_var, function)) {
        names.push_back(std::move(*name));
      }
    }
    // The label rule (first, then "+N more" distinct others) is the core's.
    return passtiming::kernel_label(std::vector<std::string_view>(names.begin(), names.end()));
  } catch (...) {
    return "";
  }
}

}  // namespace passtiming::tvm
