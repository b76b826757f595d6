#include "metric_fields.h"

#include "json_text.h"

namespace passtiming::detail {

void finish_section_metrics(Section& section, MetricSet& recorded) {
  if (section.metrics.empty()) return;
  section.metrics.resize(section.records.size());
  for (const RecordMetrics& m : section.metrics) {
    for (const MetricNumberField& f : kMetricNumberFields) {
      if (m.*f.member != kNotMeasured) recorded.insert(f.metric);
    }
    if (m.ir_flags != 0) recorded.insert(Metric::ir);
  }
}

bool metric_from_name(std::string_view name, Metric& out) {
  for (Metric m : kAllMetrics) {
    if (metric_name(m) == name) {
      out = m;
      return true;
    }
  }
  return false;
}

void append_record_metrics(std::string& out, const RecordMetrics& metrics) {
  char members[kMetricMembersBytes];
  char* end = put_metric_members(members, metrics, kMetricNumberFields, metrics.ir_flags);
  out.append(members, end);
}

void append_metrics_lists(std::string& out, const ProfileMetrics& metrics,
                          void (*append_string)(std::string&, std::string_view)) {
  out += "\"recorded\":[";
  const char* comma = "";
  for (Metric m : kAllMetrics) {
    if (!metrics.recorded.contains(m)) continue;
    out += comma;
    append_string(out, metric_name(m));
    comma = ",";
  }
  out += "],\"unavailable\":{";
  comma = "";
  for (const UnavailableMetric& u : metrics.unavailable) {
    out += comma;
    append_string(out, metric_name(u.metric));
    out += ':';
    append_string(out, u.reason);
    comma = ",";
  }
  out += '}';
}

void append_metrics_member(std::string& out, const ProfileMetrics& metrics) {
  out += "\"metrics\":{";
  append_metrics_lists(out, metrics, &append_json_string);
  out += '}';
}

bool read_metrics_member(simdjson::dom::element value, ProfileMetrics& metrics) {
  simdjson::dom::object object;
  if (value.get_object().get(object)) return false;
  for (auto [key, v] : object) {
    if (key == "recorded") {
      simdjson::dom::array names;
      if (v.get_array().get(names)) return false;
      for (simdjson::dom::element element : names) {
        std::string_view name;
        Metric m;
        if (element.get_string().get(name) || !metric_from_name(name, m)) return false;
        metrics.recorded.insert(m);
      }
    } else if (key == "unavailable") {
      simdjson::dom::object reasons;
      if (v.get_object().get(reasons)) return false;
      for (auto [name, reason] : reasons) {
        std::string_view text;
        Metric m;
        if (!metric_from_name(name, m) || reason.get_string().get(text)) return false;
        metrics.unavailable.push_back({m, std::string(text)});
      }
    }
  }
  return true;
}

}  // namespace passtiming::detail
