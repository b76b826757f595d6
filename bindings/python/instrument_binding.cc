#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "passtiming/engine/clock.h"
#include "passtiming/engine/logging.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/host/pass_timing.h"
#include "passtiming/recorder/path_pattern.h"
#include "passtiming/recorder/settings.h"
#include "timing_callbacks.h"

namespace passtiming::python {
namespace {

/// `TileLangPassTimingInstrument`: the wrapper users keep for the report.
struct InstrumentWrapper {
  std::shared_ptr<TimingCallbacks> callbacks;
  py::object instrument;  ///< the Python object of `callbacks`, made once
};

/// Runs the report when a `with` block ends, however it ends.
struct ReportOnExit {
  py::object timing;
  py::object context;
};

std::shared_ptr<const Clock> clock_or_default(std::shared_ptr<Clock> clock) {
  if (clock) return clock;
  return steady_clock();
}

/// A report's context as Python's truthiness has it: None and falsy values
/// mean no context line.
std::optional<std::string> context_text(py::handle context) {
  if (context.is_none() || !py::bool_(py::reinterpret_borrow<py::object>(context))) {
    return std::nullopt;
  }
  py::object storage;
  return std::string(utf8_of(context, storage));
}

std::string report_text(const InstrumentWrapper& self, py::handle context) {
  std::optional<std::string> text = context_text(context);
  return self.callbacks->timing->report(text ? std::optional<std::string_view>(*text)
                                             : std::nullopt);
}

void bind_clocks(py::module_& m) {
  py::class_<Clock, std::shared_ptr<Clock>>(m, "Clock", "A monotonic time source.")
      .def("now_ns", &Clock::now_ns, "Reads the clock, in nanoseconds.");
  py::class_<ManualClock, Clock, std::shared_ptr<ManualClock>>(
      m, "ManualClock",
      "A clock for tests: each read returns the next scripted time, then the current time.")
      .def(py::init<Nanoseconds>(), py::arg("start") = 0)
      .def("set", &ManualClock::set, py::arg("ns"),
           "Sets the time read once the script is used up.")
      .def("advance", &ManualClock::advance, py::arg("delta_ns"))
      .def("script", &ManualClock::script, py::arg("times_ns"),
           "Queues the values of the next reads, in nanoseconds.")
      .def("script_seconds", &ManualClock::script_seconds, py::arg("times_s"),
           "Queues the values of the next reads, in seconds.")
      .def_property_readonly("reads", &ManualClock::reads, "Number of reads so far.");
}

/// `value` as a double when it is of a type upstream's `threshold_ms: float`
/// takes: a real number (float, int, any `numbers.Real`), bool excepted;
/// anything else (a string, a bool, None) raises TypeError naming `owner`.
double threshold_argument(py::handle value, const char* owner) {
  // float() would take "1" and True as well: both are mistakes, not thresholds.
  const bool real = !PyBool_Check(value.ptr()) &&
                    py::isinstance(value, py::module_::import("numbers").attr("Real"));
  if (!real) {
    throw py::type_error(py::str("{}: threshold_ms must be a float, not {} ({})")
                             .format(owner, py::type::of(value).attr("__name__"), py::repr(value))
                             .cast<std::string>());
  }
  return value.cast<double>();
}

void bind_timing_instrument(py::module_& m) {
  py::class_<InstrumentWrapper>(
      m, "TileLangPassTimingInstrument",
      "Per-pass timing instrument for tilelang compilation pipelines.\n\n"
      "threshold_ms: only show passes whose inclusive duration meets this threshold (ms);\n"
      "0.0 shows all passes. clock: a Clock to read instead of the steady clock (tests).")
      .def(py::init([](py::object threshold, std::shared_ptr<Clock> clock, py::object metrics,
                       py::object section) {
             const double threshold_ms =
                 threshold_argument(threshold, "TileLangPassTimingInstrument");
             std::shared_ptr<TimingCallbacks> callbacks;
             if (!section.is_none()) {
               // A section of a compile session (passtiming.tilelang's tool):
               // its files are the session's.
               callbacks = std::make_shared<TimingCallbacks>(section.cast<TimingCallbacks&>());
             } else {
               const std::optional<MetricSet> asked =
                   metrics_option(metrics, "TileLangPassTimingInstrument: metrics");
               // PASSTIMING_PROFILE, PASSTIMING_EVENTS and PASSTIMING_METRICS, as every
               // source honours them; the metrics option replaces the last.
               Settings settings = read_file_settings({.compile = next_compile_number()},
                                                      {.threshold_ms = threshold_ms});
               if (asked) settings.metrics = *asked;
               callbacks =
                   std::make_shared<TimingCallbacks>(TileLangPassTimingInstrument::with_files(
                       std::move(settings), clock_or_default(std::move(clock))));
             }
             py::object instrument = make_timing_pass_instrument(callbacks);
             return InstrumentWrapper{std::move(callbacks), std::move(instrument)};
           }),
           py::arg("threshold_ms") = 0.0, py::kw_only(), py::arg("clock") = nullptr,
           py::arg("metrics") = py::none(), py::arg("_timing") = py::none())
      .def_property_readonly(
          "_sink_address",
          [](const InstrumentWrapper& self) {
            return reinterpret_cast<std::uintptr_t>(&self.callbacks->events);
          },
          "Address of the std::shared_ptr<PassEventSink> a native instrument (the TVM "
          "adapter's) copies: its events land in these records.")
      .def_property_readonly(
          "instrument", [](const InstrumentWrapper& self) { return self.instrument; },
          "The pass instrument to add to a PassContext.")
      .def_property_readonly(
          "records",
          [](const InstrumentWrapper& self) { return records_of(self.callbacks->section()); },
          "The completed records of the last PassContext, sorted by sequence.")
      .def_property_readonly(
          "total_duration_s",
          [](const InstrumentWrapper& self) { return self.callbacks->timing->total_duration_s(); },
          "Sum of the top-level passes' inclusive durations (s).")
      .def_property_readonly(
          "threshold_ms",
          [](const InstrumentWrapper& self) { return self.callbacks->timing->threshold_ms(); })
      .def_property_readonly(
          "record_metrics",
          [](const InstrumentWrapper& self) {
            return record_metrics_of(self.callbacks->section());
          },
          "The metrics of each record, in the order of `records` (dicts of the profile's "
          "members; the module's IR size is not measured by this instrument).")
      .def_property_readonly(
          "metrics",
          [](const InstrumentWrapper& self) {
            return metrics_info_of(self.callbacks->timing->recorder().metrics());
          },
          "{'recorded': (names...), 'unavailable': {name: reason}}.")
      .def("report", &report_text, py::arg("context") = py::none(),
           "Generate a formatted timing report string.")
      .def(
          "print_report",
          [](const InstrumentWrapper& self, py::handle context) {
            get_logger(kTimingLoggerName).info("\n" + report_text(self, context));
          },
          py::arg("context") = py::none(),
          "Log the timing report at INFO on the logger 'tilelang.pass_timing'.")
      .def("__repr__", [](const InstrumentWrapper& self) {
        return py::str("<TileLangPassTimingInstrument threshold_ms={!r} records={}>")
            .format(self.callbacks->timing->threshold_ms(),
                    self.callbacks->section().records.size());
      });
}

void bind_report_on_exit(py::module_& m) {
  py::class_<ReportOnExit>(m, "PassTimingReportOnExit",
                           "Context manager returned by report_pass_timing_on_exit.")
      .def("__enter__", [](const ReportOnExit&) { return py::none(); })
      .def(
          "__exit__",
          [](const ReportOnExit& self, py::handle, py::handle, py::handle) {
            // As the seed's `finally:` does: the report runs however the
            // block ends, and an error raised by the report itself
            // propagates (Python chains the block's exception to it as its
            // __context__).
            if (!self.timing.is_none()) {
              self.timing.attr("print_report")(py::arg("context") = self.context);
            }
            return false;  // never swallow the block's exception
          },
          py::arg("exc_type"), py::arg("exc_value"), py::arg("traceback"));

  m.def(
      "report_pass_timing_on_exit",
      [](py::object timing_instrument, py::object context) {
        return ReportOnExit{std::move(timing_instrument), std::move(context)};
      },
      py::arg("timing_instrument"), py::arg("context"),
      "Emit a timing report after PassContext exits, including on failure.");
}

}  // namespace

void bind_instrument(py::module_& m) {
  bind_clocks(m);
  bind_timing_callbacks(m);
  bind_timing_instrument(m);
  bind_report_on_exit(m);

  m.def(
      "build_pass_instruments",
      [](py::handle base_instruments, py::object threshold_ms, py::object clock) {
        // Always a new list: the caller's sequence is never modified.
        PyObject* copy = PySequence_List(base_instruments.ptr());
        if (!copy) throw py::error_already_set();
        auto instruments = py::reinterpret_steal<py::list>(copy);
        if (threshold_ms.is_none()) return py::make_tuple(instruments, py::none());
        py::object timing =
            py::type::of<InstrumentWrapper>()(threshold_ms, py::arg("clock") = clock);
        instruments.insert(0, timing.attr("instrument"));
        return py::make_tuple(instruments, timing);
      },
      py::arg("base_instruments"), py::arg("threshold_ms"), py::kw_only(),
      py::arg("clock") = py::none(),
      "Build instruments with timing first so later after-pass callbacks are excluded.\n"
      "Returns (instruments, timing), timing being None when threshold_ms is None.");
}

}  // namespace passtiming::python
