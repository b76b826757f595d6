#pragma once
/// \file
/// TVM's PassContext in C++: typed config values, an ordered list of
/// instruments, and a thread-local stack of current contexts entered through
/// an RAII scope.

#include <cstdint>
#include <string>
#include <vector>

#include "passtiming/host/pass_instrument.h"
#include "passtiming/recorder/config.h"

namespace passtiming {

/// What a PassContext is made of.
struct PassContextOptions {
  int opt_level = 2;
  std::vector<std::string> required_passes;  ///< run even above opt_level; should_run is not asked
  std::vector<std::string> disabled_passes;  ///< never run
  PassConfig config;                         ///< validated against the registry
  std::vector<PassInstrumentPtr> instruments;
};

/// The context passes run in.
///
///     passtiming::PassContext ctx({.config = {{"tl.pass_profile", true}},
///                                  .instruments = {timing->instrument()}});
///     auto scope = ctx.enter();           // enter_pass_ctx on each instrument
///     mod = pipeline(mod);                // passes find the context via current()
///                                         // scope's end: exit_pass_ctx
class PassContext {
 public:
  /// Validates the config against `registry` (ConfigError on an unknown key
  /// or a mistyped value).
  explicit PassContext(PassContextOptions options = {},
                       const ConfigRegistry& registry = ConfigRegistry::global());
  PassContext(const PassContext&) = delete;
  PassContext& operator=(const PassContext&) = delete;

  /// The innermost entered context of this thread, or a per-thread default
  /// context (opt_level 2, no config, no instruments).
  static PassContext& current();

  int opt_level() const { return options_.opt_level; }
  const PassConfig& config() const { return options_.config; }
  const std::vector<PassInstrumentPtr>& instruments() const { return options_.instruments; }
  /// Passes vetoed by should_run since construction.
  std::uint64_t skipped_passes() const { return skipped_; }

  /// Whether a Sequential runs `info` at all: not disabled, and required or
  /// within opt_level.
  bool pass_enabled(const PassInfo& info) const;
  /// Whether `info` is in required_passes.
  bool pass_required(const PassInfo& info) const;

  /// enter_pass_ctx on each instrument in order. If one throws, those
  /// already entered get exit_pass_ctx in reverse order, the instrument list
  /// is cleared and the exception propagates.
  void instrument_enter_pass_ctx();
  /// exit_pass_ctx on each instrument in order. Every instrument is exited
  /// even when one throws; the first exception is rethrown afterwards and the
  /// instrument list is cleared, as TVM clears it.
  void instrument_exit_pass_ctx();
  /// should_run on every instrument (no short-circuit) unless the pass is
  /// required; when all agree, run_before_pass on every instrument and
  /// returns true. Otherwise counts the pass as skipped, tells instruments
  /// through run_skipped_pass, and returns false.
  bool instrument_before_pass(const IRModule& mod, const PassInfo& info);
  /// run_after_pass on every instrument in order.
  void instrument_after_pass(const IRModule& mod, const PassInfo& info);

  /// Makes this context current for the scope's lifetime.
  class [[nodiscard]] Scope {
   public:
    explicit Scope(PassContext& context);
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    /// Leaves the context if `exit()` was not called. Never throws: an
    /// instrument that throws from exit_pass_ctx here is logged on the
    /// `passtiming` logger, so the exception that may be unwinding the scope
    /// is never replaced or turned into std::terminate.
    ~Scope();
    /// Leaves the context now; an exception from exit_pass_ctx propagates.
    void exit();

   private:
    PassContext* context_;
  };

  /// Enters the context (see Scope).
  Scope enter() { return Scope(*this); }

 private:
  PassContextOptions options_;
  std::uint64_t skipped_ = 0;
};

}  // namespace passtiming
