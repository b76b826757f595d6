#include "passtiming/analysis/gate_measure.h"

#include <cstdint>

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

}  // namespace passtiming
