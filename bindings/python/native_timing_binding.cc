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
#include "passtiming/engine/clock.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/path_pattern.h"
#include "passtiming/recorder/settings.h"
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

/// A file named by a Python argument: none when unset or empty; messages
/// about it name the argument.
std::optional<OutputPath> file_argument(std::optional<std::string> path, std::string argument) {
  if (!path || path->empty()) return std::nullopt;
  return OutputPath{std::move(*path), std::move(argument)};
}

std::optional<std::string> path_of(const std::optional<OutputPath>& file) {
  if (!file) return std::nullopt;
  return file->path;
}

/// `_EventTiming`: the timing one PassContext is fed by a native instrument.
void bind_event_timing(py::module_& m) {
  py::class_<EventTiming>(m, "_EventTiming",
                          "The timing state of one PassContext fed by a native instrument.")
      .def(py::init([](double threshold_ms, std::shared_ptr<Clock> clock,
                       bool files_from_environment, py::object metrics) {
             std::shared_ptr<const Clock> source =
                 clock ? std::shared_ptr<const Clock>(clock) : steady_clock();
             const std::optional<MetricSet> asked = metrics_option(metrics, "metrics");
             std::shared_ptr<TileLangPassTimingInstrument> timing;
             if (files_from_environment) {
               Settings settings = read_file_settings({.compile = next_compile_number()},
                                                      {.threshold_ms = threshold_ms});
               if (asked) settings.metrics = *asked;
               timing = TileLangPassTimingInstrument::with_files(std::move(settings), source);
             } else {
               timing = std::make_shared<TileLangPassTimingInstrument>(std::make_shared<Recorder>(
                   Settings{.threshold_ms = threshold_ms, .metrics = asked.value_or(MetricSet{})},
                   source));
             }
             return EventTiming(std::move(timing));
           }),
           py::kw_only(), py::arg("threshold_ms") = 0.0, py::arg("clock") = nullptr,
           py::arg("files_from_environment") = false, py::arg("metrics") = py::none(),
           "files_from_environment: write PASSTIMING_PROFILE and PASSTIMING_EVENTS and record "
           "PASSTIMING_METRICS as an instrument used on its own does. metrics: a metric list "
           "(\"cpu,rss\") recorded instead of PASSTIMING_METRICS; None: the environment's.")
      .def_property_readonly(
          "record_metrics",
          [](const EventTiming& self) { return record_metrics_of(self.timing->section()); },
          "The metrics of each record, in the order of `records`.")
      .def_property_readonly(
          "metrics",
          [](const EventTiming& self) {
            return metrics_info_of(self.timing->recorder().metrics());
          },
          "{'recorded': (names...), 'unavailable': {name: reason}}.")
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
          [](const EventTiming& self, std::optional<std::string> context) {
            return self.timing->report(context ? std::optional<std::string_view>(*context)
                                               : std::nullopt);
          },
          py::arg("context") = py::none(),
          "The report with the timing's threshold, as the seed renders it.");
}

/// `_Session`: a compile session, one section per PassContext.
void bind_session(py::module_& m) {
  py::class_<Session>(m, "_Session",
                      "A compile session: one section per PassContext, a JSON profile written "
                      "and an event log closed by close_outputs().")
      .def(py::init([](std::optional<std::string> profile, std::optional<std::string> events,
                       std::shared_ptr<Clock> clock, py::object metrics, double threshold_ms) {
             std::shared_ptr<const Clock> source =
                 clock ? std::shared_ptr<const Clock>(clock) : steady_clock();
             Settings settings{
                 .metrics = metrics_option(metrics, "metrics").value_or(MetricSet{}),
                 .profile = file_argument(std::move(profile), "profile"),
                 .events = file_argument(std::move(events), "events"),
                 // Where `passtiming run` counts the profiles written.
                 .status = file_argument(Environment::process().get(kStatusSetting.environment),
                                         std::string(kStatusSetting.environment))};
             return Session{
                 std::make_unique<PassTimingTool>(threshold_ms, source, std::move(settings))};
           }),
           py::arg("profile") = py::none(), py::arg("events") = py::none(), py::kw_only(),
           py::arg("clock") = nullptr, py::arg("metrics") = py::none(),
           py::arg("threshold_ms") = 0.0,
           "metrics: the metric list every section records (\"cpu,rss\"); None: none. "
           "threshold_ms: the threshold of every section's report.")
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
      .def_property_readonly(
          "profile_path",
          [](const Session& self) { return path_of(self.tool->settings().profile); })
      .def_property_readonly(
          "events_path", [](const Session& self) { return path_of(self.tool->settings().events); })
      .def_property_readonly(
          "metrics", [](const Session& self) { return metrics_info_of(self.tool->metrics()); },
          "{'recorded': (names...), 'unavailable': {name: reason}} of the session's profile.");
}

}  // namespace

void bind_native_timing(py::module_& m) {
  bind_event_timing(m);
  bind_session(m);
  m.def("check_threshold_ms", &check_threshold_ms, py::arg("value"), py::arg("setting"),
        "`value` when it is a finite non-negative threshold in milliseconds, else a "
        "ValueError naming `setting`: the one check every source makes.");
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
