#include "passtiming/timing_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "passtiming/logging.h"

namespace passtiming {
namespace {

const Logger& timing_logger() {
  static const Logger& logger = get_logger(kTimingLoggerName);
  return logger;
}

std::uint16_t saturate_depth(std::size_t depth) {
  return static_cast<std::uint16_t>(
      std::min<std::size_t>(depth, std::numeric_limits<std::uint16_t>::max()));
}

}  // namespace

TimingStateMachine::TimingStateMachine() { stacks_.reserve(4); }

void TimingStateMachine::enter(Nanoseconds t, std::string_view context) {
  if (observer_) observer_->on_enter(t, context);
  // Keep the previous context's record storage: a process that compiles many
  // kernels then pays for growth and first-touch page faults only once.
  std::vector<Record> storage = std::move(section_.records);
  storage.clear();
  section_ = Section();
  section_.records = std::move(storage);
  section_.context = std::string(context);
  stacks_.clear();
  last_stack_ = 0;
  next_sequence_ = 0;
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
  stacks_.push_back(ThreadStack{tid, index, {}});
  stacks_.back().frames.reserve(16);
  last_stack_ = stacks_.size() - 1;
  return stacks_.back();
}

TimingStateMachine::Frame& TimingStateMachine::push_frame(std::string_view pass,
                                                          std::string_view kernel,
                                                          ThreadStack& stack) {
  // One more than the frame below, which is the stack size unless a frame
  // below was attached to a parent on another thread.
  const std::uint16_t depth =
      stack.frames.empty() ? 0 : saturate_depth(std::size_t{stack.frames.back().depth} + 1);
  Frame frame{section_.names.intern(pass), section_.names.intern(kernel), next_sequence_++,
              depth, 0, 0};
  stack.frames.push_back(frame);
  return stack.frames.back();
}

void TimingStateMachine::before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                                ThreadKey tid) {
  push_frame(pass, kernel, stack_for(tid)).start_ns = t;
  if (observer_) observer_->on_before(t, pass, kernel, tid);
}

void TimingStateMachine::before_now(const Clock& clock, std::string_view pass,
                                    std::string_view kernel, ThreadKey tid) {
  Frame& frame = push_frame(pass, kernel, stack_for(tid));
  frame.start_ns = clock.now_ns();
  // The observer gets the frame's own timestamp, so a replayed log reproduces
  // the live records exactly; its few nanoseconds of writing fall inside the
  // pass, which is the price of that exactness.
  if (observer_) observer_->on_before(frame.start_ns, pass, kernel, tid);
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
  if (observer_) observer_->on_before(t, pass, kernel, tid);
  return sequence;
}

std::uint32_t TimingStateMachine::before_now(const Clock& clock, std::string_view pass,
                                             std::string_view kernel, ThreadKey tid,
                                             const ParentRef* parent) {
  Frame& frame = push_child_frame(pass, kernel, tid, parent);
  frame.start_ns = clock.now_ns();
  if (observer_) observer_->on_before(frame.start_ns, pass, kernel, tid);
  return frame.sequence;
}

void TimingStateMachine::after(Nanoseconds t, std::string_view pass, ThreadKey tid,
                               std::uint16_t flags) {
  if (observer_) observer_->on_after(t, pass, tid);
  ThreadStack& stack = stack_for(tid);
  if (stack.frames.empty() || section_.names[stack.frames.back().name] != pass) {
    std::string_view expected =
        stack.frames.empty() ? std::string_view("<none>") : section_.names[stack.frames.back().name];
    timing_logger().warning(fmt::format(
        "Ignoring unmatched pass timing callback for {} (expected {})", pass, expected));
    stack.frames.clear();
    return;
  }
  const Frame frame = stack.frames.back();
  stack.frames.pop_back();
  // Replayed logs may carry any timestamps: a clock that went backwards
  // gives zero, and a difference past 64 bits saturates instead of wrapping.
  Nanoseconds inclusive = 0;
  if (t > frame.start_ns && __builtin_sub_overflow(t, frame.start_ns, &inclusive)) {
    inclusive = std::numeric_limits<Nanoseconds>::max();
  }
  Record record;
  record.name = frame.name;
  record.kernel = frame.kernel;
  record.sequence = frame.sequence;
  Frame* parent = nullptr;
  if (frame.parent_stack != kSameStack) {
    record.parent = frame.parent_sequence;
    parent = find_running(frame.parent_stack, frame.parent_sequence);
  } else if (!stack.frames.empty()) {
    record.parent = stack.frames.back().sequence;
    parent = &stack.frames.back();
  }
  record.thread = stack.index;
  record.depth = frame.depth;
  record.flags = flags;
  record.start_ns = frame.start_ns;
  record.inclusive_ns = inclusive;
  record.self_ns = std::max<Nanoseconds>(0, inclusive - frame.children_ns);
  section_.records.push_back(record);
  // Children that ran in parallel on other threads can add up to more than
  // the parent's wall time; self time is clamped at zero above, never negative.
  if (parent != nullptr && __builtin_add_overflow(parent->children_ns, inclusive, &parent->children_ns)) {
    parent->children_ns = std::numeric_limits<Nanoseconds>::max();
  }
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
  timing_logger().warning(fmt::format("Discarding {} incomplete pass timing frame(s): {}",
                                      stack.frames.size(), names));
  stack.frames.clear();
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
  // A section handed on keeps 48 bytes per record, not the growth slack.
  out.records.shrink_to_fit();
  section_ = Section();
  return out;
}

}  // namespace passtiming
