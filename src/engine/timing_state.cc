#include "passtiming/timing_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/huge_pages.h"
#include "passtiming/logging.h"

namespace passtiming {
namespace {

const Logger& timing_logger() {
  static const Logger& logger = get_logger(kTimingLoggerName);
  return logger;
}

}  // namespace

TimingStateMachine::TimingStateMachine() {
  stacks_.reserve(4);
}

void TimingStateMachine::reserve(std::size_t records) {
  if (records <= section_.records.capacity()) return;
  section_.records.reserve(records);
  reserved_records_ = records;
  detail::advise_huge_pages(section_.records.data(), records * sizeof(Record));
}

void TimingStateMachine::enter(Nanoseconds t, std::string_view context) {
  if (observer_) observer_->on_enter(t, context);
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
  stacks_.back().frames.reserve(16);
  last_stack_ = stacks_.size() - 1;
  return stacks_.back();
}

void TimingStateMachine::before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                                ThreadKey tid) {
  ThreadStack& stack = stack_for(tid);
  push_frame(pass, kernel, stack).start_ns = t;
  if (extras_) begin_extras(t, pass, kernel, stack);
}

TimingStateMachine::Frame* TimingStateMachine::find_running(std::uint32_t stack_index,
                                                            std::uint32_t sequence) {
  if (stack_index >= stacks_.size()) return nullptr;
  std::vector<Frame>& frames = stacks_[stack_index].frames;
  // A parent is usually at or near the top, so search from there.
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (it->sequence == sequence) return &*it;
  }
  return nullptr;
}

TimingStateMachine::Frame& TimingStateMachine::push_child_frame(std::string_view pass,
                                                                std::string_view kernel,
                                                                ThreadKey tid,
                                                                const ParentRef* parent) {
  ThreadStack& stack = stack_for(tid);  // first: it may grow `stacks_`
  if (parent == nullptr) return push_frame(pass, kernel, stack);
  std::uint32_t parent_stack = kSameStack;
  for (std::size_t i = 0; i < stacks_.size(); ++i) {
    if (stacks_[i].key == parent->thread) parent_stack = static_cast<std::uint32_t>(i);
  }
  const Frame* parent_frame = find_running(parent_stack, parent->sequence);
  if (parent_frame == nullptr) {
    timing_logger().warning(fmt::format("Pass timing parent {} of {} is not running on thread {}",
                                        parent->sequence, pass, parent->thread));
    return push_frame(pass, kernel, stack);
  }
  // Read before pushing: the push may reallocate the parent's stack.
  const std::uint16_t depth = saturate_depth(std::size_t{parent_frame->depth} + 1);
  Frame& frame = push_frame(pass, kernel, stack);
  frame.depth = depth;
  frame.parent_stack = parent_stack;
  frame.parent_sequence = parent->sequence;
  return frame;
}

std::uint32_t TimingStateMachine::before(Nanoseconds t, std::string_view pass,
                                         std::string_view kernel, ThreadKey tid,
                                         const ParentRef* parent) {
  Frame& frame = push_child_frame(pass, kernel, tid, parent);
  frame.start_ns = t;
  const std::uint32_t sequence = frame.sequence;
  if (extras_) begin_extras(t, pass, kernel, stack_for(tid));
  return sequence;
}

std::uint32_t TimingStateMachine::before_now(const Clock& clock, std::string_view pass,
                                             std::string_view kernel, ThreadKey tid,
                                             const ParentRef* parent) {
  Frame& frame = push_child_frame(pass, kernel, tid, parent);
  frame.start_ns = clock.now_ns();
  const std::uint32_t sequence = frame.sequence;
  if (extras_) begin_extras(frame.start_ns, pass, kernel, stack_for(tid));
  return sequence;
}

void TimingStateMachine::begin_extras(Nanoseconds t, std::string_view pass, std::string_view kernel,
                                      ThreadStack& stack) {
  if (sampler_ == nullptr) {
    observer_->on_before(t, pass, kernel, stack.key);
    return;
  }
  MetricSample sample;
  sampler_->read(sample);
  if (metrics_.contains(Metric::ir)) sample.ir_size = pending_ir_size_;
  pending_ir_size_ = kNotMeasured;
  pending_ir_flags_ = 0;
  // Frames pushed before the metrics were set have no readings.
  stack.metric_frames.resize(stack.frames.size() - 1);
  stack.metric_frames.push_back(MetricFrame{sample});
  if (observer_ != nullptr) observer_->on_before_sampled(t, pass, kernel, stack.key, sample);
}

void TimingStateMachine::after_with_extras(Nanoseconds t, std::string_view pass, ThreadKey tid,
                                           std::uint16_t flags) {
  MetricSample end;
  if (sampler_ != nullptr) sampler_->read(end);
  after_with_sample(t, pass, tid, flags, end);
}

void TimingStateMachine::after_with_sample(Nanoseconds t, std::string_view pass, ThreadKey tid,
                                           std::uint16_t flags, MetricSample end) {
  if (sampler_ != nullptr) {
    if (metrics_.contains(Metric::ir)) {
      end.ir_size = pending_ir_size_;
      end.ir_flags = pending_ir_flags_;
    }
    pending_ir_size_ = kNotMeasured;
    pending_ir_flags_ = 0;
  }
  if (observer_ != nullptr) {
    if (sampler_ != nullptr) {
      observer_->on_after_sampled(t, pass, tid, end);
    } else {
      observer_->on_after(t, pass, tid);
    }
  }
  ThreadStack& stack = stack_for(tid);
  if (stack.frames.empty() || !is_name(stack.frames.back().name, pass)) [[unlikely]] {
    ignore_unmatched(stack, pass);
    return;
  }
  complete_top(t, stack, flags);
  if (sampler_ != nullptr) finish_metrics(stack, end);
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

void TimingStateMachine::after_out_of_line(Nanoseconds t, std::string_view pass, ThreadKey tid) {
  after(t, pass, tid);
}

void TimingStateMachine::ignore_unmatched(ThreadStack& stack, std::string_view pass) {
  std::string_view expected =
      stack.frames.empty() ? std::string_view("<none>") : section_.names[stack.frames.back().name];
  timing_logger().warning(
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
  if (frame.parent_stack != kSameStack) [[unlikely]] {
    parent_sequence = frame.parent_sequence;
    parent = find_running(frame.parent_stack, frame.parent_sequence);
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
  if (observer_) observer_->on_skip(t, pass, kernel, tid);
  ++section_.skipped;
}

void TimingStateMachine::discard_incomplete(ThreadStack& stack) {
  if (stack.frames.empty()) return;
  std::string names;
  for (const Frame& frame : stack.frames) {
    if (!names.empty()) names += ", ";
    names += section_.names[frame.name];
  }
  timing_logger().warning(
      fmt::format("Discarding {} incomplete pass timing frame(s): {}", stack.frames.size(), names));
  stack.frames.clear();
  stack.metric_frames.clear();
}

void TimingStateMachine::exit(Nanoseconds t) {
  if (observer_) observer_->on_exit(t);
  for (ThreadStack& stack : stacks_) discard_incomplete(stack);
}

std::vector<std::string> TimingStateMachine::running_passes() const {
  std::vector<std::string> names;
  for (const ThreadStack& stack : stacks_) {
    for (const Frame& frame : stack.frames) names.emplace_back(section_.names[frame.name]);
  }
  return names;
}

Section TimingStateMachine::take_section() {
  Section out = std::move(section_);
  if (out.records.capacity() > reserved_records_) out.records.shrink_to_fit();
  reserved_records_ = 0;
  section_ = Section();
  name_cache_.clear();
  return out;
}

}  // namespace passtiming
