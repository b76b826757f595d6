#pragma once
/// \file
/// passtiming::tvm: a native TVM PassInstrument. It is built on the headers
/// of apache-tvm-ffi alone (the C ABI that TileLang's and Apache TVM's
/// `libtvm` share) and creates a real `tvm.ir.instrument.PassInstrument`
/// through TVM's registered function `instrument.PassInstrument`. Its four
/// callbacks are C++ functions: no Python runs inside a pass callback.
///
///     passtiming::TileLangPassTimingInstrument timing;
///     tvm::ffi::ObjectRef instrument = passtiming::tvm::make_pass_instrument(timing.events());
///     // put `instrument` in a PassContext's instruments, run the pipeline, then:
///     timing.print_report("stage=lower");

#include <tvm/ffi/any.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "passtiming/recorder/pass_event_sink.h"

namespace passtiming::tvm {

/// The name TVM shows for the instrument, as the seed names it.
inline constexpr std::string_view kInstrumentName = "TileLangPassTimingInstrument";

/// A new `instrument.PassInstrument` named `name` whose enter/exit/before/
/// after callbacks feed `events`; it has no `should_run`, like the seed's.
/// The instrument shares `events` and nothing else. Before each pass it reads
/// the pass name from the PassInfo and the kernel label from the IRModule
/// (kernel_label), then calls `events`; after each pass it calls `events`
/// first. The callbacks never throw into TVM.
///
/// When `events->records_ir_size()` (the `ir` metric; asked as each
/// PassContext is entered, for the passes of that context), the module is also
/// measured before and after each pass, outside the pass's measured time:
/// before the pass, ir_node_count() and ir_structural_hash() go to
/// `events->note_ir()` ahead of `run_before_pass`; after it, they are taken
/// inside `events->run_after_pass_counting_ir()`, after the sink's clock
/// read. The pass changed the module (kIrChangeKnown | kIrChanged) when the
/// two hashes differ; with either hash unavailable the change is unknown.
/// Without `ir`, neither is computed.
///
/// Throws std::runtime_error when no TVM is loaded in the process (the
/// function `instrument.PassInstrument` is not registered), naming it.
::tvm::ffi::ObjectRef make_pass_instrument(std::shared_ptr<PassEventSink> events,
                                           std::string_view name = kInstrumentName);

/// The seed's kernel label of an IRModule: for each of `mod.functions`, its
/// `attrs["global_symbol"]`, else its GlobalVar's `name_hint`; the distinct
/// names in map order give "" (none), "first", or "first +N more". Read
/// through TVM's reflection, so it works on any TVM whose types register
/// those fields. Never throws: anything unreadable gives "", as in the seed.
std::string kernel_label(::tvm::ffi::AnyView mod) noexcept;

/// The size of an IRModule (or of any object) as the `ir` metric counts it:
/// the number of distinct objects of types the host registers (type index
/// ≥ kTVMFFIDynObjectBegin: statements, expressions, buffers, variables,
/// functions, global variables, attribute dictionaries, the module itself)
/// reachable from `mod` through their reflected fields, each counted once
/// however often it is referenced. Fields that structural equality ignores
/// (spans, the module's source map) are not followed. Arrays, lists, maps
/// and dicts are walked (map keys and values) but not counted; strings,
/// bytes, shapes, tensors and functions are neither counted nor walked.
/// kNotMeasured (-1) for a value that is not an object or a failing walk;
/// never throws. Cost: one visit per object, O(module size).
///
///     std::int64_t before = passtiming::tvm::ir_node_count(mod);
std::int64_t ir_node_count(::tvm::ffi::AnyView mod) noexcept;

/// tvm-ffi's structural hash of `mod` (free variables not mapped, tensor
/// contents skipped: a pass that only rewrites a constant's bytes is not
/// seen), or nothing when `mod` is no object or its types cannot be hashed.
/// Never throws. Cost: a walk of the module, like ir_node_count().
std::optional<std::uint64_t> ir_structural_hash(::tvm::ffi::AnyView mod) noexcept;

/// The `name` of a `transform.PassInfo`, the String itself (no copy);
/// throws a tvm::ffi::Error when `info` has none.
::tvm::ffi::String pass_name(::tvm::ffi::AnyView info);

}  // namespace passtiming::tvm
