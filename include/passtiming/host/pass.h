#pragma once
/// \file
/// Passes: a module pass made from a function, and a Sequential of passes.
/// Calling a pass runs it inside the current PassContext's instrumentation,
/// so a pass that calls other passes nests their callbacks inside its own.

#include <functional>
#include <memory>
#include <vector>

#include "passtiming/host/ir_module.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/pass_instrument.h"

namespace passtiming {

/// A transformation of a module.
class Pass {
 public:
  explicit Pass(PassInfo info) : info_(std::move(info)) {}
  virtual ~Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;

  const PassInfo& info() const { return info_; }

  /// Runs the pass in PassContext::current(), instrumented.
  IRModule operator()(IRModule mod) const {
    return (*this)(std::move(mod), PassContext::current());
  }
  /// Runs the pass in `context`: before-callbacks (or a veto, and the module
  /// comes back unchanged), the pass, after-callbacks. An exception from the
  /// pass propagates with no after-callbacks.
  IRModule operator()(IRModule mod, PassContext& context) const;

 protected:
  /// The transformation itself, uninstrumented.
  virtual IRModule run(IRModule mod, PassContext& context) const = 0;

 private:
  PassInfo info_;
};

using PassPtr = std::shared_ptr<const Pass>;

/// The body of a module pass.
using ModulePassFunction = std::function<IRModule(IRModule, PassContext&)>;

/// A pass made from a function.
///
///     auto simplify = passtiming::make_module_pass(
///         [](IRModule m, PassContext&) { return m; }, {.name = "Simplify", .opt_level = 0});
PassPtr make_module_pass(ModulePassFunction body, PassInfo info);

/// Runs passes in order, skipping those the context disables (TVM's
/// Sequential). It is itself a pass, so its callbacks enclose its children's.
///
///     auto pipeline = passtiming::make_sequential({simplify, lower}, "tl.lower");
PassPtr make_sequential(std::vector<PassPtr> passes, std::string name = "sequential",
                        int opt_level = 0);

}  // namespace passtiming
