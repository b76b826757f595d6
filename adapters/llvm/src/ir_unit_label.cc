// The kernel label of an IR unit as LLVM's instrumentation callbacks pass it:
// an `llvm::Any` holding a const pointer to a Module, Function, Loop,
// LazyCallGraph::SCC or MachineFunction.

#include <llvm/ADT/Any.h>
#include <llvm/Analysis/LazyCallGraph.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/CodeGen/MachineFunction.h>
#include <llvm/IR/Analysis.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "passtiming/engine/kernel_label.h"
#include "passtiming/llvm.h"

namespace passtiming::llvm {
namespace {

std::string_view view(::llvm::StringRef text) {
  return {text.data(), text.size()};
}

/// The unit's pointer when `ir` holds a `const T*`, else null. any_cast on a
/// pointer compares one type id, which keeps this cheap on every pass.
template <typename T>
const T* unit_of(const ::llvm::Any& ir) {
  const T* const* unit = ::llvm::any_cast<const T*>(&ir);
  return unit ? *unit : nullptr;
}

/// Every instruction of `function` (none for a declaration). Not
/// `Function::getInstructionCount()`, which skips debug intrinsics and
/// pseudo probes by testing each instruction: about 170 instructions per
/// instruction counted, against 6 for walking the lists (callgrind, an -O2
/// compile of examples/c/particles.c). LLVM 19 keeps debug information as
/// records beside the instructions, so there is usually nothing to skip.
std::int64_t instructions_of(const ::llvm::Function& function) {
  std::int64_t count = 0;
  for (const ::llvm::BasicBlock& block : function) count += static_cast<std::int64_t>(block.size());
  return count;
}

}  // namespace

std::string_view ir_unit_label(const ::llvm::Any& ir, std::string& scratch,
                               std::vector<std::string_view>& symbols) {
  // Function passes are by far the most frequent, so they are tried first.
  if (const auto* function = unit_of<::llvm::Function>(ir)) return view(function->getName());
  if (const auto* loop = unit_of<::llvm::Loop>(ir)) {
    return view(loop->getHeader()->getParent()->getName());
  }
  if (const auto* scc = unit_of<::llvm::LazyCallGraph::SCC>(ir)) {
    // Most SCCs are one function: its own name, a stable buffer that the
    // name cache already holds from the function's passes.
    if (scc->size() == 1) return view(scc->begin()->getFunction().getName());
    symbols.clear();
    for (const ::llvm::LazyCallGraph::Node& node : *scc) {
      symbols.push_back(view(node.getFunction().getName()));
    }
    scratch = kernel_label(symbols);
    return scratch;
  }
  if (const auto* module = unit_of<::llvm::Module>(ir)) return module->getModuleIdentifier();
  if (const auto* machine = unit_of<::llvm::MachineFunction>(ir)) return view(machine->getName());
  return {};
}

const void* ir_unit_identity(const ::llvm::Any& ir) {
  if (const auto* function = unit_of<::llvm::Function>(ir)) return function;
  if (const auto* loop = unit_of<::llvm::Loop>(ir)) return loop->getHeader()->getParent();
  if (const auto* module = unit_of<::llvm::Module>(ir)) return module;
  if (const auto* machine = unit_of<::llvm::MachineFunction>(ir)) return machine;
  return nullptr;
}

std::string_view ir_module_identifier(const ::llvm::Any& ir) {
  if (const auto* module = unit_of<::llvm::Module>(ir)) return module->getModuleIdentifier();
  if (const auto* function = unit_of<::llvm::Function>(ir)) {
    if (const ::llvm::Module* module = function->getParent()) return module->getModuleIdentifier();
  }
  if (const auto* loop = unit_of<::llvm::Loop>(ir)) {
    if (const ::llvm::Module* module = loop->getHeader()->getParent()->getParent()) {
      return module->getModuleIdentifier();
    }
  }
  if (const auto* machine = unit_of<::llvm::MachineFunction>(ir)) {
    return machine->getFunction().getParent()->getModuleIdentifier();
  }
  return {};
}

std::int64_t ir_unit_size(const ::llvm::Any& ir) {
  if (const auto* function = unit_of<::llvm::Function>(ir)) return instructions_of(*function);
  // A loop pass may change the whole function (hoisting, unswitching), so
  // the function is what is counted, as it is what the label names.
  if (const auto* loop = unit_of<::llvm::Loop>(ir)) {
    return instructions_of(*loop->getHeader()->getParent());
  }
  if (const auto* scc = unit_of<::llvm::LazyCallGraph::SCC>(ir)) {
    std::int64_t count = 0;
    for (const ::llvm::LazyCallGraph::Node& node : *scc)
      count += instructions_of(node.getFunction());
    return count;
  }
  if (const auto* module = unit_of<::llvm::Module>(ir)) {
    std::int64_t count = 0;
    for (const ::llvm::Function& function : *module) count += instructions_of(function);
    return count;
  }
  return kNotMeasured;
}

std::uint8_t ir_flags_of(const ::llvm::PreservedAnalyses& preserved) {
  if (preserved.areAllPreserved()) return kIrChangeKnown | kIrPreservedKnown | kIrPreservedAll;
  return kIrChangeKnown | kIrChanged | kIrPreservedKnown;
}

}  // namespace passtiming::llvm
