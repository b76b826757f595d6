#pragma once
/// \file
/// The four callbacks of a live pass host, as the thing that times them
/// receives them.

#include <cstdint>
#include <string_view>

namespace passtiming {

/// What a live event source calls around the passes of one PassContext. The
/// receiver reads the clock itself, last in run_before_pass and first in
/// run_after_pass, so the source's own work (reading the pass name, labelling
/// the IR unit) stays outside the measured time.
///
/// Nothing here throws: a profiler must never break the compile it observes.
/// The interface is virtual functions and nothing else so that a source
/// built into another shared object (the TVM adapter, loaded next to the
/// Python module) drives an object made here with this library's code.
///
///     passtiming::TileLangPassTimingInstrument timing;
///     std::shared_ptr<passtiming::PassEventSink> sink = timing.events();
///     sink->enter_pass_ctx();
///     sink->run_before_pass("tl.Simplify", "matmul");
///     sink->run_after_pass("tl.Simplify");
///     sink->exit_pass_ctx();  // timing.records() now holds one record
class PassEventSink {
 public:
  virtual ~PassEventSink() = default;
  /// The PassContext is entered: the previous context's records are cleared.
  virtual void enter_pass_ctx() noexcept = 0;
  /// The PassContext is left: passes still running are discarded with a
  /// warning; the records stay.
  virtual void exit_pass_ctx() noexcept = 0;
  /// `pass` starts on an IR unit labelled `kernel` ("" for none).
  virtual void run_before_pass(std::string_view pass, std::string_view kernel) noexcept = 0;
  /// `pass` has returned normally.
  virtual void run_after_pass(std::string_view pass) noexcept = 0;

  /// Whether the receiver records the `ir` metric (metrics.h): only then is
  /// counting the IR worth the source's time.
  virtual bool records_ir_size() const noexcept { return false; }
  /// The size of the pass's IR unit and (after a pass) its IrFlags, for the
  /// run_before_pass() or run_after_pass() that follows on this thread.
  virtual void note_ir(std::int64_t size, std::uint8_t flags) noexcept {
    (void)size;
    (void)flags;
  }

  /// Counts a pass's IR unit after the pass, for run_after_pass_counting_ir():
  /// returns its size and sets `flags` (IrFlags). Must not throw.
  using IrCounter = std::int64_t (*)(void* context, std::uint8_t& flags) noexcept;
  /// run_after_pass() for a source that counts the IR unit after the pass
  /// (when records_ir_size()): the receiver reads the clock and its other
  /// figures (CPU time, instructions, RSS) first, then calls
  /// `count(context, flags)` and records what it returns as note_ir() would,
  /// so the counting stays outside everything measured for the pass. The
  /// default counts, calls note_ir(), then run_after_pass(): right for a
  /// receiver that reads nothing itself.
  ///
  ///     sink->run_after_pass_counting_ir("tl.Simplify", &count_module, &module);
  virtual void run_after_pass_counting_ir(std::string_view pass, IrCounter count,
                                          void* context) noexcept {
    std::uint8_t flags = 0;
    const std::int64_t size = count(context, flags);
    note_ir(size, flags);
    run_after_pass(pass);
  }
};

}  // namespace passtiming
