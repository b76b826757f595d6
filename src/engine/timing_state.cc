#include "passtiming/engine/timing_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/huge_pages.h"
#include "engine/tree_order.h"
#include "passtiming/engine/logging.h"

namespace passtiming {
namespace {

const Logger& timing_logger() {
  static const Logger& logger = get_logger(kTimingLoggerName);
  return logger;
}

}  // namespace

// The hot path
// ------------
// begin_now() and end() are the per-pass cost of every live source, so their
// common case stays inline in the header: a pass pair costs two interned
// strings answered from the name cache, one frame pushed and popped, one
// record appended, and no function call but the clock's. Everything else
// (an observer, metrics, a frame shaped by its event, another thread's
// stack) is one flag, `extras_`, tested once per event, and goes out of line.
//
// - The clock is read last at a begin and first at an end (by the source),
//   so the bookkeeping falls outside the pass's measured time. With metrics
//   the sampler is read inside the clock's readings (after it at a begin,
//   before it at an end: EndEvent::clock), so that a pass's CPU interval
//   lies inside its wall interval; the path without metrics is untouched.
// - An observer gets the frame's own timestamp, so a replayed log reproduces
//   the live records exactly; its few nanoseconds of writing fall inside the
//   pass, which is the price of that exactness.
// - Once a pass has run, the frame's and the names' cache lines have likely
//   been evicted, so each load the end event makes is likely a miss. A stable
//   name (BeginEvent::stable_name: LLVM's type names) is therefore matched
//   by the address and size the frame kept, without reading the name table
//   or the text, and interned by address (NameCache::intern_stable()).
// - A pass on the IR unit of the pass below it (BeginEvent::unit) takes that
//   frame's kernel label: looking the unit's name up again is, once a pass
//   has evicted the caches, the dearest part of a pass's bookkeeping, and the
//   unit cannot be destroyed while a pass over it runs.
// - A frame is 64 bytes; what a cross-thread parent needs (its sequence, the
//   frame's key and shape) fits in that, and the parent's stack is searched
//   for only when an attached frame completes, which is rare.
// - complete_top() is [[gnu::hot]] and the rare paths [[gnu::cold]] or
//   noinline, which keeps the per-pass code on few pages.

const Logger& TimingStateMachine::logger() const {
  return logger_ != nullptr ? *logger_ : timing_logger();
}

TimingStateMachine::TimingStateMachine() {
  static_assert(sizeof(Frame) == 64, "a frame must stay at 64 bytes");
  stacks_.reserve(4);
}

void TimingStateMachine::reserve(std::size_t records) {
  if (records <= section_.records.capacity()) return;
  section_.records.reserve(records);
  reserved_records_ = records;
  detail::advise_huge_pages(section_.records.data(), records * sizeof(Record));
}

void TimingStateMachine::enter(Nanoseconds t, std::string_view context) {
  if (observer_) {
    observer_->on_event({.kind = ObservedEvent::Kind::enter, .t = t, .context = context});
  }
  // Keep the previous context's storage (records, names, index): a process
  // that compiles many kernels then pays for growth and first-touch page
  // faults only once.
  section_.records.clear();
  section_.metrics.clear();
  section_.names.clear();
  name_cache_.clear();
  section_.threads.clear();
  section_.skipped = 0;
  section_.context.assign(context);
  stacks_.clear();
  last_stack_ = 0;
  next_sequence_ = 0;
  pending_ir_size_ = kNotMeasured;
  pending_ir_flags_ = 0;
  pending_ir_digest_.reset();
  structured_ = false;
  tree_order_ = false;
  drop_ordered();
  update_extras();
}

TimingStateMachine::ThreadStack& TimingStateMachine::find_or_add_stack(ThreadKey tid) {
  for (std::size_t i = 0; i < stacks_.size(); ++i) {
    if (stacks_[i].key == tid) {
      last_stack_ = i;
      return stacks_[i];
    }
  }
  auto index = static_cast<std::uint32_t>(section_.threads.size());
  section_.threads.push_back(tid);
  stacks_.push_back(ThreadStack{tid, index, {}, {}});
  last_stack_ = stacks_.size() - 1;
  return stacks_.back();
}

void TimingStateMachine::FrameStack::grow() {
  // 16 frames first: deeper pipelines are rare.
  const std::size_t size = this->size();
  const std::size_t capacity =
      data_ == nullptr ? 16 : 2 * static_cast<std::size_t>(capacity_end_ - data_.get());
  std::unique_ptr<Frame[]> data(new Frame[capacity]);
  std::copy(data_.get(), end_, data.get());
  data_ = std::move(data);
  end_ = data_.get() + size;
  capacity_end_ = data_.get() + capacity;
}

TimingStateMachine::Frame* TimingStateMachine::find_running(std::uint32_t sequence) {
  // Sequences are unique within a section; a parent is usually at or near
  // the top of its stack, so each stack is searched from there.
  for (ThreadStack& stack : stacks_) {
    for (std::size_t i = stack.frames.size(); i-- > 0;) {
      if (stack.frames[i].sequence == sequence) return &stack.frames[i];
    }
  }
  return nullptr;
}

const TimingStateMachine::Frame* TimingStateMachine::find_keyed(const ParentRef& parent) const {
  for (const ThreadStack& stack : stacks_) {
    if (stack.key != parent.thread) continue;
    for (std::size_t i = stack.frames.size(); i-- > 0;) {
      const Frame& frame = stack.frames[i];
      if (frame.key == parent.key && (frame.shape & kAwaitingKernel) == 0) return &frame;
    }
    return nullptr;
  }
  return nullptr;
}

void TimingStateMachine::begin_with_extras(const Clock* clock, Nanoseconds t,
                                           const BeginEvent<>& event, ThreadStack& stack) {
  NameId kernel = 0;
  bool kernel_known = false;
  // Frames below waiting for this one's label take it first: their begin
  // events come first, so a replay interns their label before this pass.
  if (!event.kernel_from_first_child && !stack.frames.empty() &&
      (stack.frames.back().shape & kAwaitingKernel) != 0) {
    kernel = name_cache_.intern(section_.names, event.kernel);
    kernel_known = true;
    label_awaiting(stack, kernel);
  }
  // The pass first, then the kernel, as on the inline path.
  const NameId pass = event.stable_name ? name_cache_.intern_stable(section_.names, event.pass)
                                        : name_cache_.intern(section_.names, event.pass);
  if (!kernel_known && !event.kernel_from_first_child) {
    kernel = shares_unit(event.unit, stack) ? stack.frames.back().kernel
                                            : name_cache_.intern(section_.names, event.kernel);
  }

  std::uint8_t shape = 0;
  if (event.kernel_from_first_child) shape |= kAwaitingKernel;
  if (event.ends_with_failed_child) shape |= kEndsWithFailedChild;
  std::uint16_t depth = 0;
  std::uint32_t parent_sequence = 0;
  if (event.parent.key != nullptr) {
    const Frame* parent = find_keyed(event.parent);
    if (parent == nullptr) {
      logger().warning(fmt::format("Pass timing parent of {} is not running on thread {}",
                                   event.pass, event.parent.thread));
    } else if (stack.frames.empty() || parent != &stack.frames.back()) {
      // Read before pushing: the push may reallocate the parent's stack.
      shape |= kAttached;
      depth = saturate_depth(std::size_t{parent->depth} + 1);
      parent_sequence = parent->sequence;
    }
  }
  Frame& frame = push_frame(pass, kernel, event.kernel_from_first_child ? nullptr : event.unit,
                            event.key, event.stable_name ? event.pass : std::string_view(), stack);
  if (shape != 0) {
    frame.shape = shape;
    if ((shape & kAttached) != 0) {
      frame.depth = depth;
      frame.parent_sequence = parent_sequence;
    }
    structured_ = true;
    update_extras();
  }
  if (event.key != nullptr || event.parent.key != nullptr) tree_order_ = true;
  frame.start_ns = clock != nullptr ? clock->now_ns() : t;
  if ((shape & kAwaitingKernel) == 0) announce(stack, stack.frames.size() - 1, /*takes_ir=*/true);
}

void TimingStateMachine::label_awaiting(ThreadStack& stack, NameId kernel) {
  std::size_t first = stack.frames.size();
  while (first > 0 && (stack.frames[first - 1].shape & kAwaitingKernel) != 0) --first;
  for (std::size_t i = first; i < stack.frames.size(); ++i) {
    stack.frames[i].kernel = kernel;
    stack.frames[i].shape &= static_cast<std::uint8_t>(~kAwaitingKernel);
    // The IR noted is the event's that labels them, not theirs.
    announce(stack, i, /*takes_ir=*/false);
  }
}

void TimingStateMachine::announce(ThreadStack& stack, std::size_t index, bool takes_ir) {
  const Frame& frame = stack.frames[index];
  if (sampler_ == nullptr) {
    if (observer_ != nullptr) {
      observer_->on_event({.kind = ObservedEvent::Kind::before,
                           .t = frame.start_ns,
                           .pass = section_.names[frame.name],
                           .kernel = section_.names[frame.kernel],
                           .thread = stack.key});
    }
    return;
  }
  MetricSample sample;
  sampler_->read(sample);
  std::optional<std::uint64_t> digest;
  if (takes_ir) {
    if (metrics_.contains(Metric::ir)) {
      sample.ir_size = pending_ir_size_;
      digest = pending_ir_digest_;
    }
    pending_ir_size_ = kNotMeasured;
    pending_ir_flags_ = 0;
    pending_ir_digest_.reset();
  } else if (metrics_.contains(Metric::ir)) {
    sample.ir_size = kNotMeasured;
  }
  // Frames pushed before the metrics were set have no readings.
  stack.metric_frames.resize(index);
  stack.metric_frames.push_back(MetricFrame{sample, 0, 0, digest});
  if (observer_ != nullptr) {
    observer_->on_event({.kind = ObservedEvent::Kind::before,
                         .t = frame.start_ns,
                         .pass = section_.names[frame.name],
                         .kernel = section_.names[frame.kernel],
                         .thread = stack.key,
                         .sample = &sample});
  }
}

void TimingStateMachine::end_out_of_line(Nanoseconds t, std::string_view pass, ThreadKey thread,
                                         std::uint16_t flags, const MetricSample* sample,
                                         const Clock* clock) {
  const EndEvent event{pass, thread, flags, sample, clock};
  if (extras_) {
    end_with_extras(t, event);
    return;
  }
  ThreadStack& stack = stack_for(event.thread);
  if (stack.frames.empty() || !names_frame(stack.frames.back(), event.pass)) [[unlikely]] {
    ignore_unmatched(stack, event.pass);
    return;
  }
  complete_top(t, stack, event.flags);
}

void TimingStateMachine::end_with_extras(Nanoseconds t, const EndEvent& event) {
  ThreadStack& stack = stack_for(event.thread);
  const bool matched = !stack.frames.empty() && names_frame(stack.frames.back(), event.pass);
  // A frame still waiting for a child's label ends without one.
  if (matched && (stack.frames.back().shape & kAwaitingKernel) != 0) label_awaiting(stack, 0);
  MetricSample end;
  if (sampler_ != nullptr) {
    if (event.sample != nullptr) {
      end = *event.sample;
    } else {
      sampler_->read(end);
      // The figures, then the clock: the pass's CPU interval (read after
      // the clock at its begin) then lies inside its wall interval.
      if (event.clock != nullptr) t = event.clock->now_ns();
    }
    if (metrics_.contains(Metric::ir)) {
      end.ir_size = pending_ir_size_;
      end.ir_flags = pending_ir_flags_;
      // The digests before and after: whether the pass changed its unit.
      if (pending_ir_digest_ && matched && stack.metric_frames.size() == stack.frames.size()) {
        const std::optional<std::uint64_t>& before = stack.metric_frames.back().ir_digest;
        if (before) {
          end.ir_flags |=
              *before == *pending_ir_digest_ ? kIrChangeKnown : kIrChangeKnown | kIrChanged;
        }
      }
    }
    pending_ir_size_ = kNotMeasured;
    pending_ir_flags_ = 0;
    pending_ir_digest_.reset();
  }
  if (observer_ != nullptr) {
    observer_->on_event({.kind = ObservedEvent::Kind::after,
                         .t = t,
                         .pass = event.pass,
                         .thread = event.thread,
                         .sample = sampler_ != nullptr ? &end : nullptr});
  }
  if (!matched) [[unlikely]] {
    ignore_unmatched(stack, event.pass);
    return;
  }
  const std::size_t size = stack.frames.size();
  const bool closes_below = (event.flags & kRecordFailed) != 0 && size >= 2 &&
                            (stack.frames[size - 2].shape & kEndsWithFailedChild) != 0;
  complete_top(t, stack, event.flags);
  if (sampler_ != nullptr) finish_metrics(stack, end);
  if (closes_below) {
    end_with_extras(t, EndEvent{section_.names[stack.frames.back().name], event.thread,
                                kRecordFailed, nullptr, event.clock});
  }
}

namespace {

/// `end − start` of two readings, never negative; kNotMeasured unless both
/// were measured.
std::int64_t difference(std::int64_t start, std::int64_t end) {
  if (start == kNotMeasured || end == kNotMeasured) return kNotMeasured;
  return end > start ? end - start : 0;
}

}  // namespace

void TimingStateMachine::finish_metrics(ThreadStack& stack, const MetricSample& end) {
  RecordMetrics m;
  // complete_top() popped the frame; its readings are the last metric frame
  // unless the frame was pushed before the metrics were set.
  if (stack.metric_frames.size() == stack.frames.size() + 1) {
    const MetricFrame frame = stack.metric_frames.back();
    stack.metric_frames.pop_back();
    MetricFrame* below = stack.metric_frames.empty() ? nullptr : &stack.metric_frames.back();
    if (metrics_.contains(Metric::cpu)) {
      m.cpu_ns = difference(frame.start.cpu_ns, end.cpu_ns);
      if (m.cpu_ns != kNotMeasured) {
        m.cpu_self_ns = std::max<std::int64_t>(0, m.cpu_ns - frame.cpu_children_ns);
        if (below != nullptr) below->cpu_children_ns += m.cpu_ns;
      }
    }
    if (metrics_.contains(Metric::rss)) {
      m.rss_start_bytes = frame.start.rss_bytes;
      m.rss_end_bytes = end.rss_bytes;
      m.rss_peak_bytes = end.rss_peak_bytes;
    }
    if (metrics_.contains(Metric::ir)) {
      m.ir_before = frame.start.ir_size;
      m.ir_after = end.ir_size;
      m.ir_flags = end.ir_flags;
    }
    if (metrics_.contains(Metric::instructions)) {
      m.instructions = difference(frame.start.instructions, end.instructions);
      if (m.instructions != kNotMeasured) {
        m.instructions_self =
            std::max<std::int64_t>(0, m.instructions - frame.instructions_children);
        if (below != nullptr) below->instructions_children += m.instructions;
      }
    }
  } else {
    stack.metric_frames.resize(stack.frames.size());
  }
  // One entry per record, at the record's index, whatever came before.
  section_.metrics.resize(section_.records.size() - 1);
  section_.metrics.push_back(m);
}

void TimingStateMachine::ignore_unmatched(ThreadStack& stack, std::string_view pass) {
  std::string_view expected =
      stack.frames.empty() ? std::string_view("<none>") : section_.names[stack.frames.back().name];
  logger().warning(
      fmt::format("Ignoring unmatched pass timing callback for {} (expected {})", pass, expected));
  stack.frames.clear();
  stack.metric_frames.clear();
}

namespace {

/// `a + b`, or the largest duration when that overflows.
Nanoseconds saturating_add(Nanoseconds a, Nanoseconds b) {
  Nanoseconds sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<Nanoseconds>::max() : sum;
}

}  // namespace

void TimingStateMachine::complete_top(Nanoseconds t, ThreadStack& stack, std::uint16_t flags) {
  const Frame frame = stack.frames.back();
  stack.frames.pop_back();
  // Replayed logs may carry any timestamps: a clock that went backwards
  // gives zero, and a difference past 64 bits saturates instead of wrapping.
  Nanoseconds inclusive = 0;
  if (t > frame.start_ns && __builtin_sub_overflow(t, frame.start_ns, &inclusive)) [[unlikely]] {
    inclusive = std::numeric_limits<Nanoseconds>::max();
  }
  Frame* parent = nullptr;
  std::uint32_t parent_sequence = kNoParent;
  if ((frame.shape & kAttached) != 0) [[unlikely]] {
    parent_sequence = frame.parent_sequence;
    parent = find_running(frame.parent_sequence);
  } else if (!stack.frames.empty()) {
    parent = &stack.frames.back();
    parent_sequence = parent->sequence;
  }
  // Children that ran in parallel on other threads can add up to more than
  // the parent's wall time; self time is clamped at zero, never negative.
  section_.records.push_back(Record{frame.name, frame.kernel, frame.sequence, parent_sequence,
                                    stack.index, frame.depth, flags, frame.start_ns, inclusive,
                                    std::max<Nanoseconds>(0, inclusive - frame.children_ns)});
  if (parent != nullptr) parent->children_ns = saturating_add(parent->children_ns, inclusive);
}

void TimingStateMachine::skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
                              ThreadKey tid) {
  if (observer_) {
    observer_->on_event(
        {.kind = ObservedEvent::Kind::skip, .t = t, .pass = pass, .kernel = kernel, .thread = tid});
  }
  ++section_.skipped;
}

void TimingStateMachine::discard_incomplete(ThreadStack& stack) {
  // A frame still waiting for a child's label has not begun for anyone
  // who watches: it is dropped without a word.
  std::size_t count = 0;
  std::string names;
  for (const Frame& frame : stack.frames) {
    if ((frame.shape & kAwaitingKernel) != 0) continue;
    if (!names.empty()) names += ", ";
    names += section_.names[frame.name];
    ++count;
  }
  if (count != 0) {
    logger().warning(
        fmt::format("Discarding {} incomplete pass timing frame(s): {}", count, names));
  }
  stack.frames.clear();
  stack.metric_frames.clear();
}

void TimingStateMachine::exit(Nanoseconds t) {
  if (observer_) observer_->on_event({.kind = ObservedEvent::Kind::exit, .t = t});
  for (ThreadStack& stack : stacks_) discard_incomplete(stack);
  // Nothing runs now that could name a record by its old sequence.
  if (tree_order_) {
    detail::renumber_in_tree_order(section_);
    tree_order_ = false;
    drop_ordered();
  }
}

void TimingStateMachine::drop_ordered() {
  // A fresh Section allocates its name index: only a copy that was made is
  // let go of, so that entering a context makes no name index.
  if (!ordered_held_) return;
  ordered_ = Section();
  ordered_held_ = false;
}

std::vector<std::string> TimingStateMachine::running_passes() const {
  std::vector<std::string> names;
  for (const ThreadStack& stack : stacks_) {
    for (const Frame& frame : stack.frames) {
      if ((frame.shape & kAwaitingKernel) == 0) names.emplace_back(section_.names[frame.name]);
    }
  }
  return names;
}

const Section& TimingStateMachine::section_in_tree_order() const {
  // Running frames still hold the sequences the records are numbered by
  // until they complete, so the section is renumbered in a copy.
  ordered_ = section_;
  ordered_held_ = true;
  detail::renumber_in_tree_order(ordered_);
  return ordered_;
}

Section TimingStateMachine::take_section() {
  Section out = std::move(section_);
  if (tree_order_) detail::renumber_in_tree_order(out);
  if (out.records.capacity() > reserved_records_) out.records.shrink_to_fit();
  reserved_records_ = 0;
  section_ = Section();
  drop_ordered();
  tree_order_ = false;
  name_cache_.clear();
  return out;
}

}  // namespace passtiming
