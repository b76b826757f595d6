#pragma once
/// \file
/// The seed's semantics, once, for every event source: a stack of running
/// passes per thread, a sequence counter, depth, inclusive and self time, and
/// the warnings for unmatched and incomplete frames. The live instruments
/// (PassContext, LLVM, MLIR) and the event-log replay all drive this class,
/// which is why a replayed log reproduces the live report byte for byte.

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

class Logger;

/// A thread as the event source names it (an OS thread id, an MLIR thread
/// index, the `tid` of an event-log line).
using ThreadKey = std::uint64_t;

/// One raw event exactly as the state machine sees it, with its timestamp:
/// what an EventObserver receives. The views live for the call only.
struct ObservedEvent {
  enum class Kind : std::uint8_t { enter, before, after, skip, exit };
  Kind kind = Kind::enter;
  Nanoseconds t = 0;
  std::string_view pass;     ///< before, after, skip
  std::string_view kernel;   ///< before, skip
  std::string_view context;  ///< enter
  ThreadKey thread = 0;      ///< before, after, skip
  /// before and after, when metrics are recorded: the readings the record
  /// is made of; null otherwise.
  const MetricSample* sample = nullptr;
};

/// Receives every raw event: the hook for streaming an event log while a
/// compile runs. Implementations must not throw.
class EventObserver {
 public:
  virtual ~EventObserver() = default;
  virtual void on_event(const ObservedEvent& event) noexcept = 0;
};

/// A running frame as its source names it: the thread whose stack holds it
/// and the key the source gave it when it began (BeginEvent::key).
struct ParentRef {
  ThreadKey thread = 0;
  const void* key = nullptr;  ///< null: no frame named
};

/// What begins a frame (`run_before_pass`). A source sets the fields it
/// needs; the others, left as they are, ask for nothing.
///
/// `Kernel` is the kernel label's text, or a callable returning it (as a
/// std::string_view or convertible to one) that is called at most once,
/// while the event is handled, and only when the label is needed (see
/// `unit`).
template <typename Kernel = std::string_view>
struct BeginEvent {
  std::string_view pass;
  Kernel kernel = {};
  ThreadKey thread = 0;
  /// The IR unit the pass runs on, by address (LLVM: the Function, the
  /// Module, the Loop's function), or null. When the frame below on
  /// `thread`'s stack ran on the same unit, the new frame takes that frame's
  /// kernel label and `kernel` is not read: a unit cannot be destroyed while
  /// a pass over it runs. A unit renamed inside its own pipeline keeps its
  /// old label until that pipeline ends.
  const void* unit = nullptr;
  /// The frame's own key, by which frames beginning later, on any thread,
  /// name it as their parent (MLIR: the Pass*); or null.
  const void* key = nullptr;
  /// The frame's parent: the running frame with key `parent.key` on thread
  /// `parent.thread` (the innermost, should there be several). The new frame
  /// goes on `thread`'s stack with depth = the parent's depth + 1; its record
  /// names the parent, and its inclusive time counts among the parent's
  /// children. A parent that is not running is logged ("Pass timing parent
  /// of NAME is not running on thread T") and the frame nests as without
  /// one. Null key: the frame below on `thread`'s stack.
  ParentRef parent = {};
  /// `pass` stays at the same address with the same text until the frame
  /// ends (LLVM's pass names are type names in the binary): an end event
  /// whose name is at that address matches without its text being read.
  bool stable_name = false;
  /// The frame's kernel label is that of its first child, known when the
  /// child begins (MLIR: a nested pipeline, whose operation its first pass
  /// names); `kernel` and `unit` are not read. The observer and the sampler
  /// see the frame begin then, with the frame's own timestamp, right before
  /// the child; a frame that ends without a child is labelled "".
  bool kernel_from_first_child = false;
  /// The frame ends, failed, when a frame directly above it on its stack
  /// ends with kRecordFailed, at that frame's time (MLIR: a pipeline stops
  /// at its first failing pass and gets no end event of its own).
  bool ends_with_failed_child = false;
};

/// What ends a frame (`run_after_pass`).
struct EndEvent {
  std::string_view pass;
  ThreadKey thread = 0;
  /// RecordFlags stored on the record.
  std::uint16_t flags = 0;
  /// The sampler's figures for this event, read by read_sample() before the
  /// source counted its IR (so that the counting is part of neither the
  /// pass's CPU time nor its instructions) and before the source read the
  /// end time; null: the machine reads them.
  const MetricSample* sample = nullptr;
  /// With `sample` null and metrics recorded: the clock the machine reads
  /// again right after the sampler, whose reading then ends the record
  /// instead of `t`, so that the metrics' interval lies inside the wall
  /// interval (the begin reads the clock first, then the sampler). Null:
  /// the record ends at `t`. Not read without metrics.
  const Clock* clock = nullptr;
};

/// The timing state machine of one PassContext at a time. Not thread-safe:
/// callers that feed it from several threads serialise the calls (events
/// still carry their thread, and each thread keeps its own stack).
///
///     TimingStateMachine sm;
///     sm.enter(0, "stage=lower");
///     sm.begin(0, {"parent", ""});
///     sm.begin(1, {"child", "matmul"});
///     sm.end(3, {"child"});
///     sm.end(5, {"parent"});
///     sm.exit(5);
///     const Section& s = sm.section();  // 2 records: child, then parent
class TimingStateMachine {
 public:
  TimingStateMachine();

  /// `enter_pass_ctx`: clears records, stacks and the sequence counter and
  /// labels the section.
  void enter(Nanoseconds t, std::string_view context = {});

  /// `run_before_pass` at time `t` (a replayed log's timestamp): pushes a
  /// frame on `event.thread`'s stack.
  template <typename Kernel = std::string_view>
  [[gnu::always_inline]] void begin(Nanoseconds t, const BeginEvent<Kernel>& event);

  /// begin() for a live source: the frame is pushed first and `clock` read
  /// last, so the bookkeeping stays outside the measured time; with
  /// metrics, the sampler is read right after the clock. Given a
  /// SteadyClock (final) rather than a Clock, the read is inline.
  template <std::derived_from<Clock> ClockType, typename Kernel = std::string_view>
  [[gnu::always_inline]] void begin_now(const ClockType& clock, const BeginEvent<Kernel>& event);

  /// `run_after_pass` at time `t` (but see EndEvent::clock). When
  /// `event.thread`'s stack is empty or
  /// its top is another pass, logs "Ignoring unmatched pass timing callback
  /// for NAME (expected TOP)", clears that stack and records nothing.
  /// Otherwise pops the frame and records it.
  [[gnu::always_inline]] void end(Nanoseconds t, const EndEvent& event);

  /// The sampler's figures now (nothing without metrics), for
  /// EndEvent::sample.
  void read_sample(MetricSample& sample) const noexcept {
    if (sampler_ != nullptr) sampler_->read(sample);
  }

  /// `should_run` vetoed a pass: counted in `Section::skipped`.
  void skip(Nanoseconds t, std::string_view pass, std::string_view kernel, ThreadKey tid = 0);

  /// `exit_pass_ctx`: logs "Discarding N incomplete pass timing frame(s): A, B"
  /// for each thread that still has running passes, outermost first, and
  /// clears them. Records persist.
  void exit(Nanoseconds t);

  /// The names of the passes still running on every thread, outermost first.
  std::vector<std::string> running_passes() const;

  /// The completed records, in the order they completed. Their sequences
  /// number the begin events, except in a section where some frame had a
  /// key or named its parent (BeginEvent::key, BeginEvent::parent): those
  /// frames may run in parallel on several threads, and their records are
  /// numbered in pass-tree order instead, each right after its parent and
  /// before its parent's later children, siblings in the order they began;
  /// a record whose parent is not among the records is a root. The reference
  /// stays valid until the next call of a non-const function, or of
  /// section() for such a section before exit().
  const Section& section() const {
    if (tree_order_) [[unlikely]]
      return section_in_tree_order();
    return section_;
  }
  /// Moves the section (as section() gives it) out, leaving an empty one.
  /// Growth slack is trimmed, so a section handed on holds 48 bytes per
  /// record; storage from reserve() is handed on as it is, since its
  /// untouched part is address space rather than memory and copying the
  /// records is what the reservation was made to avoid.
  Section take_section();

  /// Room for `records` records without growing. Growth copies every record
  /// and touches fresh memory for the copy; a source that expects a long
  /// pipeline reserves up front, which costs address space, not memory,
  /// until the records are written, and asks for huge pages so that the
  /// first touch of the storage costs one fault per 2 MiB rather than per
  /// 4 KiB. Kept by later enter()s.
  void reserve(std::size_t records);

  /// The logger of the machine's warnings (an unmatched end, incomplete
  /// frames); loggers live for the whole process. Default: the seed's,
  /// kTimingLoggerName; a source that names itself sets
  /// timing_logger_name()'s.
  void set_logger(const Logger& logger) { logger_ = &logger; }

  /// Events are also handed to `observer` (not owned; null for none).
  void set_observer(EventObserver* observer) {
    observer_ = observer;
    update_extras();
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
    update_extras();
  }
  MetricSet metrics() const { return metrics_; }

  /// What the source measured of the IR unit for the next begin or end event
  /// (metric `ir`): its size and, for an end event, IrFlags. A source calls
  /// this right before that event, in the same critical section; an event
  /// without it records kNotMeasured. `digest`, a hash of the unit's content
  /// (MLIR: its OperationFingerPrint), given at both the begin and the end of
  /// a frame, sets kIrChangeKnown, and kIrChanged when the two differ.
  void note_ir(std::int64_t size, std::uint8_t flags = 0,
               std::optional<std::uint64_t> digest = std::nullopt) {
    pending_ir_size_ = size;
    pending_ir_flags_ = flags;
    pending_ir_digest_ = digest;
  }

 private:
  // The state of the running frames and the hot path's inline functions are
  // defined in timing_state_inline.h: what follows declares them.
  struct Frame;
  enum FrameShape : std::uint8_t;
  struct MetricFrame;
  class FrameStack;
  struct ThreadStack;

  ThreadStack& stack_for(ThreadKey tid);
  ThreadStack& find_or_add_stack(ThreadKey tid);
  template <typename Kernel>
  static bool has_structure(const BeginEvent<Kernel>& event);
  static bool shares_unit(const void* unit, const ThreadStack& stack);
  template <typename Kernel>
  static std::string_view kernel_text(const Kernel& kernel);
  /// begin() and begin_now() with extras: the kernel label read, when the
  /// frame will need it, and the rest done by begin_with_extras(). Out of
  /// line, so that the inline path stays small.
  template <typename Kernel>
  [[gnu::noinline]] void begin_out_of_line(const Clock* clock, Nanoseconds t,
                                           const BeginEvent<Kernel>& event, ThreadStack& stack);
  /// The frame of an event without extras, pushed inline: "The hot path" in
  /// timing_state.cc.
  template <typename Kernel>
  [[gnu::always_inline]] Frame& push(const BeginEvent<Kernel>& event, ThreadStack& stack);
  [[gnu::always_inline]] Frame& push_frame(NameId pass, NameId kernel, const void* unit,
                                           const void* key, std::string_view stable_name,
                                           ThreadStack& stack);
  static std::uint16_t saturate_depth(std::size_t depth);
  bool is_name(NameId id, std::string_view pass) const;
  /// Whether `pass` names `frame`: by address for a stable name, else by text.
  bool names_frame(const Frame& frame, std::string_view pass) const;
  void update_extras() { extras_ = observer_ != nullptr || sampler_ != nullptr || structured_; }

  /// begin() and begin_now() with an observer, metrics, or a frame shaped
  /// by its event: the clock (null: `t`) is read once the frame is pushed.
  void begin_with_extras(const Clock* clock, Nanoseconds t, const BeginEvent<>& event,
                         ThreadStack& stack);
  /// The observer and the metrics of the begin event of `stack`'s frame
  /// `index`, which is the top or, as it takes its kernel, below the top;
  /// with `takes_ir`, the IR noted for the event.
  void announce(ThreadStack& stack, std::size_t index, bool takes_ir);
  /// Labels the frames awaiting a kernel at the top of `stack` with
  /// `kernel` and announces them, outermost first.
  void label_awaiting(ThreadStack& stack, NameId kernel);
  /// The running frame `sequence` on any stack, or null.
  Frame* find_running(std::uint32_t sequence);
  /// The innermost running frame with `parent.key` on `parent.thread`.
  const Frame* find_keyed(const ParentRef& parent) const;
  /// end() in pieces, so that the compiler keeps them in registers.
  [[gnu::always_inline]] void end_inline(Nanoseconds t, std::string_view pass, ThreadKey thread,
                                         std::uint16_t flags, const MetricSample* sample,
                                         const Clock* clock);
  /// end() beyond its inline case: another stack, another address, extras.
  /// The event comes in pieces, so that the inline case never stores it.
  [[gnu::noinline]] void end_out_of_line(Nanoseconds t, std::string_view pass, ThreadKey thread,
                                         std::uint16_t flags, const MetricSample* sample,
                                         const Clock* clock);
  /// end() with an observer, metrics or shaped frames.
  void end_with_extras(Nanoseconds t, const EndEvent& event);
  /// The metrics of the record complete_top() just made from `stack`'s top.
  void finish_metrics(ThreadStack& stack, const MetricSample& end);
  /// Pops the top frame of `stack` (its name already matched) into a record.
  /// Hot: kept with the other per-pass functions on few code pages.
  [[gnu::hot]] void complete_top(Nanoseconds t, ThreadStack& stack, std::uint16_t flags);
  /// The logger of the machine's warnings (set_logger()).
  const Logger& logger() const;
  /// The seed's rule for an after-callback that does not match the stack.
  [[gnu::cold]] void ignore_unmatched(ThreadStack& stack, std::string_view pass);
  void discard_incomplete(ThreadStack& stack);
  /// section() for a section numbered in pass-tree order.
  const Section& section_in_tree_order() const;
  /// Lets go of the copy section_in_tree_order() made, if it made one.
  void drop_ordered();

  Section section_;
  /// Records asked for by reserve() for the current storage, or 0.
  std::size_t reserved_records_ = 0;
  std::vector<ThreadStack> stacks_;
  std::size_t last_stack_ = 0;
  std::uint32_t next_sequence_ = 0;
  EventObserver* observer_ = nullptr;
  MetricSampler* sampler_ = nullptr;
  MetricSet metrics_;
  /// An observer, metrics or a shaped frame: the one flag the hot path tests.
  bool extras_ = false;
  /// A frame of this section was shaped by its event (FrameShape).
  bool structured_ = false;
  /// A frame of this section had a key or named its parent: section() is
  /// numbered in pass-tree order.
  bool tree_order_ = false;
  std::int64_t pending_ir_size_ = kNotMeasured;
  std::uint8_t pending_ir_flags_ = 0;
  std::optional<std::uint64_t> pending_ir_digest_;
  /// section() in pass-tree order, made when asked for before exit().
  mutable Section ordered_;
  /// `ordered_` holds such a copy.
  mutable bool ordered_held_ = false;
  /// set_logger()'s, or null for the seed's.
  const Logger* logger_ = nullptr;
  /// In front of `section_.names`, cleared whenever they are (for
  /// intern_stable). Last: its 16 KiB would otherwise put the fields every
  /// event reads on different pages.
  NameCache name_cache_;
};

}  // namespace passtiming

// The definitions of the hot path, inline for the sources that call it per
// pass; not part of the contract above.
#include "passtiming/engine/timing_state_inline.h"
