#pragma once
/// \file
/// The seed's semantics, once, for every event source: a stack of running
/// passes per thread, a sequence counter, depth, inclusive and self time, and
/// the warnings for unmatched and incomplete frames. The live instruments
/// (PassContext, LLVM, MLIR) and the event-log replay all drive this class,
/// which is why a replayed log reproduces the live report byte for byte.

#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "passtiming/clock.h"
#include "passtiming/metric_sampler.h"
#include "passtiming/profile.h"

namespace passtiming {

/// A thread as the event source names it (an OS thread id, an MLIR thread
/// index, the `tid` of an event-log line).
using ThreadKey = std::uint64_t;

/// Receives the raw events exactly as the state machine sees them, with the
/// same timestamps: the hook for streaming an event log while a compile runs.
/// Implementations must not throw.
class EventObserver {
 public:
  virtual ~EventObserver() = default;
  virtual void on_enter(Nanoseconds t, std::string_view context) noexcept = 0;
  virtual void on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                         ThreadKey tid) noexcept = 0;
  virtual void on_after(Nanoseconds t, std::string_view pass, ThreadKey tid) noexcept = 0;
  virtual void on_skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
                       ThreadKey tid) noexcept = 0;
  virtual void on_exit(Nanoseconds t) noexcept = 0;
  /// With metrics recorded, before- and after-events come here with the
  /// readings the records are made of; by default they go to on_before() and
  /// on_after() without them.
  virtual void on_before_sampled(Nanoseconds t, std::string_view pass, std::string_view kernel,
                                 ThreadKey tid, const MetricSample& sample) noexcept {
    (void)sample;
    on_before(t, pass, kernel, tid);
  }
  virtual void on_after_sampled(Nanoseconds t, std::string_view pass, ThreadKey tid,
                                const MetricSample& sample) noexcept {
    (void)sample;
    on_after(t, pass, tid);
  }
};

/// A running frame named by the thread whose stack holds it and its sequence:
/// the parent of a frame that another thread pushes (MLIR runs a nested
/// pipeline on a worker thread for a pass adaptor running on another thread).
struct ParentRef {
  ThreadKey thread = 0;
  std::uint32_t sequence = 0;
};

/// The timing state machine of one PassContext at a time. Not thread-safe:
/// callers that feed it from several threads serialise the calls (events
/// still carry their thread, and each thread keeps its own stack).
///
///     TimingStateMachine sm;
///     sm.enter(0, "stage=lower");
///     sm.before(0, "parent", "");
///     sm.before(1, "child", "matmul");
///     sm.after(3, "child");
///     sm.after(5, "parent");
///     sm.exit(5);
///     const Section& s = sm.section();  // 2 records: child, then parent
class TimingStateMachine {
 public:
  TimingStateMachine();

  /// `enter_pass_ctx`: clears records, stacks and the sequence counter and
  /// labels the section.
  void enter(Nanoseconds t, std::string_view context = {});

  /// `run_before_pass` at time `t`: pushes a frame on `tid`'s stack.
  void before(Nanoseconds t, std::string_view pass, std::string_view kernel, ThreadKey tid = 0);

  /// `run_before_pass` for a live source: the frame is pushed first and the
  /// clock read last, so the bookkeeping stays outside the measured time.
  /// Given a `SteadyClock` (final) rather than a `Clock`, the read is inline.
  template <std::derived_from<Clock> ClockType>
  void before_now(const ClockType& clock, std::string_view pass, std::string_view kernel,
                  ThreadKey tid = 0) {
    ThreadStack& stack = stack_for(tid);
    Frame& frame = push_frame(pass, kernel, stack);
    frame.start_ns = clock.now_ns();
    // The observer gets the frame's own timestamp, so a replayed log
    // reproduces the live records exactly; its few nanoseconds of writing
    // fall inside the pass, which is the price of that exactness.
    if (extras_) [[unlikely]] {
      begin_extras(frame.start_ns, pass, kernel, stack);
    }
  }

  /// before_now() for a source that knows the IR unit of each pass by its
  /// address (LLVM: the Function, Module or Loop's function) and whose pass
  /// names live in storage that never changes while the pass runs (LLVM's
  /// names are type names in the binary). When the frame below on `tid`'s
  /// stack ran on the same non-null `unit`, the new frame takes that frame's
  /// kernel label and `label` is not called: the unit cannot be destroyed
  /// while a pass over it runs, and looking its name up again is, once a pass
  /// has evicted the caches, the dearest part of a pass's bookkeeping. A unit
  /// renamed inside its own pipeline keeps its old label until that pipeline
  /// ends. Otherwise the kernel label is `label()`. End the frame with
  /// after_stable_name().
  template <std::derived_from<Clock> ClockType, std::invocable LabelFn>
  void before_now_on_unit(const ClockType& clock, std::string_view pass, const void* unit,
                          LabelFn&& label, ThreadKey tid = 0) {
    ThreadStack& stack = stack_for(tid);
    // The pass first, then the kernel, as every other way interns them.
    const NameId pass_id = name_cache_.intern_stable(section_.names, pass);
    NameId kernel;
    if (unit != nullptr && !stack.frames.empty() && stack.frames.back().unit == unit) {
      kernel = stack.frames.back().kernel;
    } else {
      kernel = name_cache_.intern(section_.names, std::string_view(label()));
    }
    Frame& frame = push_frame_ids(pass_id, kernel, stack);
    frame.unit = unit;
    frame.name_data = pass.data();
    frame.name_size = pass.size();
    frame.start_ns = clock.now_ns();
    if (extras_) [[unlikely]] {
      begin_extras(frame.start_ns, pass, section_.names[kernel], stack);
    }
  }

  /// `run_before_pass` for a frame whose parent is `parent` (null: the frame
  /// below it on `tid`'s stack, as in before()). The frame goes on `tid`'s
  /// stack with depth = the parent's depth + 1; when it completes, its record
  /// names the parent and its inclusive time counts among the parent's
  /// children. A parent that is not running is logged ("Pass timing parent
  /// N of NAME is not running on thread T") and the frame nests as in
  /// before(). Returns the new frame's sequence, which later frames may name
  /// as their parent.
  std::uint32_t before(Nanoseconds t, std::string_view pass, std::string_view kernel, ThreadKey tid,
                       const ParentRef* parent);
  /// before_now() with a parent, as above; returns the new frame's sequence.
  std::uint32_t before_now(const Clock& clock, std::string_view pass, std::string_view kernel,
                           ThreadKey tid, const ParentRef* parent);

  /// `run_after_pass` at time `t`. When `tid`'s stack is empty or its top is
  /// another pass, logs "Ignoring unmatched pass timing callback for NAME
  /// (expected TOP)", clears that stack and records nothing. Otherwise pops
  /// the frame and records it. `flags` are stored on the record.
  void after(Nanoseconds t, std::string_view pass, ThreadKey tid = 0, std::uint16_t flags = 0) {
    if (extras_) [[unlikely]] {
      after_with_extras(t, pass, tid, flags);
      return;
    }
    ThreadStack& stack = stack_for(tid);
    if (stack.frames.empty() || !is_name(stack.frames.back().name, pass)) [[unlikely]] {
      ignore_unmatched(stack, pass);
      return;
    }
    complete_top(t, stack, flags);
  }

  /// The sampler's figures now (nothing without metrics): for a source that
  /// counts its IR after the pass, read right after the clock and handed to
  /// after_sampled() once the count is noted, so the counting is not part of
  /// the pass's CPU time or instructions.
  void read_sample(MetricSample& sample) const noexcept {
    if (sampler_ != nullptr) sampler_->read(sample);
  }
  /// after() with the after-event's figures already read by read_sample();
  /// the IR size noted since (note_ir()) is recorded with them.
  void after_sampled(Nanoseconds t, std::string_view pass, const MetricSample& end,
                     ThreadKey tid = 0) {
    if (!extras_) {
      after(t, pass, tid);
      return;
    }
    after_with_sample(t, pass, tid, 0, end);
  }

  /// after() for a frame pushed by before_now_on_unit(): a `pass` at the
  /// address the frame's name was read from is its name, without comparing
  /// the text (which, after a pass has run, sits in evicted cache lines). Any
  /// other address is compared as after() does.
  void after_stable_name(Nanoseconds t, std::string_view pass, ThreadKey tid = 0) {
    // The common case in as few instructions as possible: once a pass has
    // run, each of them is likely a cache miss.
    if (!extras_ && last_stack_ < stacks_.size()) [[likely]] {
      ThreadStack& stack = stacks_[last_stack_];
      if (stack.key == tid && !stack.frames.empty()) [[likely]] {
        const Frame& top = stack.frames.back();
        if (top.name_data == pass.data() && top.name_size == pass.size() &&
            top.name_data != nullptr) [[likely]] {
          complete_top(t, stack, 0);
          return;
        }
      }
    }
    after_out_of_line(t, pass, tid);
  }

  /// `should_run` vetoed a pass: counted in `Section::skipped`.
  void skip(Nanoseconds t, std::string_view pass, std::string_view kernel, ThreadKey tid = 0);

  /// `exit_pass_ctx`: logs "Discarding N incomplete pass timing frame(s): A, B"
  /// for each thread that still has running passes, outermost first, and
  /// clears them. Records persist.
  void exit(Nanoseconds t);

  /// The names of the passes still running on every thread, outermost first.
  std::vector<std::string> running_passes() const;

  const Section& section() const { return section_; }
  /// Moves the section out, leaving an empty one. Growth slack is trimmed,
  /// so a section handed on holds 48 bytes per record; storage from
  /// reserve() is handed on as it is, since its untouched part is address
  /// space rather than memory and copying the records is what the
  /// reservation was made to avoid.
  Section take_section();

  /// Room for `records` records without growing. Growth copies every record
  /// and touches fresh memory for the copy; a source that expects a long
  /// pipeline reserves up front, which costs address space, not memory,
  /// until the records are written, and asks for huge pages so that the
  /// first touch of the storage costs one fault per 2 MiB rather than per
  /// 4 KiB. Kept by later enter()s.
  void reserve(std::size_t records);

  /// Events are also handed to `observer` (not owned; null for none).
  void set_observer(EventObserver* observer) {
    observer_ = observer;
    extras_ = observer_ != nullptr || sampler_ != nullptr;
  }

  /// Records `metrics` for every pass from here on, read from `sampler` (not
  /// owned; null: none) at each before- and after-event, and the IR sizes a
  /// source hands to note_ir(). Section::metrics then holds one
  /// RecordMetrics per record. Self values subtract the passes nested on the
  /// same thread's stack, whose CPU time and instructions the thread's own
  /// figures include (a child on another thread is not part of them). Set
  /// it between contexts: frames running when it changes record no metrics.
  void set_metrics(MetricSampler* sampler, MetricSet metrics) {
    sampler_ = sampler;
    metrics_ = sampler != nullptr ? metrics : MetricSet{};
    extras_ = observer_ != nullptr || sampler_ != nullptr;
  }
  MetricSet metrics() const { return metrics_; }

  /// The size of the IR unit (and, for an after-event, IrFlags) that the
  /// next before- or after-event records with metric `ir`. A source that
  /// counts its IR calls this right before that event, in the same critical
  /// section; an event without it records kNotMeasured.
  void note_ir(std::int64_t size, std::uint8_t flags = 0) {
    pending_ir_size_ = size;
    pending_ir_flags_ = flags;
  }

 private:
  struct Frame {
    NameId name;
    NameId kernel;
    std::uint32_t sequence;
    std::uint16_t depth;
    Nanoseconds start_ns;
    Nanoseconds children_ns;
    /// before_now_on_unit(): the pass's IR unit and where its name was read.
    const void* unit = nullptr;
    const char* name_data = nullptr;
    std::size_t name_size = 0;
    /// Set for a frame pushed with a ParentRef: the parent's stack index in
    /// `stacks_` and sequence. kSameStack: the frame below is the parent.
    std::uint32_t parent_stack = kSameStack;
    std::uint32_t parent_sequence = 0;
  };
  static constexpr std::uint32_t kSameStack = ~std::uint32_t{0};
  /// The metric readings of a running frame, at the same index as the
  /// frame when metrics are recorded: kept apart so that a frame stays as
  /// small as the timing alone needs.
  struct MetricFrame {
    MetricSample start;
    std::int64_t cpu_children_ns = 0;
    std::int64_t instructions_children = 0;
  };
  struct ThreadStack {
    ThreadKey key;
    std::uint32_t index;  ///< the thread's index in the section
    std::vector<Frame> frames;
    std::vector<MetricFrame> metric_frames;
  };

  ThreadStack& stack_for(ThreadKey tid) {
    // One thread, or the same thread as the last event: no search.
    if (last_stack_ < stacks_.size() && stacks_[last_stack_].key == tid)
      return stacks_[last_stack_];
    return find_or_add_stack(tid);
  }
  ThreadStack& find_or_add_stack(ThreadKey tid);

  /// The hot path of every source, inline: a pass pair costs two interned
  /// strings answered from the name cache, one frame pushed and popped, one
  /// record appended, and no function call but the clock's.
  Frame& push_frame(std::string_view pass, std::string_view kernel, ThreadStack& stack) {
    // The pass first, then the kernel: the order the names get their ids in.
    const NameId pass_id = name_cache_.intern(section_.names, pass);
    return push_frame_ids(pass_id, name_cache_.intern(section_.names, kernel), stack);
  }
  Frame& push_frame_ids(NameId pass, NameId kernel, ThreadStack& stack) {
    // One more than the frame below, which is the stack size unless a frame
    // below was attached to a parent on another thread.
    const std::uint16_t depth =
        stack.frames.empty() ? 0 : saturate_depth(std::size_t{stack.frames.back().depth} + 1);
    return stack.frames.emplace_back(Frame{pass, kernel, next_sequence_++, depth, 0, 0});
  }
  static std::uint16_t saturate_depth(std::size_t depth) {
    return depth < 0xFFFF ? static_cast<std::uint16_t>(depth) : std::uint16_t{0xFFFF};
  }
  bool is_name(NameId id, std::string_view pass) const {
    const std::string_view name = section_.names[id];
    return name.size() == pass.size() && same_bytes(name.data(), pass.data(), pass.size());
  }
  /// The observer and the metrics of a before-event whose frame is the top
  /// of `stack`.
  [[gnu::noinline]] void begin_extras(Nanoseconds t, std::string_view pass, std::string_view kernel,
                                      ThreadStack& stack);
  /// after() with an observer or metrics.
  [[gnu::noinline]] void after_with_extras(Nanoseconds t, std::string_view pass, ThreadKey tid,
                                           std::uint16_t flags);
  /// after_with_extras() once the sampler's after-reading is in `end`.
  void after_with_sample(Nanoseconds t, std::string_view pass, ThreadKey tid, std::uint16_t flags,
                         MetricSample end);
  /// The metrics of the record complete_top() just made from `stack`'s top.
  void finish_metrics(ThreadStack& stack, const MetricSample& end);
  /// after(), not inlined: the uncommon cases of after_stable_name().
  [[gnu::noinline]] void after_out_of_line(Nanoseconds t, std::string_view pass, ThreadKey tid);
  /// Pops the top frame of `stack` (its name already matched) into a record.
  /// Hot: kept with the other per-pass functions on few code pages.
  [[gnu::hot]] void complete_top(Nanoseconds t, ThreadStack& stack, std::uint16_t flags);
  /// The seed's rule for an after-callback that does not match the stack.
  [[gnu::cold]] void ignore_unmatched(ThreadStack& stack, std::string_view pass);
  Frame& push_child_frame(std::string_view pass, std::string_view kernel, ThreadKey tid,
                          const ParentRef* parent);
  Frame* find_running(std::uint32_t stack_index, std::uint32_t sequence);
  void discard_incomplete(ThreadStack& stack);

  Section section_;
  /// Records asked for by reserve() for the current storage, or 0.
  std::size_t reserved_records_ = 0;
  std::vector<ThreadStack> stacks_;
  std::size_t last_stack_ = 0;
  std::uint32_t next_sequence_ = 0;
  EventObserver* observer_ = nullptr;
  MetricSampler* sampler_ = nullptr;
  MetricSet metrics_;
  /// An observer or metrics: the one flag the hot path tests.
  bool extras_ = false;
  std::int64_t pending_ir_size_ = kNotMeasured;
  std::uint8_t pending_ir_flags_ = 0;
  /// In front of `section_.names`, cleared whenever they are (for
  /// intern_stable). Last: its 16 KiB would otherwise put the fields every
  /// event reads on different pages.
  NameCache name_cache_;
};

}  // namespace passtiming
