#include "ir_labels.h"

#include <string_view>
#include <vector>

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "passtiming/engine/kernel_label.h"

namespace passtiming::mlir::detail {
namespace {

std::string_view symbol_of(::mlir::Operation& op) {
  auto name = op.getAttrOfType<::mlir::StringAttr>(::mlir::SymbolTable::getSymbolAttrName());
  if (!name) return {};
  return std::string_view(name.getValue().data(), name.getValue().size());
}

}  // namespace

std::string op_label(::mlir::Operation* op) {
  if (op == nullptr) return {};
  if (std::string_view own = symbol_of(*op); !own.empty()) return std::string(own);
  if (!op->hasTrait<::mlir::OpTrait::SymbolTable>() || op->getNumRegions() != 1 ||
      op->getRegion(0).empty()) {
    return {};
  }
  // Function definitions only: declarations (runtime helpers such as
  // `memrefCopy`) are not kernels.
  std::vector<std::string_view> symbols;
  for (::mlir::Operation& child : op->getRegion(0).front()) {
    auto function = ::mlir::dyn_cast<::mlir::FunctionOpInterface>(child);
    if (!function || function.isExternal()) continue;
    if (std::string_view name = symbol_of(child); !name.empty()) symbols.push_back(name);
  }
  return kernel_label(symbols);
}

bool is_pass_adaptor(const ::mlir::Pass& pass) {
  // The adaptor class lives in MLIR's private headers, so it is recognised by
  // its type name (PassWrapper names a pass after its C++ type).
  return pass.getName() == "mlir::detail::OpToOpPassAdaptor";
}

std::string adaptor_name(::mlir::Pass& adaptor) {
  // The textual pipeline of an adaptor is "a.op(passes),b.op(passes)": the
  // op names are the texts before each '(' at nesting level 0.
  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  adaptor.printAsTextualPipeline(os);
  os.flush();
  std::string name = "Pipeline Collection : [";
  std::string current;
  int level = 0;
  bool first = true;
  for (char c : pipeline) {
    if (c == '(' || c == '{') {
      if (level == 0 && c == '(') {
        if (!first) name += ", ";
        name += "'" + current + "'";
        first = false;
      }
      ++level;
    } else if (c == ')' || c == '}') {
      --level;
      current.clear();
    } else if (level == 0 && c != ',' && c != ' ') {
      current += c;
    }
  }
  name += "]";
  return name;
}

std::string pipeline_name(std::optional<::mlir::OperationName> op_name) {
  std::string name = "'";
  if (op_name) {
    llvm::StringRef text = op_name->getStringRef();
    name.append(text.data(), text.size());
  } else {
    name += "any";
  }
  name += "' Pipeline";
  return name;
}

}  // namespace passtiming::mlir::detail
