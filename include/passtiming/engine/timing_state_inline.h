#pragma once
/// \file
/// The inline half of TimingStateMachine (timing_state.h, which includes
/// this file last): the running frames and the hot path that every source
/// calls per pass. Inline, and why: "The hot path" in timing_state.cc. Not
/// a contract; read timing_state.h for what these functions promise.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "passtiming/engine/timing_state.h"

namespace passtiming {

/// A running frame; 64 bytes, the fields of the hot path first.
struct TimingStateMachine::Frame {
  NameId name;
  NameId kernel;
  std::uint32_t sequence;
  std::uint32_t parent_sequence;  ///< with kAttached
  std::uint16_t depth;
  std::uint8_t shape;       ///< FrameShape
  std::uint32_t name_size;  ///< with `name_data`
  Nanoseconds start_ns;
  Nanoseconds children_ns;
  const void* unit;
  const void* key;
  /// With BeginEvent::stable_name: where the name was read; else null.
  const char* name_data;
};

/// Bits of Frame::shape, all set by begin_with_extras().
enum TimingStateMachine::FrameShape : std::uint8_t {
  /// kernel_from_first_child, until the child begins; not yet announced.
  kAwaitingKernel = 1u << 0,
  kEndsWithFailedChild = 1u << 1,
  /// The parent is the frame `parent_sequence`, not the frame below.
  kAttached = 1u << 2,
};

/// The metric readings of a running frame, at the same index as the frame
/// when metrics are recorded: kept apart so that a frame stays as small as
/// the timing alone needs.
struct TimingStateMachine::MetricFrame {
  MetricSample start;
  std::int64_t cpu_children_ns = 0;
  std::int64_t instructions_children = 0;
  std::optional<std::uint64_t> ir_digest;
};

/// A thread's running frames, outermost first: a vector whose push is
/// inline whatever the compiler makes of the caller.
class TimingStateMachine::FrameStack {
 public:
  bool empty() const { return end_ == data_.get(); }
  std::size_t size() const { return static_cast<std::size_t>(end_ - data_.get()); }
  Frame& back() { return end_[-1]; }
  const Frame& back() const { return end_[-1]; }
  Frame& operator[](std::size_t i) { return data_[i]; }
  const Frame& operator[](std::size_t i) const { return data_[i]; }
  const Frame* begin() const { return data_.get(); }
  const Frame* end() const { return end_; }
  void pop_back() { --end_; }
  void clear() { end_ = data_.get(); }
  [[gnu::always_inline]] Frame& push_back(const Frame& frame) {
    if (end_ == capacity_end_) [[unlikely]]
      grow();
    *end_ = frame;
    return *end_++;
  }

 private:
  void grow();
  std::unique_ptr<Frame[]> data_;
  Frame* end_ = nullptr;
  Frame* capacity_end_ = nullptr;
};

struct TimingStateMachine::ThreadStack {
  ThreadKey key;
  std::uint32_t index;  ///< the thread's index in the section
  FrameStack frames;
  std::vector<MetricFrame> metric_frames;
};

template <typename Kernel>
inline void TimingStateMachine::begin(Nanoseconds t, const BeginEvent<Kernel>& event) {
  ThreadStack& stack = stack_for(event.thread);
  if (extras_ || has_structure(event)) [[unlikely]] {
    begin_out_of_line(static_cast<const Clock*>(nullptr), t, BeginEvent<Kernel>(event), stack);
    return;
  }
  push(event, stack).start_ns = t;
}

template <std::derived_from<Clock> ClockType, typename Kernel>
inline void TimingStateMachine::begin_now(const ClockType& clock, const BeginEvent<Kernel>& event) {
  ThreadStack& stack = stack_for(event.thread);
  if (extras_ || has_structure(event)) [[unlikely]] {
    // A copy, made only here: the inline path then never stores the event.
    begin_out_of_line(static_cast<const Clock*>(&clock), 0, BeginEvent<Kernel>(event), stack);
    return;
  }
  push(event, stack).start_ns = clock.now_ns();
}

inline void TimingStateMachine::end(Nanoseconds t, const EndEvent& event) {
  end_inline(t, event.pass, event.thread, event.flags, event.sample, event.clock);
}

inline TimingStateMachine::ThreadStack& TimingStateMachine::stack_for(ThreadKey tid) {
  // One thread, or the same thread as the last event: no search.
  if (last_stack_ < stacks_.size() && stacks_[last_stack_].key == tid) return stacks_[last_stack_];
  return find_or_add_stack(tid);
}

template <typename Kernel>
inline bool TimingStateMachine::has_structure(const BeginEvent<Kernel>& event) {
  return event.key != nullptr || event.parent.key != nullptr || event.kernel_from_first_child ||
         event.ends_with_failed_child;
}

inline bool TimingStateMachine::shares_unit(const void* unit, const ThreadStack& stack) {
  return unit != nullptr && !stack.frames.empty() && stack.frames.back().unit == unit;
}

template <typename Kernel>
inline std::string_view TimingStateMachine::kernel_text(const Kernel& kernel) {
  if constexpr (std::is_invocable_v<const Kernel&>) {
    return std::string_view(kernel());
  } else {
    return std::string_view(kernel);
  }
}

template <typename Kernel>
void TimingStateMachine::begin_out_of_line(const Clock* clock, Nanoseconds t,
                                           const BeginEvent<Kernel>& event, ThreadStack& stack) {
  BeginEvent<> out{event.pass,
                   {},
                   event.thread,
                   event.unit,
                   event.key,
                   event.parent,
                   event.stable_name,
                   event.kernel_from_first_child,
                   event.ends_with_failed_child};
  if (!event.kernel_from_first_child && !shares_unit(event.unit, stack)) {
    out.kernel = kernel_text(event.kernel);
  }
  begin_with_extras(clock, t, out, stack);
}

template <typename Kernel>
inline TimingStateMachine::Frame& TimingStateMachine::push(const BeginEvent<Kernel>& event,
                                                           ThreadStack& stack) {
  // The pass first, then the kernel: the order the names get their ids in.
  const NameId pass = event.stable_name ? name_cache_.intern_stable(section_.names, event.pass)
                                        : name_cache_.intern(section_.names, event.pass);
  const NameId kernel = shares_unit(event.unit, stack)
                            ? stack.frames.back().kernel
                            : name_cache_.intern(section_.names, kernel_text(event.kernel));
  return push_frame(pass, kernel, event.unit, event.key,
                    event.stable_name ? event.pass : std::string_view(), stack);
}

inline TimingStateMachine::Frame& TimingStateMachine::push_frame(NameId pass, NameId kernel,
                                                                 const void* unit, const void* key,
                                                                 std::string_view stable_name,
                                                                 ThreadStack& stack) {
  // One more than the frame below, which is the stack size unless a frame
  // below was attached to a parent elsewhere.
  const std::uint16_t depth =
      stack.frames.empty() ? 0 : saturate_depth(std::size_t{stack.frames.back().depth} + 1);
  // A name past 32 bits never matches by address: its size is truncated.
  return stack.frames.push_back(Frame{pass, kernel, next_sequence_++, 0, depth, 0,
                                      static_cast<std::uint32_t>(stable_name.size()), 0, 0, unit,
                                      key, stable_name.data()});
}

inline std::uint16_t TimingStateMachine::saturate_depth(std::size_t depth) {
  return depth < 0xFFFF ? static_cast<std::uint16_t>(depth) : std::uint16_t{0xFFFF};
}

inline bool TimingStateMachine::is_name(NameId id, std::string_view pass) const {
  const std::string_view name = section_.names[id];
  return name.size() == pass.size() && same_bytes(name.data(), pass.data(), pass.size());
}

inline bool TimingStateMachine::names_frame(const Frame& frame, std::string_view pass) const {
  return (frame.name_data != nullptr && frame.name_data == pass.data() &&
          frame.name_size == pass.size()) ||
         is_name(frame.name, pass);
}

inline void TimingStateMachine::end_inline(Nanoseconds t, std::string_view pass, ThreadKey thread,
                                           std::uint16_t flags, const MetricSample* sample,
                                           const Clock* clock) {
  if (!extras_ && last_stack_ < stacks_.size()) [[likely]] {
    ThreadStack& stack = stacks_[last_stack_];
    if (stack.key == thread && !stack.frames.empty()) [[likely]] {
      const Frame& top = stack.frames.back();
      if ((top.name_data == pass.data() && top.name_size == pass.size() &&
           top.name_data != nullptr) ||
          (top.name_data == nullptr && is_name(top.name, pass))) [[likely]] {
        complete_top(t, stack, flags);
        return;
      }
    }
  }
  end_out_of_line(t, pass, thread, flags, sample, clock);
}

}  // namespace passtiming
