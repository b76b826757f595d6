#include "passtiming/analysis/aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace passtiming {
namespace {

/// Nearest-rank percentile of `samples` (reordered): the smallest value with
/// at least `percent` % of the samples at or below it. Exact, so tests can
/// assert it to the nanosecond.
Nanoseconds percentile(std::vector<Nanoseconds>& samples, unsigned percent) {
  if (samples.empty()) return 0;
  const std::size_t n = samples.size();
  const std::size_t rank = std::max<std::size_t>(1, (percent * n + 99) / 100);
  auto nth = samples.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

/// The id a record is grouped by within its section: the NameIds of its
/// pass and kernel where the grouping uses them (a section's context and
/// file are the same for all its records).
std::uint64_t group_id(const Record& r, const GroupBy& by) {
  const bool pass = by.has(GroupKey::pass), kernel = by.has(GroupKey::kernel);
  if (pass && kernel) return std::uint64_t{r.name} << 32 | r.kernel;
  return pass ? r.name : kernel ? r.kernel : 0;
}

/// Whether group_id() is below the section's name count, so that a vector
/// indexed by it can cache the groups: all but pass and kernel together.
bool small_group_ids(const GroupBy& by) {
  return !(by.has(GroupKey::pass) && by.has(GroupKey::kernel));
}

/// The values of each key of `by` for `r`.
std::vector<std::string> key_values(const Section& s, const Record& r, const GroupBy& by,
                                    std::string_view file) {
  std::vector<std::string> values;
  values.reserve(by.keys().size());
  for (GroupKey key : by.keys()) values.emplace_back(group_key_value(s, r, key, file));
  return values;
}

/// The text of a group's key: its one value, or its values joined by " | ".
std::string joined(const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) text += " | ";
    text += values[i];
  }
  return text;
}

/// An unambiguous map key for several values (any byte may be in a name):
/// each value preceded by its length.
std::string encoded(const std::vector<std::string>& values) {
  if (values.size() == 1) return values[0];
  std::string key;
  for (const std::string& v : values) {
    key += std::to_string(v.size());
    key += ':';
    key += v;
  }
  return key;
}

/// For each record of `s`, whether an enclosing record (following parent
/// sequences) belongs to the same group: such a record's inclusive time is
/// already inside its ancestor's.
std::vector<bool> nested_in_same_group(const Section& s, GroupBy by) {
  const std::size_t n = s.records.size();
  std::vector<bool> nested(n, false);
  std::uint32_t max_sequence = 0;
  for (const Record& r : s.records) max_sequence = std::max(max_sequence, r.sequence);
  constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> by_sequence(n ? std::size_t{max_sequence} + 1 : 0, kAbsent);
  for (std::uint32_t i = 0; i < n; ++i) by_sequence[s.records[i].sequence] = i;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t id = group_id(s.records[i], by);
    std::uint32_t parent = s.records[i].parent;
    // Bounded walk: a hand-written file may contain a parent cycle.
    for (std::size_t steps = 0; parent != kNoParent && steps < n; ++steps) {
      if (parent > max_sequence || by_sequence[parent] == kAbsent) break;
      const Record& p = s.records[by_sequence[parent]];
      if (group_id(p, by) == id) {
        nested[i] = true;
        break;
      }
      parent = p.parent;
    }
  }
  return nested;
}

}  // namespace

double median_of(std::vector<double>& values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

GroupBy::GroupBy(std::span<const GroupKey> keys) {
  if (keys.empty() || keys.size() > keys_.size()) {
    throw std::invalid_argument("a grouping takes one to four keys");
  }
  for (GroupKey key : keys) {
    if (has(key)) throw std::invalid_argument("a grouping takes each key once");
    keys_[size_++] = key;
  }
}

bool GroupBy::has(GroupKey key) const {
  return std::find(keys().begin(), keys().end(), key) != keys().end();
}

std::string_view group_key_name(GroupKey key) {
  switch (key) {
    case GroupKey::pass: return "pass";
    case GroupKey::kernel: return "kernel";
    case GroupKey::context: return "context";
    case GroupKey::file: return "file";
  }
  return "pass";
}

std::optional<GroupBy> parse_group_by(std::string_view text) {
  std::vector<GroupKey> keys;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    std::optional<GroupKey> key;
    for (GroupKey k : {GroupKey::pass, GroupKey::kernel, GroupKey::context, GroupKey::file}) {
      if (word == group_key_name(k)) key = k;
    }
    if (!key || std::find(keys.begin(), keys.end(), *key) != keys.end()) return std::nullopt;
    keys.push_back(*key);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return GroupBy(keys);
}

std::string group_by_name(GroupBy by) {
  std::string name;
  for (GroupKey key : by.keys()) {
    if (!name.empty()) name += ',';
    name += group_key_name(key);
  }
  return name;
}

std::string_view group_key_value(const Section& s, const Record& r, GroupKey key,
                                 std::string_view file) {
  switch (key) {
    case GroupKey::pass: return s.name_of(r);
    case GroupKey::kernel: return s.kernel_of(r);
    case GroupKey::context: return s.context;
    case GroupKey::file: return s.origin.file.empty() ? file : std::string_view(s.origin.file);
  }
  return {};
}

std::string group_key_text(const Section& s, const Record& r, GroupBy by, std::string_view file) {
  return joined(key_values(s, r, by, file));
}

std::size_t Aggregator::group_index(const Section& s, const Record& r, std::string_view file) {
  std::vector<std::string> values = key_values(s, r, by_, file);
  auto [it, added] = index_.try_emplace(encoded(values), groups_.size());
  if (added) {
    groups_.emplace_back(it->first, Group{});
    groups_.back().second.keys = std::move(values);
  }
  return it->second;
}

void Aggregator::add(const Profile& profile, std::string_view file) {
  ++profiles_;
  constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> cache;
  std::unordered_map<std::uint64_t, std::size_t> pair_cache;
  const bool small_ids = small_group_ids(by_);
  for (const Section& s : profile.sections) {
    if (s.records.empty()) continue;
    const std::vector<bool> nested = nested_in_same_group(s, by_);
    // Names are interned per section, so a small table maps a section's ids
    // to groups without hashing a string per record; a pass on a kernel
    // takes a map of id pairs.
    // Indices, not pointers: adding a group may move the others.
    cache.assign(small_ids ? std::max<std::size_t>(s.names.size(), 1) : 0, kUnset);
    pair_cache.clear();
    const std::vector<std::optional<double>> selfs = measure_ == Measure::wall
                                                         ? std::vector<std::optional<double>>()
                                                         : section_self_measures(s, measure_);
    for (std::size_t i = 0; i < s.records.size(); ++i) {
      const Record& r = s.records[i];
      Nanoseconds self = r.self_ns;
      Nanoseconds inclusive = r.inclusive_ns;
      if (measure_ != Measure::wall) {
        const std::optional<double>& measured = selfs[i];
        if (!measured) continue;
        self = static_cast<Nanoseconds>(*measured);
        inclusive = static_cast<Nanoseconds>(*record_measure_inclusive(s, i, measure_));
      }
      const std::uint64_t id = group_id(r, by_);
      std::size_t& slot = small_ids ? cache[id] : pair_cache.try_emplace(id, kUnset).first->second;
      if (slot == kUnset) slot = group_index(s, r, file);
      Group& group = groups_[slot].second;
      ++group.executions;
      if (!nested[i]) group.total_inclusive_ns += inclusive;
      group.total_self_ns += self;
      group.self_samples.push_back(self);
      total_self_ns_ += self;
    }
  }
}

std::vector<AggregateRow> Aggregator::rows() const {
  std::vector<AggregateRow> rows;
  rows.reserve(groups_.size());
  // The shares' denominator: the total self of every group when no figure
  // is negative; for a change measure, the sum of the groups' absolute
  // totals, so that growth and shrinking each count as what they changed.
  double total_change = 0;
  for (const auto& entry : groups_) {
    total_change += std::abs(static_cast<double>(entry.second.total_self_ns));
  }
  std::vector<Nanoseconds> samples;
  for (const auto& [key, group] : groups_) {
    AggregateRow row;
    row.keys = group.keys;
    row.key = joined(group.keys);
    row.executions = group.executions;
    row.total_inclusive_ns = group.total_inclusive_ns;
    row.total_self_ns = group.total_self_ns;
    row.mean_self_ns =
        group.executions ? static_cast<double>(group.total_self_ns) / group.executions : 0;
    samples = group.self_samples;
    row.max_self_ns = samples.empty() ? 0 : *std::max_element(samples.begin(), samples.end());
    row.p95_self_ns = percentile(samples, 95);
    row.p50_self_ns = percentile(samples, 50);
    row.self_share = total_change > 0 ? static_cast<double>(group.total_self_ns) / total_change : 0;
    rows.push_back(std::move(row));
  }
  // The largest change first, growth or shrinking: for a time or a count,
  // simply the largest total self.
  std::sort(rows.begin(), rows.end(), [](const AggregateRow& a, const AggregateRow& b) {
    const Nanoseconds size_a = a.total_self_ns < 0 ? -a.total_self_ns : a.total_self_ns;
    const Nanoseconds size_b = b.total_self_ns < 0 ? -b.total_self_ns : b.total_self_ns;
    if (size_a != size_b) return size_a > size_b;
    if (a.total_self_ns != b.total_self_ns) return a.total_self_ns > b.total_self_ns;
    return a.key < b.key;
  });
  return rows;
}

std::unordered_map<std::string, GroupTotals> totals_by_group(const Profile& profile, GroupBy by) {
  std::unordered_map<std::string, GroupTotals> totals;
  for (const Section& s : profile.sections) {
    for (const Record& r : s.records) {
      GroupTotals& t = totals[group_key_text(s, r, by, {})];
      t.self_ns += r.self_ns;
      ++t.executions;
    }
  }
  return totals;
}

std::optional<double> DiffRow::delta_percent() const {
  if (base_self_ns <= 0) return std::nullopt;
  return (new_self_ns - base_self_ns) / base_self_ns * 100.0;
}

std::vector<DiffRow> diff_profiles(
    const std::vector<std::unordered_map<std::string, GroupTotals>>& base,
    const std::vector<std::unordered_map<std::string, GroupTotals>>& next) {
  std::set<std::string> keys;
  for (const auto* side : {&base, &next}) {
    for (const auto& totals : *side) {
      for (const auto& entry : totals) keys.insert(entry.first);
    }
  }
  auto side_medians = [](const std::vector<std::unordered_map<std::string, GroupTotals>>& side,
                         const std::string& key, bool& present, double& self, double& count) {
    std::vector<double> selfs, counts;
    selfs.reserve(side.size());
    counts.reserve(side.size());
    for (const auto& totals : side) {
      auto it = totals.find(key);
      const bool found = it != totals.end();
      present = present || found;
      selfs.push_back(found ? static_cast<double>(it->second.self_ns) : 0.0);
      counts.push_back(found ? static_cast<double>(it->second.executions) : 0.0);
    }
    self = median_of(selfs);
    count = median_of(counts);
  };
  std::vector<DiffRow> rows;
  rows.reserve(keys.size());
  for (const std::string& key : keys) {
    DiffRow row;
    row.key = key;
    side_medians(base, key, row.in_base, row.base_self_ns, row.base_executions);
    side_medians(next, key, row.in_new, row.new_self_ns, row.new_executions);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& a, const DiffRow& b) {
    return std::abs(a.delta_ns()) > std::abs(b.delta_ns());
  });
  return rows;
}

bool is_regression(const DiffRow& row, double fail_above_pct, double min_ms) {
  if (!row.in_base || !row.in_new) return false;
  if (row.new_self_ns < min_ms * 1e6) return false;
  const std::optional<double> pct = row.delta_percent();
  return pct && *pct > fail_above_pct;
}

}  // namespace passtiming
