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
#include "passtiming/engine/phase.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/report.h"
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

/// `phases` as Python dicts; times in seconds on the session's clock.
py::list phases_of(const std::vector<Phase>& phases) {
  py::list out;
  for (const Phase& phase : phases) {
    py::dict row;
    row["name"] = phase.name;
    row["detail"] = phase.detail;
    row["parent"] = phase.parent == kNoPhase ? py::object(py::none()) : py::int_(phase.parent);
    row["thread"] = phase.thread;
    row["start_s"] = static_cast<double>(phase.start_ns) * 1e-9;
    row["duration_s"] = static_cast<double>(phase.duration_ns) * 1e-9;
    row["cpu_s"] = phase.cpu_ns < 0 ? py::object(py::none())
                                    : py::float_(static_cast<double>(phase.cpu_ns) * 1e-9);
    row["failed"] = phase.failed();
    out.append(std::move(row));
  }
  return out;
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
          [](const EventTiming& self, std::optional<std::string> context,
             std::optional<double> threshold_ms) {
            const auto label = context ? std::optional<std::string_view>(*context) : std::nullopt;
            if (!threshold_ms) return self.timing->report(label);
            const Recorder& recorder = self.timing->recorder();
            return render_report(recorder.section(), *threshold_ms, label,
                                 report_style(recorder.settings().source));
          },
          py::arg("context") = py::none(), py::arg("threshold_ms") = py::none(),
          "The report as the seed renders it, with the timing's threshold, or "
          "`threshold_ms` when given (a compile's tool whose threshold is not its "
          "session's).");
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
      .def(
          "begin_phase",
          [](Session& self, std::string name, std::string detail) -> PhaseIndex {
            return self.tool->session().begin_phase(std::move(name), std::move(detail));
          },
          py::arg("name"), py::arg("detail") = "",
          "Opens a phase of the compile on the calling thread, now, inside the phase that "
          "thread has open (a root when none); sections made on this thread while it is "
          "open run in it. Returns its index, for end_phase().")
      .def(
          "end_phase",
          [](Session& self, PhaseIndex index, bool failed) {
            self.tool->session().end_phase(index, failed);
          },
          py::arg("index"), py::arg("failed") = false,
          "Closes the phase `index` now; `failed`: the compile's error ended it. Phases "
          "opened inside it and still open close with it, failed; an index that is not "
          "open is ignored.")
      .def(
          "current_phase",
          [](const Session& self) -> std::optional<PhaseIndex> {
            const PhaseIndex phase = self.tool->session().current_phase();
            if (phase == kNoPhase) return std::nullopt;
            return phase;
          },
          "The index of the phase the calling thread has open, or None.")
      .def_property_readonly(
          "phases", [](const Session& self) { return phases_of(self.tool->session().phases()); },
          "The compile's phases so far, a parent before its children, as dicts: name, "
          "detail, parent (an index, or None for a root), thread, start_s, duration_s, "
          "cpu_s (None when not measured), failed; duration_s is 0 while a phase is open.")
      .def(
          "phase_table",
          [](const Session& self) { return render_phase_table(self.tool->session().phases()); },
          "The phase table of the compile so far (\"\" with no phases): each phase's time "
          "and share of its root, \"untimed\" included.")
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
