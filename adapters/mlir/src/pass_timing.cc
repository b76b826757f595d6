#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir_labels.h"
#include "llvm/Support/Threading.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "passtiming/engine/logging.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/report.h"
#include "passtiming/mlir.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::mlir {
namespace {

/// The operations under `op`, `op` included.
std::int64_t count_operations(::mlir::Operation* op) {
  std::int64_t count = 0;
  op->walk([&count](::mlir::Operation*) { ++count; });
  return count;
}

/// `op`'s OperationFingerPrint folded into 64 bits, for the state machine to
/// compare before and after a pass. The print is a SHA-1 digest, whose bits
/// are uniform, so folding keeps a false "unchanged" at 2^-64.
std::uint64_t ir_digest(::mlir::Operation* op) {
  static_assert(std::is_trivially_copyable_v<::mlir::OperationFingerPrint>);
  const ::mlir::OperationFingerPrint print(op);
  std::array<unsigned char, sizeof print> bytes;
  std::memcpy(bytes.data(), &print, sizeof print);
  std::uint64_t digest = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data() + i, std::min<std::size_t>(8, bytes.size() - i));
    digest ^= word;
  }
  return digest;
}

}  // namespace

namespace detail {

/// Translates the callbacks of every pass manager the timing is enabled on
/// into the events of one timing state machine, behind one mutex. Pass
/// callbacks are rare next to the work of a pass, so a single lock costs
/// less than merging per-thread machines, and it keeps one sequence order
/// for the whole section.
///
/// Each pass's frame carries the Pass* as its key, and a nested pipeline,
/// which may start on a worker thread, names the adaptor that forked it as
/// its parent by (thread, Pass*): the state machine attaches it there and
/// numbers the section in pass-tree order.
class CallbackTranslator {
 public:
  /// Records into `recorder`, and opens its section.
  explicit CallbackTranslator(std::shared_ptr<Recorder> recorder) : recorder_(std::move(recorder)) {
    // Nothing is read when every metric asked for is unavailable.
    read_after_sample_ = !recorder_->metrics().recorded.empty();
    count_ir_ = recorder_->metrics().recorded.contains(Metric::ir);
    recorder_->begin_context();
  }

  void before_pipeline(std::optional<::mlir::OperationName> name,
                       const ::mlir::PassInstrumentation::PipelineParentInfo& parent) {
    const Nanoseconds t = recorder_->clock().now_ns();
    const ThreadKey tid = llvm::get_threadid();
    const std::string pipeline = detail::pipeline_name(name);
    std::lock_guard lock(mutex_);
    if (finished_) return;
    // The operation the pipeline runs on, its kernel label, is known when
    // its first pass starts; MLIR stops a pipeline at its first failing
    // pass and does not call runAfterPipeline for it.
    machine().begin(t, BeginEvent<>{.pass = pipeline,
                                    .thread = tid,
                                    .parent = {parent.parentThreadID, parent.parentPass},
                                    .kernel_from_first_child = true,
                                    .ends_with_failed_child = true});
  }

  void after_pipeline(std::optional<::mlir::OperationName> name) {
    const Nanoseconds t = recorder_->clock().now_ns();
    const ThreadKey tid = llvm::get_threadid();
    const std::string pipeline = detail::pipeline_name(name);
    std::lock_guard lock(mutex_);
    if (finished_) return;
    // With metrics, the machine reads the sampler, then the clock again.
    machine().end(t, {pipeline, tid, 0, nullptr, &recorder_->clock()});
  }

  void before_pass(::mlir::Pass* pass, ::mlir::Operation* op) {
    const ThreadKey tid = llvm::get_threadid();
    // The label reads the operation, which this thread owns right now; so
    // does the count, which is taken here, before the lock, so that no
    // other thread waits for it.
    const std::string label = detail::op_label(op);
    std::int64_t size = kNotMeasured;
    std::uint64_t digest = 0;
    if (count_ir_) {
      size = count_operations(op);
      digest = ir_digest(op);
    }
    std::lock_guard lock(mutex_);
    if (finished_) return;
    // The pass's own size, noted in the critical section of its event.
    if (count_ir_) machine().note_ir(size, 0, digest);
    // The clock is read last, inside begin_now, so the bookkeeping above
    // stays outside the pass's time.
    machine().begin_now(
        recorder_->clock(),
        BeginEvent<>{.pass = name_of(pass), .kernel = label, .thread = tid, .key = pass});
  }

  /// `op` is the pass's operation; null when it failed (nothing is counted).
  void after_pass(::mlir::Pass* pass, ::mlir::Operation* op, bool failed) {
    // The figures of a successful pass: the sampler's read first, then the
    // clock (the CPU interval then lies inside the wall interval), then the
    // count, which is thus part of neither the pass's time nor its CPU time,
    // all taken before the lock, on the thread that owns the operation.
    // Without metrics, the clock first, before any bookkeeping.
    MetricSample end;
    std::int64_t size = kNotMeasured;
    std::uint64_t digest = 0;
    const bool sampled = read_after_sample_ && !failed;
    Nanoseconds t;
    if (!sampled) {
      t = recorder_->clock().now_ns();
    } else {
      machine().read_sample(end);  // reads only the sampler, set before any pass ran
      t = recorder_->clock().now_ns();
      if (count_ir_) {
        size = count_operations(op);
        digest = ir_digest(op);
      }
    }
    const ThreadKey tid = llvm::get_threadid();
    std::lock_guard lock(mutex_);
    if (finished_) return;
    // A failed pass's IR is not counted: its size after is not measured.
    if (sampled && count_ir_) machine().note_ir(size, 0, digest);
    // A failed pass's figures are read by the machine, then the clock again.
    machine().end(t, {name_of(pass), tid, failed ? std::uint16_t{kRecordFailed} : std::uint16_t{0},
                      sampled ? &end : nullptr, &recorder_->clock()});
  }

  void finish() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    // The recorder's listener (a session writing its files) is told too.
    recorder_->finish_context();
  }

  /// A copy of the completed records, numbered in pass-tree order.
  Section snapshot() {
    std::lock_guard lock(mutex_);
    return recorder_->section();
  }
  const Recorder& recorder() const { return *recorder_; }

 private:
  /// The pass's display name: MLIR's pass name, or for an adaptor the name
  /// `-mlir-timing` gives it. Adaptor names are built once per adaptor.
  std::string_view name_of(::mlir::Pass* pass) {
    if (!detail::is_pass_adaptor(*pass)) {
      llvm::StringRef name = pass->getName();
      return std::string_view(name.data(), name.size());
    }
    auto it = adaptor_names_.find(pass);
    if (it == adaptor_names_.end()) {
      it = adaptor_names_.emplace(pass, detail::adaptor_name(*pass)).first;
    }
    return it->second;
  }

  TimingStateMachine& machine() { return recorder_->machine(); }

  /// Set at construction, read without the lock.
  bool count_ir_ = false;
  bool read_after_sample_ = false;
  std::mutex mutex_;
  std::shared_ptr<Recorder> recorder_;
  std::unordered_map<const ::mlir::Pass*, std::string> adaptor_names_;
  bool finished_ = false;
};

}  // namespace detail

namespace {

/// Runs `action`, keeping every exception inside: MLIR is built without
/// exceptions, and a profiler must never take its host compiler down. The
/// first failure is logged; timing goes on for the other callbacks.
template <typename Action>
void contained(const char* hook, Action&& action) noexcept {
  try {
    action();
  } catch (const std::exception& error) {
    get_logger(timing_logger_name("mlir"))
        .error(std::string("pass timing stopped recording in ") + hook + ": " + error.what());
  } catch (...) {
    get_logger(timing_logger_name("mlir"))
        .error(std::string("pass timing stopped recording in ") + hook);
  }
}

/// The mlir::PassInstrumentation of one pass manager: hands each callback
/// to the translator shared by every pass manager, exceptions contained.
class ForwardingInstrumentation final : public ::mlir::PassInstrumentation {
 public:
  explicit ForwardingInstrumentation(std::shared_ptr<detail::CallbackTranslator> translator)
      : translator_(std::move(translator)) {}

  void runBeforePipeline(std::optional<::mlir::OperationName> name,
                         const PipelineParentInfo& parent) override {
    contained("runBeforePipeline", [&] { translator_->before_pipeline(name, parent); });
  }
  void runAfterPipeline(std::optional<::mlir::OperationName> name,
                        const PipelineParentInfo&) override {
    contained("runAfterPipeline", [&] { translator_->after_pipeline(name); });
  }
  void runBeforePass(::mlir::Pass* pass, ::mlir::Operation* op) override {
    contained("runBeforePass", [&] { translator_->before_pass(pass, op); });
  }
  void runAfterPass(::mlir::Pass* pass, ::mlir::Operation* op) override {
    contained("runAfterPass", [&] { translator_->after_pass(pass, op, /*failed=*/false); });
  }
  void runAfterPassFailed(::mlir::Pass* pass, ::mlir::Operation*) override {
    // A failed pass may leave its operation in any state: it is not read.
    contained("runAfterPassFailed",
              [&] { translator_->after_pass(pass, nullptr, /*failed=*/true); });
  }

 private:
  std::shared_ptr<detail::CallbackTranslator> translator_;
};

/// `settings` once their threshold is checked (a ConfigError when negative
/// or not finite), marked as MLIR's unless the host said otherwise.
Settings checked(Settings settings) {
  check_threshold_ms(settings.threshold_ms, "threshold_ms");
  if (settings.source.empty()) settings.source = "mlir";
  return settings;
}

}  // namespace

PassTiming::PassTiming(std::shared_ptr<Recorder> recorder)
    : translator_(std::make_shared<detail::CallbackTranslator>(
          recorder ? std::move(recorder) : std::make_shared<Recorder>())) {}

PassTiming::PassTiming(const Settings& settings, std::shared_ptr<const Clock> clock)
    : PassTiming(std::make_shared<Recorder>(checked(settings), std::move(clock))) {}

PassTiming::~PassTiming() = default;

void PassTiming::enable(::mlir::PassManager& pm) {
  pm.addInstrumentation(std::make_unique<ForwardingInstrumentation>(translator_));
}

void PassTiming::finish() {
  translator_->finish();
}

Section PassTiming::snapshot() const {
  return translator_->snapshot();
}

const Recorder& PassTiming::recorder() const {
  return translator_->recorder();
}

std::shared_ptr<PassTiming> enable_pass_timing(::mlir::PassManager& pm,
                                               std::shared_ptr<Recorder> recorder) {
  auto timing = std::make_shared<PassTiming>(std::move(recorder));
  timing->enable(pm);
  return timing;
}

}  // namespace passtiming::mlir
