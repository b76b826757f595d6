#include "passtiming/host/ir_module.h"

namespace passtiming {

IRModule::IRModule(std::vector<Function> functions) : functions_(std::move(functions)) {}

void IRModule::add_function(Function function) {
  functions_.push_back(std::move(function));
  label_valid_ = false;
}

void IRModule::clear() {
  functions_.clear();
  label_valid_ = false;
}

void IRModule::compute_label() const {
  std::vector<std::string_view> symbols;
  symbols.reserve(functions_.size());
  for (const Function& f : functions_) symbols.push_back(f.symbol());
  label_ = passtiming::kernel_label(symbols);
  label_valid_ = true;
}

}  // namespace passtiming
