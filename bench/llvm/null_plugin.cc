// A pass plugin that registers the same four callbacks as libpasstiming_llvm.so,
// in the same places, with empty bodies. It splits the plugin's cost on a real
// compile into what LLVM spends calling any instrumentation (an llvm::Any per
// callback, the pass's name, the indirect calls) and what passtiming spends.
// With PASSTIMING_NULL_CALLBACKS=0 it registers nothing: the cost of loading a
// plugin at all.

#include <llvm/ADT/Any.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>

#include <cstdlib>
#include <cstring>

namespace {

void register_empty_callbacks(llvm::PassBuilder& builder) {
  llvm::PassInstrumentationCallbacks* callbacks = builder.getPassInstrumentationCallbacks();
  if (!callbacks) return;
  const char* enabled = std::getenv("PASSTIMING_NULL_CALLBACKS");
  if (enabled && std::strcmp(enabled, "0") == 0) return;
  using llvm::Any;
  using llvm::PreservedAnalyses;
  using llvm::StringRef;
  callbacks->registerBeforeNonSkippedPassCallback([](StringRef, Any) {});
  callbacks->registerAfterPassCallback([](StringRef, Any, const PreservedAnalyses&) {},
                                       /*ToFront=*/true);
  callbacks->registerAfterPassInvalidatedCallback([](StringRef, const PreservedAnalyses&) {},
                                                  /*ToFront=*/true);
  callbacks->registerBeforeSkippedPassCallback([](StringRef, Any) {});
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "passtiming-null", "0",
          [](llvm::PassBuilder& builder) { register_empty_callbacks(builder); }};
}
