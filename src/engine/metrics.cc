#include "passtiming/engine/metrics.h"

#include <fmt/format.h>

#include "passtiming/engine/errors.h"

namespace passtiming {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view metric_name(Metric metric) {
  switch (metric) {
    case Metric::cpu: return "cpu";
    case Metric::rss: return "rss";
    case Metric::ir: return "ir";
    case Metric::instructions: return "instructions";
  }
  return "?";
}

MetricSet parse_metrics(std::string_view list, std::string_view setting) {
  MetricSet set;
  const std::string_view whole = trim(list);
  if (whole.empty() || whole == "none") return set;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view word = trim(list.substr(begin, comma - begin));
    bool known = false;
    if (word == "all") {
      for (Metric m : kAllMetrics) set.insert(m);
      known = true;
    }
    for (Metric m : kAllMetrics) {
      if (word == metric_name(m)) {
        set.insert(m);
        known = true;
      }
    }
    if (!known) {
      throw ConfigError(fmt::format(
          "{}: unknown metric '{}' (known: cpu, rss, ir, instructions, all, none)", setting, word));
    }
    begin = comma + 1;
  }
  return set;
}

std::string format_metrics(MetricSet set) {
  std::string out;
  for (Metric m : kAllMetrics) {
    if (!set.contains(m)) continue;
    if (!out.empty()) out += ',';
    out += metric_name(m);
  }
  return out;
}

}  // namespace passtiming
