/// \file
/// `passtiming._passtiming`, the extension inside the `passtiming` package:
/// `tilelang.utils.pass_timing`'s API with the C++ core's state machine,
/// report and logger behind it, and the state behind `passtiming.tvm` and
/// `passtiming.tilelang`. The package's __init__.py re-exports it.

#include <string>

#include "bindings.h"
#include "passtiming/engine/version.h"

PYBIND11_MODULE(_passtiming, m) {
  namespace py = pybind11;
  m.doc() =
      "Per-pass timing instrumentation for tilelang compilation pipelines, backed by the\n"
      "passtiming C++ core. Records inclusive and self wall-clock duration for each pass.";
  m.attr("__version__") = std::string(passtiming::kVersion);
  passtiming::python::bind_record(m);
  passtiming::python::bind_instrument(m);
  passtiming::python::bind_native_timing(m);
  passtiming::python::install_log_forwarding(m);
}
