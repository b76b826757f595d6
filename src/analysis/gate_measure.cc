#include "passtiming/analysis/gate_measure.h"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace passtiming {

std::string describe_metrics(MetricSet set) {
  return set.empty() ? "none" : format_metrics(set);
}

std::unordered_map<std::string, double> measure_by_group(const Profile& profile, GroupBy by,
                                                         Measure measure) {
  std::unordered_map<std::string, double> sums;
  for (const Section& s : profile.sections) {
    // Self figures: a change (rss, ir) of a nested pass is its own, not
    // its parent's as well.
    const std::vector<std::optional<double>> self = section_self_measures(s, measure);
    for (std::size_t i = 0; i < s.records.size(); ++i) {
      const Record& r = s.records[i];
      double& sum = sums[group_key_text(s, r, by, {})];
      if (self[i]) sum += *self[i];
    }
  }
  return sums;
}

std::unordered_map<std::string, std::unordered_map<std::string, double>> measure_by_execution(
    const Profile& profile, GroupBy by, Measure measure,
    std::unordered_map<std::string, double>* starts) {
  std::unordered_map<std::string, std::unordered_map<std::string, double>> out;
  for (std::size_t section = 0; section < profile.sections.size(); ++section) {
    const Section& s = profile.sections[section];
    const std::vector<std::optional<double>> self = section_self_measures(s, measure);
    // Executions so far of each pass on each unit in this section.
    std::map<std::pair<NameId, NameId>, std::uint32_t> seen;
    // By position, not by context: a side that writes another output file
    // names its sections otherwise, and is still the same compile.
    const std::string prefix = std::to_string(section) + '\x1f';
    for (std::size_t i = 0; i < s.records.size(); ++i) {
      const Record& r = s.records[i];
      const std::uint32_t occurrence = seen[{r.name, r.kernel}]++;
      std::string name = prefix;
      name += s.name_of(r);
      name += '\x1f';
      name += s.kernel_of(r);
      name += '\x1f';
      name += std::to_string(occurrence);
      if (starts) starts->emplace(name, static_cast<double>(r.start_ns));
      out[group_key_text(s, r, by, {})][std::move(name)] += self[i] ? *self[i] : 0.0;
    }
  }
  return out;
}

}  // namespace passtiming
