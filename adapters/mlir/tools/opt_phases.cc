#include "opt_phases.h"

#include <cstddef>
#include <functional>
#include <thread>
#include <utility>

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "passtiming/recorder/compile_session.h"

namespace passtiming::mlir_opt {
namespace {

const char* name_of(int kind) {
  static const char* const names[] = {"", "parse", "pipeline", "output", "teardown"};
  return names[kind];
}

/// Ends the pipeline phase when the pass manager's last top-level pass ends
/// (or one fails), and the output phase when the pass manager is destroyed:
/// mlir-opt destroys it right after printing, before the IR.
class PhaseInstrumentation final : public ::mlir::PassInstrumentation {
 public:
  PhaseInstrumentation(OptPhases& phases, ::mlir::PassManager& pm)
      : phases_(phases), pm_(pm), thread_(std::this_thread::get_id()) {}
  ~PhaseInstrumentation() override { phases_.pass_manager_destroyed(); }

  void runBeforePass(::mlir::Pass*, ::mlir::Operation*) override {
    // Top-level passes run on the thread that called PassManager::run;
    // nested ones run deeper there or on MLIR's workers.
    if (std::this_thread::get_id() != thread_) return;
    // The pass list is final once run() has begun: adjacent adaptors are
    // merged by then, so this is the number of top-level passes to wait for.
    if (depth_++ == 0 && total_ == 0) total_ = pm_.size();
  }
  void runAfterPass(::mlir::Pass*, ::mlir::Operation*) override { after(/*failed=*/false); }
  void runAfterPassFailed(::mlir::Pass*, ::mlir::Operation*) override { after(/*failed=*/true); }

 private:
  void after(bool failed) {
    if (std::this_thread::get_id() != thread_ || depth_ == 0) return;
    if (--depth_ != 0) return;
    // MLIR stops the pipeline at a failing top-level pass.
    if (failed || ++done_ == total_) phases_.top_level_passes_done(failed);
  }

  OptPhases& phases_;
  ::mlir::PassManager& pm_;
  const std::thread::id thread_;
  std::size_t depth_ = 0;
  std::size_t total_ = 0;
  std::size_t done_ = 0;
};

}  // namespace

OptPhases::OptPhases(CompileSession& session, std::string input)
    : session_(session), input_(std::move(input)) {}

void OptPhases::begin_compile() {
  compile_ = session_.begin_phase("compile", input_);
}

void OptPhases::begin_parse() {
  switch_to(Kind::parse, false);
}

void OptPhases::watch_contexts(::mlir::DialectRegistry& registry) {
  // MLIRContext's constructor loads the builtin dialect, which applies this.
  registry.addExtension(std::function<void(::mlir::MLIRContext*, ::mlir::BuiltinDialect*)>(
      [this](::mlir::MLIRContext*, ::mlir::BuiltinDialect*) { context_created(); }));
}

void OptPhases::begin_pipeline(::mlir::PassManager& pm) {
  switch_to(Kind::pipeline, false);
  pm.addInstrumentation(std::make_unique<PhaseInstrumentation>(*this, pm));
}

void OptPhases::pipeline_set_up(const ::mlir::PassManager& pm, bool ok) {
  if (kind_ != Kind::pipeline) return;
  if (!ok) {
    switch_to(Kind::none, true);
  } else if (pm.size() == 0) {
    switch_to(Kind::output, false);
  }
}

void OptPhases::context_created() noexcept {
  // A later chunk of --split-input-file: the previous one's teardown ends.
  // Any other context (one a pass makes) is not a phase boundary.
  if (kind_ == Kind::teardown) switch_to(Kind::parse, false);
}

void OptPhases::top_level_passes_done(bool failed) noexcept {
  if (kind_ == Kind::pipeline) switch_to(failed ? Kind::none : Kind::output, failed);
}

void OptPhases::pass_manager_destroyed() noexcept {
  // After a successful pipeline the output was printed; after a failed one
  // (or one whose set-up failed) nothing ran since: either way what remains
  // is teardown.
  if (kind_ == Kind::output || kind_ == Kind::none || kind_ == Kind::pipeline) {
    switch_to(Kind::teardown, kind_ == Kind::pipeline);
  }
}

void OptPhases::end_run(bool ok) {
  // A parse or pipeline still open when MlirOptMain fails is where it failed;
  // output and teardown never decide the outcome they are open in.
  const bool failed = !ok && (kind_ == Kind::parse || kind_ == Kind::pipeline);
  switch_to(Kind::none, failed);
}

void OptPhases::end_compile(bool ok) {
  switch_to(Kind::none, false);
  if (compile_ != kNoPhase) session_.end_phase(compile_, !ok);
  compile_ = kNoPhase;
}

void OptPhases::switch_to(Kind next, bool failed) noexcept {
  // The session allocates: an exception must not reach MLIR, which is built
  // without them; the phase is then simply missing from the profile.
  try {
    if (open_ != kNoPhase) session_.end_phase(open_, failed);
    open_ = kNoPhase;
    kind_ = next;
    if (next != Kind::none) open_ = session_.begin_phase(name_of(static_cast<int>(next)));
  } catch (...) {
    open_ = kNoPhase;
  }
}

}  // namespace passtiming::mlir_opt
