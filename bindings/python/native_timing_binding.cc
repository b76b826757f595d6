/// \file
/// The state behind `passtiming.tvm` and `passtiming.tilelang`: timing
/// fed by a native event source (the TVM adapter's PassInstrument), and a
/// compile session of such timings with its profile and event log.

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "passtiming/clock.h"
#include "passtiming/outputs.h"
#include "passtiming/pass_timing.h"
#include "passtiming/report.h"
#include "passtiming/session.h"
#include "passtiming/settings.h"
#include "timing_callbacks.h"

namespace passtiming::python {
namespace {

/// One PassContext's timing: `events` is what the TVM adapter is given, by
/// address; a native instrument made from it shares the callback state and
/// never this object.
using EventTiming = TimingCallbacks;

/// A compile session: its timings are its sections, in creation order.
struct Session {
  std::unique_ptr<PassTimingTool> tool;

  explicit Session(std::unique_ptr<PassTimingTool> t) : tool(std::move(t)) {}
  Session(Session&&) = default;
  /// The Python tool logs the report itself: a session dropped unfinished
  /// still writes its files, and never logs.
  ~Session() {
    if (tool) tool->close_outputs();
  }
};

std::optional<std::string> non_empty(std::optional<std::string> path) {
  if (path && path->empty()) return std::nullopt;
  return path;
}

}  // namespace

void bind_native_timing(py::module_& m) {
  py::class_<EventTiming>(m, "_EventTiming",
                          "The timing state of one PassContext fed by a native instrument.")
      .def(py::init([](std::shared_ptr<Clock> clock, bool files_from_environment) {
             std::shared_ptr<const Clock> source =
                 clock ? std::shared_ptr<const Clock>(clock) : steady_clock();
             auto timing = std::make_shared<TileLangPassTimingInstrument>(0.0, source);
             if (files_from_environment) {
               timing->write_files(
                   OutputSettings::from_environment(Environment::process(), next_compile_number()));
             }
             return EventTiming(std::move(timing));
           }),
           py::kw_only(), py::arg("clock") = nullptr, py::arg("files_from_environment") = false,
           "files_from_environment: write PASSTIMING_PROFILE and PASSTIMING_EVENTS as an "
           "instrument used on its own does.")
      .def_property_readonly(
          "sink_address",
          [](const EventTiming& self) { return reinterpret_cast<std::uintptr_t>(&self.events); },
          "Address of the std::shared_ptr<PassEventSink> the TVM adapter copies.")
      .def_property_readonly(
          "records", [](const EventTiming& self) { return records_of(self.timing->section()); })
      .def_property_readonly(
          "total_duration_s",
          [](const EventTiming& self) { return self.timing->section().total_seconds(); })
      .def_property_readonly(
          "record_count",
          [](const EventTiming& self) { return self.timing->section().records.size(); })
      .def(
          "report",
          [](const EventTiming& self, double threshold_ms, std::optional<std::string> context) {
            return render_report(
                self.timing->section(), threshold_ms,
                context ? std::optional<std::string_view>(*context) : std::nullopt);
          },
          py::arg("threshold_ms"), py::arg("context") = py::none(),
          "The report with any threshold, as the seed renders it.");

  py::class_<Session>(m, "_Session",
                      "A compile session: one section per PassContext, a JSON profile written "
                      "and an event log closed by close_outputs().")
      .def(py::init([](std::optional<std::string> profile, std::optional<std::string> events,
                       std::shared_ptr<Clock> clock) {
             std::shared_ptr<const Clock> source =
                 clock ? std::shared_ptr<const Clock>(clock) : steady_clock();
             OutputSettings outputs{non_empty(std::move(profile)), non_empty(std::move(events))};
             return Session{std::make_unique<PassTimingTool>(0.0, source, std::move(outputs))};
           }),
           py::arg("profile") = py::none(), py::arg("events") = py::none(), py::kw_only(),
           py::arg("clock") = nullptr)
      .def(
          "new_section",
          [](Session& self, const std::string& context) {
            return EventTiming(self.tool->new_section(context));
          },
          py::arg("context"), "A fresh timing for the next PassContext, labelled `context`.")
      .def(
          "close_outputs", [](Session& self) { self.tool->close_outputs(); },
          "Writes the profile and closes the event log, once. Never raises: a file that "
          "cannot be written is logged, naming it.")
      .def_property_readonly("profile_path",
                             [](const Session& self) { return self.tool->outputs().profile_path; })
      .def_property_readonly("events_path",
                             [](const Session& self) { return self.tool->outputs().events_path; });

  m.def("next_compile_number", &next_compile_number,
        "The number of the next compile session of this process (%n), from 0.");
  m.def(
      "expand_path_pattern",
      [](const std::string& pattern, long pid, unsigned long compile) {
        return expand_path_pattern(pattern, pid, compile);
      },
      py::arg("pattern"), py::arg("pid"), py::arg("compile") = 0,
      "`pattern` with %p replaced by pid, %n by the compile number and %% by %.");
}

}  // namespace passtiming::python
