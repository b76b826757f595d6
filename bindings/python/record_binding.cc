#include <pybind11/pybind11.h>

#include "bindings.h"
#include "passtiming/pass_timing.h"

namespace passtiming::python {
namespace {

/// The package's `PassTimingRecord` dataclass, handed over by __init__.py.
py::object& record_type() {
  static py::object* type = new py::object();  // never destroyed: outlives the interpreter
  return *type;
}

}  // namespace

py::list records_of(const Section& section) {
  py::object& type = record_type();
  if (!type) throw py::type_error("passtiming: PassTimingRecord is not set up (import passtiming)");
  const std::vector<PassTimingRecord> records = pass_timing_records(section);
  py::list out(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const PassTimingRecord& r = records[i];
    out[i] = type(r.name, r.duration_s, r.depth, r.self_duration_s, r.sequence, r.kernel);
  }
  return out;
}

void bind_record(py::module_& m) {
  m.def(
      "_set_record_type", [](py::object type) { record_type() = std::move(type); }, py::arg("type"),
      "Sets the class that `records` are made of (the package's dataclass).");
}

}  // namespace passtiming::python
