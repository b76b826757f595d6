#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
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
#include "passtiming/logging.h"
#include "passtiming/mlir.h"
#include "passtiming/profile_io.h"
#include "passtiming/report.h"
#include "passtiming/settings.h"
#include "tree_order.h"

namespace passtiming::mlir {
namespace {

/// The operations under `op`, `op` included.
std::int64_t count_operations(::mlir::Operation* op) {
  std::int64_t count = 0;
  op->walk([&count](::mlir::Operation*) { ++count; });
  return count;
}

}  // namespace

namespace detail {

/// The state the instrumentation of every enabled pass manager shares: one
/// timing state machine behind one mutex. Pass callbacks are rare next to
/// the work of a pass, so a single lock costs less than merging per-thread
/// machines, and it keeps one sequence order for the whole section.
///
/// Next to the machine's stacks it keeps, per thread, which pass each open
/// frame belongs to: a pipeline that starts on a worker thread names its
/// parent by (thread, pass), and that is how its frame finds the adaptor's.
class SharedTimingState {
 public:
  /// Records `metrics` read from `sampler` (null: none).
  SharedTimingState(std::shared_ptr<const Clock> clock, std::string context,
                    EventObserver* observer, std::shared_ptr<MetricSampler> sampler,
                    MetricSet metrics)
      : clock_(std::move(clock)), sampler_(std::move(sampler)) {
    machine_.set_observer(observer);
    if (sampler_ != nullptr && !metrics.empty()) {
      machine_.set_metrics(sampler_.get(), metrics);
      count_ir_ = metrics.contains(Metric::ir);
      read_after_sample_ = true;
    }
    machine_.enter(clock_->now_ns(), context);
  }

  void before_pipeline(std::optional<::mlir::OperationName> name,
                       const ::mlir::PassInstrumentation::PipelineParentInfo& parent) {
    const Nanoseconds t = clock_->now_ns();
    const ThreadKey tid = llvm::get_threadid();
    std::string pipeline = mlir_adapter::pipeline_name(name);
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ThreadState& thread = threads_[tid];
    // The pipeline's frame is pushed when its first pass starts, because only
    // then is the operation it runs on (its kernel label) known.
    thread.pending = Pending{true, t, std::move(pipeline), ParentRef{}, false};
    if (thread.frames.empty() && parent.parentPass != nullptr) {
      if (auto ref = find_frame(parent.parentThreadID, parent.parentPass)) {
        thread.pending.parent = *ref;
        thread.pending.has_parent = true;
      }
    }
  }

  void after_pipeline() {
    const Nanoseconds t = clock_->now_ns();
    const ThreadKey tid = llvm::get_threadid();
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ThreadState& thread = threads_[tid];
    if (thread.pending.active) push_pending(thread, tid, "");  // a pipeline without passes
    // A pipeline already closed by its failing pass (see after_pass) has no
    // frame left to close.
    if (!thread.frames.empty() && thread.frames.back().pass == nullptr) {
      close_pipeline(thread, tid, t, 0);
    }
  }

  void before_pass(::mlir::Pass* pass, ::mlir::Operation* op) {
    const ThreadKey tid = llvm::get_threadid();
    // The label reads the operation, which this thread owns right now; so
    // does the count, which is taken here, before the lock, so that no
    // other thread waits for it.
    const std::string label = mlir_adapter::op_label(op);
    std::int64_t size = kNotMeasured;
    std::optional<::mlir::OperationFingerPrint> print;
    if (count_ir_) {
      size = count_operations(op);
      print.emplace(op);
    }
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ThreadState& thread = threads_[tid];
    if (thread.pending.active) push_pending(thread, tid, label);
    // The pass's own size, noted in the critical section of its event.
    if (count_ir_) machine_.note_ir(size);
    // The clock is read last, inside before_now, so the bookkeeping above
    // stays outside the pass's time.
    const std::uint32_t sequence = machine_.before_now(*clock_, name_of(pass), label, tid, nullptr);
    thread.frames.push_back(OpenFrame{pass, sequence, {}, std::move(print)});
  }

  /// `op` is the pass's operation; null when it failed (nothing is counted).
  void after_pass(::mlir::Pass* pass, ::mlir::Operation* op, bool failed) {
    const Nanoseconds t = clock_->now_ns();  // first, before any bookkeeping
    const ThreadKey tid = llvm::get_threadid();
    // The figures of a successful pass: the sampler's read before the count,
    // which is thus part of neither the pass's time nor its CPU time, and
    // both taken before the lock, on the thread that owns the operation.
    MetricSample end;
    std::int64_t size = kNotMeasured;
    std::optional<::mlir::OperationFingerPrint> print;
    if (read_after_sample_ && !failed) {
      machine_.read_sample(end);  // reads only the sampler, set before any pass ran
      if (count_ir_) {
        size = count_operations(op);
        print.emplace(op);
      }
    }
    std::lock_guard lock(mutex_);
    if (finished_) return;
    ThreadState& thread = threads_[tid];
    std::uint8_t ir_flags = 0;
    if (!thread.frames.empty() && thread.frames.back().pass == pass) {
      const OpenFrame& frame = thread.frames.back();
      if (print && frame.print) {
        ir_flags = *print == *frame.print ? kIrChangeKnown : kIrChangeKnown | kIrChanged;
      }
      thread.frames.pop_back();
    }
    if (read_after_sample_ && !failed) {
      if (count_ir_) machine_.note_ir(size, ir_flags);
      machine_.after_sampled(t, name_of(pass), end, tid);
    } else {
      // A failed pass's IR is not counted: its size after is not measured.
      machine_.after(t, name_of(pass), tid,
                     failed ? std::uint16_t{kRecordFailed} : std::uint16_t{0});
    }
    // MLIR stops a pipeline at its first failing pass and does not call
    // runAfterPipeline for it, so the failure closes the pipeline too.
    if (failed && !thread.frames.empty() && thread.frames.back().pass == nullptr) {
      close_pipeline(thread, tid, t, kRecordFailed);
    }
  }

  void finish() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    machine_.exit(clock_->now_ns());
    threads_.clear();
  }

  /// The completed records, numbered in pass-tree order.
  Section section() {
    Section copy;
    {
      std::lock_guard lock(mutex_);
      copy = machine_.section();
    }
    mlir_adapter::renumber_in_tree_order(copy);
    return copy;
  }

 private:
  /// A frame this adapter opened: the pass it belongs to (null for a
  /// pipeline) and its sequence in the state machine.
  struct OpenFrame {
    const ::mlir::Pass* pass;
    std::uint32_t sequence;
    std::string pipeline;  ///< a pipeline's name
    /// With metric `ir`: the pass's operation as it was before the pass.
    std::optional<::mlir::OperationFingerPrint> print;
  };
  struct Pending {
    bool active = false;
    Nanoseconds start = 0;
    std::string name;
    ParentRef parent;
    bool has_parent = false;
  };
  struct ThreadState {
    std::vector<OpenFrame> frames;
    Pending pending;
  };

  std::optional<ParentRef> find_frame(ThreadKey tid, const ::mlir::Pass* pass) const {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return std::nullopt;
    const std::vector<OpenFrame>& frames = it->second.frames;
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
      if (frame->pass == pass) return ParentRef{tid, frame->sequence};
    }
    return std::nullopt;
  }

  void push_pending(ThreadState& thread, ThreadKey tid, std::string_view label) {
    Pending& pending = thread.pending;
    const std::uint32_t sequence = machine_.before(pending.start, pending.name, label, tid,
                                                   pending.has_parent ? &pending.parent : nullptr);
    thread.frames.push_back(OpenFrame{nullptr, sequence, std::move(pending.name)});
    pending = Pending{};
  }

  void close_pipeline(ThreadState& thread, ThreadKey tid, Nanoseconds t, std::uint16_t flags) {
    const std::string name = std::move(thread.frames.back().pipeline);
    thread.frames.pop_back();
    machine_.after(t, name, tid, flags);
  }

  /// The pass's display name: MLIR's pass name, or for an adaptor the name
  /// `-mlir-timing` gives it. Adaptor names are built once per adaptor.
  std::string_view name_of(::mlir::Pass* pass) {
    if (!mlir_adapter::is_pass_adaptor(*pass)) {
      llvm::StringRef name = pass->getName();
      return std::string_view(name.data(), name.size());
    }
    auto it = adaptor_names_.find(pass);
    if (it == adaptor_names_.end()) {
      it = adaptor_names_.emplace(pass, mlir_adapter::adaptor_name(*pass)).first;
    }
    return it->second;
  }

  std::shared_ptr<const Clock> clock_;
  std::shared_ptr<MetricSampler> sampler_;
  /// Set at construction, read without the lock.
  bool count_ir_ = false;
  bool read_after_sample_ = false;
  std::mutex mutex_;
  TimingStateMachine machine_;
  std::unordered_map<ThreadKey, ThreadState> threads_;
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
    get_logger(kTimingLoggerName)
        .error(std::string("pass timing stopped recording in ") + hook + ": " + error.what());
  } catch (...) {
    get_logger(kTimingLoggerName).error(std::string("pass timing stopped recording in ") + hook);
  }
}

/// The mlir::PassInstrumentation: translates MLIR's callbacks into the
/// shared state's events and nothing else.
class TimingInstrumentation final : public ::mlir::PassInstrumentation {
 public:
  explicit TimingInstrumentation(std::shared_ptr<detail::SharedTimingState> state)
      : state_(std::move(state)) {}

  void runBeforePipeline(std::optional<::mlir::OperationName> name,
                         const PipelineParentInfo& parent) override {
    contained("runBeforePipeline", [&] { state_->before_pipeline(name, parent); });
  }
  void runAfterPipeline(std::optional<::mlir::OperationName>, const PipelineParentInfo&) override {
    contained("runAfterPipeline", [&] { state_->after_pipeline(); });
  }
  void runBeforePass(::mlir::Pass* pass, ::mlir::Operation* op) override {
    contained("runBeforePass", [&] { state_->before_pass(pass, op); });
  }
  void runAfterPass(::mlir::Pass* pass, ::mlir::Operation* op) override {
    contained("runAfterPass", [&] { state_->after_pass(pass, op, /*failed=*/false); });
  }
  void runAfterPassFailed(::mlir::Pass* pass, ::mlir::Operation*) override {
    // A failed pass may leave its operation in any state: it is not read.
    contained("runAfterPassFailed", [&] { state_->after_pass(pass, nullptr, /*failed=*/true); });
  }

 private:
  std::shared_ptr<detail::SharedTimingState> state_;
};

}  // namespace

MlirPassTiming::MlirPassTiming(Options options)
    : threshold_ms_(options.threshold_ms), context_(std::move(options.context)) {
  check_threshold_ms(threshold_ms_, "threshold_ms");
  if (!options.clock) options.clock = steady_clock();
  std::shared_ptr<MetricSampler> sampler;
  if (!options.metrics.empty()) {
    if (options.sampler) {
      sampler = std::move(options.sampler);
      metrics_.recorded = options.metrics;
    } else {
      std::shared_ptr<SystemMetricSampler> system = shared_metric_sampler(options.metrics);
      metrics_ = system->metrics();
      sampler = std::move(system);
    }
  }
  state_ = std::make_shared<detail::SharedTimingState>(
      std::move(options.clock), context_, options.observer, std::move(sampler), metrics_.recorded);
}

MlirPassTiming::~MlirPassTiming() = default;

void MlirPassTiming::enable(::mlir::PassManager& pm) {
  pm.addInstrumentation(std::make_unique<TimingInstrumentation>(state_));
}

void MlirPassTiming::finish() {
  state_->finish();
}

Section MlirPassTiming::section() const {
  return state_->section();
}

Profile MlirPassTiming::profile() const {
  Profile profile;
  profile.metadata = current_process_metadata();
  profile.metrics = metrics_;
  profile.sections.push_back(section());
  return profile;
}

double MlirPassTiming::total_duration_s() const {
  return section().total_seconds();
}

std::string MlirPassTiming::report() const {
  std::optional<std::string_view> context;
  if (!context_.empty()) context = context_;
  return render_report(section(), threshold_ms_, context);
}

void MlirPassTiming::print_report() const {
  get_logger(kTimingLoggerName).info("\n" + report());
}

std::shared_ptr<MlirPassTiming> enable_pass_timing(::mlir::PassManager& pm, Options options) {
  auto timing = std::make_shared<MlirPassTiming>(std::move(options));
  timing->enable(pm);
  return timing;
}

}  // namespace passtiming::mlir
