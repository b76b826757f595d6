#pragma once
/// \file
/// TVM's PassInstrument contract: five callbacks around every pass of a
/// PassContext, plus one passtiming extension for vetoed passes.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/host/ir_module.h"

namespace passtiming {

/// What a pass is: TVM's PassInfo. `required` lists the passes this one
/// depends on (informational, as in TVM).
struct PassInfo {
  std::string name;
  int opt_level = 0;
  std::vector<std::string> required;
};

/// An observer of a PassContext. Every callback has a do-nothing default.
///
///     class Printer : public passtiming::PassInstrument {
///       void run_before_pass(const IRModule&, const PassInfo& info) override {
///       puts(info.name.c_str()); }
///     };
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  /// A name for messages.
  virtual std::string_view name() const { return "PassInstrument"; }
  /// The context is entered; called in list order.
  virtual void enter_pass_ctx() {}
  /// The context is left; called in list order.
  virtual void exit_pass_ctx() {}
  /// Asked before every pass that is not required; all instruments are asked
  /// and all must agree for the pass to run.
  virtual bool should_run(const IRModule&, const PassInfo&) { return true; }
  /// The pass is about to run.
  virtual void run_before_pass(const IRModule&, const PassInfo&) {}
  /// The pass has returned normally; `mod` is its result.
  virtual void run_after_pass(const IRModule&, const PassInfo&) {}
  /// passtiming extension: `should_run` vetoed the pass, which did not run.
  virtual void run_skipped_pass(const IRModule&, const PassInfo&) {}
};

using PassInstrumentPtr = std::shared_ptr<PassInstrument>;

}  // namespace passtiming
