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
  section_ = Section();
  section_.context = std::string(context);
  stacks_.clear();
  last_stack_ = 0;
  next_sequence_ = 0;
}

TimingStateMachine::ThreadStack& TimingStateMachine::stack_for(ThreadKey tid) {
  if (last_stack_ < stacks_.size() && stacks_[last_stack_].key == tid) return stacks_[last_stack_];
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
  Frame frame{section_.names.intern(pass), section_.names.intern(kernel), next_sequence_++,
              saturate_depth(stack.frames.size()), 0, 0};
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
  const Nanoseconds inclusive = t - frame.start_ns;
  Record record;
  record.name = frame.name;
  record.kernel = frame.kernel;
  record.sequence = frame.sequence;
  record.parent = stack.frames.empty() ? kNoParent : stack.frames.back().sequence;
  record.thread = stack.index;
  record.depth = frame.depth;
  record.flags = flags;
  record.start_ns = frame.start_ns;
  record.inclusive_ns = inclusive;
  record.self_ns = std::max<Nanoseconds>(0, inclusive - frame.children_ns);
  section_.records.push_back(record);
  if (!stack.frames.empty()) stack.frames.back().children_ns += inclusive;
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
  section_ = Section();
  return out;
}

}  // namespace passtiming
