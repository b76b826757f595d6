#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "bindings.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/host/pass_timing.h"

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

py::list record_metrics_of(const Section& section) {
  const std::vector<std::uint32_t> order = section.order_by_sequence();
  py::list out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    py::dict d;
    if (order[i] < section.metrics.size()) {
      const RecordMetrics& m = section.metrics[order[i]];
      auto put = [&d](const char* key, std::int64_t value) {
        if (value != kNotMeasured) d[key] = value;
      };
      put("cpu_ns", m.cpu_ns);
      put("cpu_self_ns", m.cpu_self_ns);
      put("rss_start_bytes", m.rss_start_bytes);
      put("rss_end_bytes", m.rss_end_bytes);
      put("rss_peak_bytes", m.rss_peak_bytes);
      put("ir_before", m.ir_before);
      put("ir_after", m.ir_after);
      if (m.ir_flags & kIrChangeKnown) d["ir_changed"] = bool(m.ir_flags & kIrChanged);
      if (m.ir_flags & kIrPreservedKnown)
        d["ir_preserved_all"] = bool(m.ir_flags & kIrPreservedAll);
      put("instructions", m.instructions);
      put("instructions_self", m.instructions_self);
    }
    out[i] = std::move(d);
  }
  return out;
}

py::dict metrics_info_of(const ProfileMetrics& metrics) {
  py::list recorded;
  for (Metric m : kAllMetrics) {
    if (metrics.recorded.contains(m)) recorded.append(py::str(std::string(metric_name(m))));
  }
  py::dict unavailable;
  for (const UnavailableMetric& u : metrics.unavailable) {
    unavailable[py::str(std::string(metric_name(u.metric)))] = u.reason;
  }
  py::dict out;
  out["recorded"] = py::tuple(recorded);
  out["unavailable"] = unavailable;
  return out;
}

std::optional<MetricSet> metrics_option(py::handle value, std::string_view setting) {
  if (value.is_none()) return std::nullopt;
  std::string list;
  if (py::isinstance<py::str>(value)) {
    list = value.cast<std::string>();
  } else {
    auto not_a_list = [&] {
      return py::value_error(py::str("{}: expected a metric list such as 'cpu,rss' or an "
                                     "iterable of metric names, got {!r}")
                                 .format(std::string(setting), value));
    };
    if (!py::isinstance<py::iterable>(value)) throw not_a_list();
    for (py::handle name : value) {
      if (!py::isinstance<py::str>(name)) throw not_a_list();
      if (!list.empty()) list += ',';
      const std::string text = name.cast<std::string>();
      // An empty name would read as a missing word: name it instead.
      list += text.empty() ? std::string("''") : text;
    }
  }
  // A ConfigError is a std::invalid_argument: Python sees a ValueError.
  return parse_metrics(list, setting);
}

void bind_record(py::module_& m) {
  m.def(
      "_metrics_option",
      [](py::handle value, const std::string& setting) -> std::optional<std::string> {
        const std::optional<MetricSet> set = metrics_option(value, setting);
        if (!set) return std::nullopt;
        return format_metrics(*set);
      },
      py::arg("value"), py::arg("setting"),
      "A `metrics` option (None, \"cpu,rss\" or an iterable of names) as the normalised list "
      "PASSTIMING_METRICS takes (\"\" for none), or None when not given. A bad name raises "
      "ValueError naming `setting` and the name.");
  m.def(
      "_set_record_type", [](py::object type) { record_type() = std::move(type); }, py::arg("type"),
      "Sets the class that `records` are made of (the package's dataclass).");
}

}  // namespace passtiming::python
