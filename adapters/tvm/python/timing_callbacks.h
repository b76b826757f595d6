#pragma once
/// \file
/// The object behind `TileLangPassTimingInstrument.instrument`: TVM's Python
/// pass-instrument protocol over the core's timing state machine.
///
/// It is a hand-written CPython type rather than a pybind11 class because
/// its two per-pass methods are the profiler's whole cost inside a compile:
/// vectorcall methods with no argument conversion keep a pass pair well
/// under a microsecond.

#include <memory>

#include "module_labels.h"
#include "passtiming/engine/clock.h"
#include "passtiming/host/pass_timing.h"

namespace passtiming::python {

/// The callback state: the core's timing instrument, driven through its
/// PassEventSink. It never refers to the Python wrapper, so a PassContext
/// that keeps the instrument does not keep the wrapper alive. Calls arrive
/// with the GIL held, which serialises them as the state machine requires.
///
/// The same state backs `_EventTiming`, the timing a native source (the TVM
/// adapter) feeds: it is given the address of `events`.
struct TimingCallbacks {
  TimingCallbacks(double threshold_ms, std::shared_ptr<const Clock> clock)
      : TimingCallbacks(
            std::make_shared<TileLangPassTimingInstrument>(threshold_ms, std::move(clock))) {}
  explicit TimingCallbacks(std::shared_ptr<TileLangPassTimingInstrument> t)
      : timing(std::move(t)), events(timing->events()) {}
  std::shared_ptr<TileLangPassTimingInstrument> timing;
  std::shared_ptr<PassEventSink> events;

  const Section& section() const { return timing->section(); }
};

/// Adds the type `RecorderInstrument` to `m`.
void bind_timing_callbacks(py::module_& m);

/// A new `RecorderInstrument` sharing `callbacks`.
py::object make_timing_pass_instrument(std::shared_ptr<TimingCallbacks> callbacks);

}  // namespace passtiming::python
