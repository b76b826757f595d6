#pragma once
/// \file
/// What the MLIR adapter calls things: the kernel label of an operation and
/// the display name of a pass or a nested pipeline.

#include <optional>
#include <string>

#include "mlir/IR/OperationSupport.h"

namespace mlir {
class Operation;
class Pass;
}  // namespace mlir

namespace passtiming::mlir::detail {

/// The operation's symbol name (`func.func @f` gives "f"). An unnamed symbol
/// table, as the usual `builtin.module`, is labelled by the functions it
/// defines, as the seed labels a module: "f", or "f +N more". "" otherwise.
/// Reads only `op` and its direct children: call it from the thread that
/// owns `op` at that moment.
std::string op_label(::mlir::Operation* op);

/// True for MLIR's pass adaptor, the pass that runs nested pipelines.
bool is_pass_adaptor(const ::mlir::Pass& pass);

/// The adaptor's name as `-mlir-timing` shows it:
/// "Pipeline Collection : ['func.func', 'gpu.module']".
std::string adaptor_name(::mlir::Pass& adaptor);

/// A nested pipeline's name as `-mlir-timing` shows it: "'func.func' Pipeline"
/// ("'any' Pipeline" for an op-agnostic one).
std::string pipeline_name(std::optional<::mlir::OperationName> op_name);

}  // namespace passtiming::mlir::detail
