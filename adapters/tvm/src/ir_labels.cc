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
#include <string_view>
#include <vector>

#include "object_fields.h"
#include "pass_name_view.h"
#include "passtiming/engine/kernel_label.h"
#include "passtiming/tvm.h"
#include "remembered_label.h"

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

/// `attrs.get("global_symbol")` of a function whose `attrs` are `attrs`, as
/// the seed's str() of it gives it (TVM stores a String; a number or bool is
/// written as Python writes it), or nothing when absent or None. Another
/// kind of object is taken as absent: its Python str() is a printout only
/// Python can make.
std::optional<std::string> global_symbol_in(const ffi::Any& attrs) {
  ffi::Any dict = kAttrsDict.read(detail::object_of(attrs));
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

std::optional<std::string> global_symbol(const ffi::Any& function) {
  return global_symbol_in(kAttrs.read(detail::object_of(function)));
}

/// The name of a function without a global symbol: its GlobalVar's hint.
std::optional<std::string> name_hint(const ffi::Any& global_var) {
  ffi::Any hint = kNameHint.read(detail::object_of(global_var));
  if (auto text = hint.try_cast<ffi::String>()) return std::string(*text);
  return std::nullopt;
}

/// What remembered_kernel_label() keeps on a thread. The held object is
/// let go of by forget_remembered_label(), never by a destructor at exit,
/// which could run after the library that frees it is gone.
struct RememberedLabel {
  /// The attribute dictionary last seen, with one reference held; or null.
  const ffi::Object* attrs = nullptr;
  /// Its global symbol, as global_symbol_in() read it.
  std::optional<std::string> symbol;
  /// The last label made otherwise, which the returned view points into.
  std::string label;
};

/// The thread's RememberedLabel, made at its first use. A plain pointer, so
/// that the pass callbacks reach it in one call into the dynamic loader: a
/// thread_local with a destructor costs every access a second one, for its
/// guard.
thread_local RememberedLabel* remembered = nullptr;

/// Frees the thread's RememberedLabel when the thread ends (its strings;
/// the held dictionary stays held, as said above).
struct RememberedLabelOwner {
  ~RememberedLabelOwner() {
    delete remembered;
    remembered = nullptr;
  }
};

RememberedLabel& remembered_label() {
  if (remembered == nullptr) [[unlikely]] {
    thread_local RememberedLabelOwner owner;
    remembered = new RememberedLabel();
  }
  return *remembered;
}

void hold(RememberedLabel& memo, const ffi::Object* attrs) noexcept {
  if (memo.attrs != nullptr) {
    TVMFFIObjectDecRef(const_cast<ffi::Object*>(memo.attrs));
  }
  memo.attrs = attrs;
  if (attrs != nullptr) TVMFFIObjectIncRef(const_cast<ffi::Object*>(attrs));
}

/// The label of a module of one function, the symbol remembered by `attrs`.
std::string_view single_function_label(RememberedLabel& memo, const ffi::Any& global_var,
                                       const ffi::Any& function) {
  ffi::Any attrs = kAttrs.read(detail::object_of(function));
  const ffi::Object* object = detail::object_of(attrs);
  if (object == nullptr || object != memo.attrs) {
    memo.symbol = global_symbol_in(attrs);
    hold(memo, object);
  }
  if (memo.symbol) return *memo.symbol;
  memo.label = name_hint(global_var).value_or("");
  return memo.label;
}

}  // namespace

ffi::String pass_name(ffi::AnyView info) {
  return kName.read(detail::object_of(info)).cast<ffi::String>();
}

/// The name the seed gives one function: its global symbol, else its
/// GlobalVar's name hint.
std::optional<std::string> function_name(const ffi::Any& global_var, const ffi::Any& function) {
  if (std::optional<std::string> symbol = global_symbol(function)) return symbol;
  return name_hint(global_var);
}

std::string kernel_label(ffi::AnyView mod) noexcept {
  try {
    ffi::Any functions = kFunctions.read(detail::object_of(mod));
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

namespace detail {

std::string_view pass_name_view(ffi::AnyView info) noexcept {
  try {
    const ffi::Object* object = detail::object_of(info);
    if (std::optional<std::string_view> text = kName.borrow_text(object)) return *text;
    if (object == nullptr) return {};
    thread_local std::string copy;
    const ffi::String name = pass_name(info);
    copy.assign(name.data(), name.size());
    return copy;
  } catch (...) {
    return {};
  }
}

namespace {

/// The remembered symbol when `mod` is one function whose attribute
/// dictionary is the remembered one, read through borrowed pointers: no
/// getter is called and no reference taken, which is most of what a label
/// costs. Null otherwise.
const std::string* symbol_of_remembered_attrs(const RememberedLabel& memo, ffi::AnyView mod) {
  if (memo.attrs == nullptr || !memo.symbol) return nullptr;
  const std::optional<const ffi::Object*> functions = kFunctions.borrow(detail::object_of(mod));
  if (!functions || *functions == nullptr ||
      (*functions)->type_index() != ffi::TypeIndex::kTVMFFIMap) {
    return nullptr;
  }
  const auto* map = static_cast<const ffi::MapObj*>(*functions);
  if (map->size() != 1) return nullptr;
  const ffi::Object* function = detail::object_of(map->begin()->second);
  const std::optional<const ffi::Object*> attrs = kAttrs.borrow(function);
  return attrs && *attrs == memo.attrs ? &*memo.symbol : nullptr;
}

/// remembered_kernel_label() when the memo does not answer: the label read
/// from the module, and remembered. Out of line, so that the answer from the
/// memo, once a pass, runs in a few lines of code.
[[gnu::noinline]] std::string_view label_and_remember(ffi::AnyView mod) noexcept {
  try {
    RememberedLabel& memo = remembered_label();
    ffi::Any functions = kFunctions.read(detail::object_of(mod));
    const auto* map = functions.as<ffi::MapObj>();
    if (map != nullptr && map->size() == 1) {
      const auto& [global_var, function] = *map->begin();
      return single_function_label(memo, global_var, function);
    }
    memo.label = kernel_label(mod);
    return memo.label;
  } catch (...) {
    // Anything unreadable gives "", as kernel_label() gives it.
    return {};
  }
}

}  // namespace

std::string_view remembered_kernel_label(ffi::AnyView mod) noexcept {
  // The thread's memo read once: each access of a thread_local in a loaded
  // library is a call into the dynamic loader.
  if (const RememberedLabel* memo = remembered) [[likely]] {
    try {
      if (const std::string* symbol = symbol_of_remembered_attrs(*memo, mod)) return *symbol;
    } catch (...) {
      return {};
    }
  }
  return label_and_remember(mod);
}

void forget_remembered_label() noexcept {
  // A thread that never labelled a module has nothing to forget.
  if (remembered == nullptr) return;
  hold(*remembered, nullptr);
  remembered->symbol.reset();
}

}  // namespace detail

}  // namespace passtiming::tvm
