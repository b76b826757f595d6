#pragma once
/// \file
/// The pieces of the `passtiming` Python module, one source file each, wired
/// together in module.cc.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <string_view>

#include "module_labels.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/profile.h"

namespace passtiming::python {

namespace py = pybind11;

/// Binds `_set_record_type`, through which the package hands over its
/// `PassTimingRecord` dataclass.
void bind_record(py::module_& m);
/// The records of `section` as a list of the package's `PassTimingRecord`,
/// sorted by sequence.
py::list records_of(const Section& section);
/// The metrics of each record of `section`, in the order of records_of():
/// one dict per record with the profile's members (`cpu_ns`, `cpu_self_ns`,
/// `rss_start_bytes`, `rss_end_bytes`, `rss_peak_bytes`, `ir_before`,
/// `ir_after`, `ir_changed`, `ir_preserved_all`, `instructions`,
/// `instructions_self`), each present only when measured; `{}` for every
/// record when none are recorded.
py::list record_metrics_of(const Section& section);
/// What `timing` records besides wall time, as
/// `{"recorded": ("cpu", ...), "unavailable": {"instructions": reason}}`.
py::dict metrics_info_of(const ProfileMetrics& metrics);
/// The `metrics` option of a Python API: None (not given: nothing), a
/// comma-separated str ("cpu,rss") or an iterable of metric names, read as
/// parse_metrics() reads a list. A bad name raises ValueError naming
/// `setting` and the name; anything else that is not a str raises ValueError
/// naming `setting`.
std::optional<MetricSet> metrics_option(py::handle value, std::string_view setting);
/// Binds `_EventTiming` and `_Session`, the state behind `passtiming.tvm`
/// and `passtiming.tilelang`.
void bind_native_timing(py::module_& m);
/// Binds the instrument, its callback object, `build_pass_instruments`,
/// `report_pass_timing_on_exit` and `ManualClock`.
void bind_instrument(py::module_& m);

/// Routes the core's `tilelang.pass_timing` and `passtiming` loggers into
/// Python's `logging`, and back to stderr when the interpreter shuts down.
void install_log_forwarding(py::module_& m);

}  // namespace passtiming::python
