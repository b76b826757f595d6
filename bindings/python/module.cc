/// \file
/// The `passtiming` Python module: `tilelang.utils.pass_timing`'s API, with
/// the C++ core's state machine, report and logger behind it.

#include <string>

#include "bindings.h"
#include "passtiming/version.h"

PYBIND11_MODULE(passtiming, m) {
  namespace py = pybind11;
  m.doc() =
      "Per-pass timing instrumentation for tilelang compilation pipelines, backed by the\n"
      "passtiming C++ core. Records inclusive and self wall-clock duration for each pass.";
  m.attr("__version__") = std::string(passtiming::kVersion);
  passtiming::python::bind_record(m);
  passtiming::python::bind_instrument(m);
  passtiming::python::install_log_forwarding(m);
  m.attr("__all__") =
      py::make_tuple("PassTimingRecord", "TileLangPassTimingInstrument", "build_pass_instruments",
                     "report_pass_timing_on_exit", "logger");
}
