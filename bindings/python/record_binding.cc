#include <cstdint>
#include <string>

#include "bindings.h"
#include "passtiming/pass_timing.h"

namespace passtiming::python {

void bind_record(py::module_& m) {
  py::class_<PassTimingRecord> record(m, "PassTimingRecord",
                                      "Single completed pass execution record.");
  record
      .def(py::init([](std::string name, double duration_s, int depth, double self_duration_s,
                       std::uint64_t sequence, std::string kernel) {
             return PassTimingRecord{std::move(name), duration_s, depth,
                                     self_duration_s, sequence,   std::move(kernel)};
           }),
           py::arg("name"), py::arg("duration_s"), py::arg("depth"),
           py::arg("self_duration_s") = 0.0, py::arg("sequence") = 0, py::arg("kernel") = "")
      .def_readwrite("name", &PassTimingRecord::name, "Pass name.")
      .def_readwrite("duration_s", &PassTimingRecord::duration_s, "Inclusive duration (s).")
      .def_readwrite("depth", &PassTimingRecord::depth, "Nesting depth, 0 = top level.")
      .def_readwrite("self_duration_s", &PassTimingRecord::self_duration_s,
                     "Inclusive duration minus the nested passes' (s).")
      .def_readwrite("sequence", &PassTimingRecord::sequence,
                     "Order in which the pass started within its PassContext.")
      .def_readwrite("kernel", &PassTimingRecord::kernel,
                     "Label of the module the pass ran on; empty when none.")
      // As a dataclass: equal to records of the same type with equal fields,
      // NotImplemented for anything else, and therefore unhashable.
      .def("__eq__",
           [](const PassTimingRecord& self, py::handle other) -> py::object {
             if (!py::isinstance<PassTimingRecord>(other)) {
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             }
             return py::bool_(self == other.cast<const PassTimingRecord&>());
           })
      .def("__repr__",
           [](const PassTimingRecord& r) {
             return py::str(
                        "PassTimingRecord(name={!r}, duration_s={!r}, depth={!r}, "
                        "self_duration_s={!r}, sequence={!r}, kernel={!r})")
                 .format(r.name, r.duration_s, r.depth, r.self_duration_s, r.sequence, r.kernel);
           })
      .def(py::pickle(
          [](const PassTimingRecord& r) {
            return py::make_tuple(r.name, r.duration_s, r.depth, r.self_duration_s, r.sequence,
                                  r.kernel);
          },
          [](const py::tuple& t) {
            if (t.size() != 6) throw std::runtime_error("invalid PassTimingRecord state");
            return PassTimingRecord{t[0].cast<std::string>(),   t[1].cast<double>(),
                                    t[2].cast<int>(),           t[3].cast<double>(),
                                    t[4].cast<std::uint64_t>(), t[5].cast<std::string>()};
          }));
  record.attr("__hash__") = py::none();
  record.attr("__match_args__") =
      py::make_tuple("name", "duration_s", "depth", "self_duration_s", "sequence", "kernel");
}

}  // namespace passtiming::python
