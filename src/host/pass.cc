#include "passtiming/host/pass.h"

namespace passtiming {
namespace {

class FunctionPass final : public Pass {
 public:
  FunctionPass(ModulePassFunction body, PassInfo info)
      : Pass(std::move(info)), body_(std::move(body)) {}

 protected:
  IRModule run(IRModule mod, PassContext& context) const override {
    return body_(std::move(mod), context);
  }

 private:
  ModulePassFunction body_;
};

class Sequential final : public Pass {
 public:
  Sequential(std::vector<PassPtr> passes, PassInfo info)
      : Pass(std::move(info)), passes_(std::move(passes)) {}

 protected:
  IRModule run(IRModule mod, PassContext& context) const override {
    for (const PassPtr& pass : passes_) {
      if (!context.pass_enabled(pass->info())) continue;
      mod = (*pass)(std::move(mod), context);
    }
    return mod;
  }

 private:
  std::vector<PassPtr> passes_;
};

}  // namespace

IRModule Pass::operator()(IRModule mod, PassContext& context) const {
  if (!context.instrument_before_pass(mod, info_)) return mod;
  IRModule result = run(std::move(mod), context);
  context.instrument_after_pass(result, info_);
  return result;
}

PassPtr make_module_pass(ModulePassFunction body, PassInfo info) {
  return std::make_shared<FunctionPass>(std::move(body), std::move(info));
}

PassPtr make_sequential(std::vector<PassPtr> passes, std::string name, int opt_level) {
  return std::make_shared<Sequential>(std::move(passes), PassInfo{std::move(name), opt_level, {}});
}

}  // namespace passtiming
