#pragma once
/// \file
/// The module that passes transform. It carries only what instruments look
/// at: its functions and their global symbols.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/kernel_label.h"

namespace passtiming {

/// A function of a module. `global_symbol` is its linkage name (TVM's
/// `attrs["global_symbol"]`); empty when it has none.
struct Function {
  std::string name;
  std::string global_symbol;

  /// The symbol when there is one, else the name.
  std::string_view symbol() const { return global_symbol.empty() ? name : global_symbol; }
};

/// A module of functions. Its kernel label is computed once and kept until
/// the functions change, so instruments read it at no cost per pass.
///
///     IRModule mod;
///     mod.add_function({"main", "matmul_kernel"});
///     mod.kernel_label();  // "matmul_kernel"
class IRModule {
 public:
  IRModule() = default;
  explicit IRModule(std::vector<Function> functions);
  IRModule(std::initializer_list<Function> functions)
      : IRModule(std::vector<Function>(functions)) {}

  const std::vector<Function>& functions() const { return functions_; }
  void add_function(Function function);
  void clear();

  /// The label instruments attach to the passes run on this module,
  /// computed once and kept until the functions change.
  const std::string& kernel_label() const {
    if (!label_valid_) compute_label();
    return label_;
  }

 private:
  void compute_label() const;
  std::vector<Function> functions_;
  mutable std::string label_;
  mutable bool label_valid_ = false;
};

}  // namespace passtiming
