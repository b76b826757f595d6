#pragma once
/// \file
/// The aggregate view over any number of profiles: per pass name, kernel or
/// context, how often it ran and how much time it took. `passtiming summary`
/// prints it and `passtiming diff` compares two of them.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "passtiming/analysis/measure.h"
#include "passtiming/engine/clock.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

/// The median of `values` (reordered): the middle value, or the mean of the
/// two middle values; 0 when empty.
double median_of(std::vector<double>& values);

/// One thing a record can be grouped by: its pass name, its kernel (IR
/// unit) label, its section's context, or the profile file it was read from
/// (for a merged section, the file its origin names).
enum class GroupKey : std::uint8_t { pass, kernel, context, file };

/// What the rows of an aggregate are keyed by: one GroupKey, or several in
/// the order given (`pass,kernel`: each pass on each kernel).
class GroupBy {
 public:
  static const GroupBy pass, kernel, context, file;

  constexpr GroupBy(GroupKey key) : keys_{key}, size_(1) {}  // NOLINT: a key is a grouping
  /// Several keys, each once; throws std::invalid_argument otherwise.
  explicit GroupBy(std::span<const GroupKey> keys);

  std::span<const GroupKey> keys() const { return {keys_.data(), size_}; }
  bool has(GroupKey key) const;
  friend bool operator==(const GroupBy&, const GroupBy&) = default;

 private:
  std::array<GroupKey, 4> keys_{};
  std::uint8_t size_ = 0;
};
inline constexpr GroupBy GroupBy::pass{GroupKey::pass};
inline constexpr GroupBy GroupBy::kernel{GroupKey::kernel};
inline constexpr GroupBy GroupBy::context{GroupKey::context};
inline constexpr GroupBy GroupBy::file{GroupKey::file};

/// "pass", "kernel", "context", "file", or several of them joined by commas
/// ("pass,kernel"), each once; nullopt for anything else.
std::optional<GroupBy> parse_group_by(std::string_view text);
/// The text parse_group_by() reads for `by` ("pass", "pass,kernel"), as the
/// command line, the reports and the JSON output name a group.
std::string group_by_name(GroupBy by);
/// The word of one key: "pass", "kernel", "context" or "file".
std::string_view group_key_name(GroupKey key);

/// The value of `key` for record `r` of section `s`, read from the profile
/// file `file` ("" when unknown).
std::string_view group_key_value(const Section& s, const Record& r, GroupKey key,
                                 std::string_view file);
/// The key of `r`'s group as text: its one value, or the values of the keys
/// of `by` joined by " | " (AggregateRow::key).
std::string group_key_text(const Section& s, const Record& r, GroupBy by, std::string_view file);

/// One group's figures, in the aggregator's measure (wall time unless asked
/// otherwise; the `_ns` fields then hold that measure's values, in its
/// unit). The statistics are of self time per execution, the
/// time a group itself costs without double counting nested passes; total
/// inclusive counts each execution that is not nested inside another
/// execution of the same group, so recursion is not counted twice. For a
/// change measure (rss, ir: is_change_measure()) self is what a pass changed
/// outside its nested passes (section_self_measures()), and every figure
/// may be negative; self may then exceed inclusive, where nested passes
/// shrank what the pass grew.
struct AggregateRow {
  /// The group's value of each key of the GroupBy, in its order.
  std::vector<std::string> keys;
  /// The one key's value; with several keys, their values joined by " | ".
  std::string key;
  std::uint64_t executions = 0;
  Nanoseconds total_inclusive_ns = 0;
  Nanoseconds total_self_ns = 0;
  double mean_self_ns = 0;      ///< total_self_ns / executions
  Nanoseconds p50_self_ns = 0;  ///< nearest-rank median
  Nanoseconds p95_self_ns = 0;  ///< nearest-rank 95th percentile
  Nanoseconds max_self_ns = 0;
  /// total_self_ns / the sum of every group's absolute total self: for a
  /// time or a count, the share of the total self, 0..1; for a change
  /// measure, the share of all the groups' changes, signed, −1..1.
  double self_share = 0;
};

/// Accumulates profiles one at a time (so thousands of them need not be in
/// memory together) and produces the rows.
///
///     passtiming::Aggregator agg(passtiming::GroupBy::pass);
///     for (auto& path : paths) agg.add(passtiming::load_profile(path));
///     auto rows = agg.rows();   // largest total self first
class Aggregator {
 public:
  /// `measure`: the figure aggregated (measure.h); a record whose metric was
  /// not measured is left out. Profiles must have recorded the measure
  /// (profile_has_measure()).
  explicit Aggregator(GroupBy by, Measure measure = Measure::wall) : by_(by), measure_(measure) {}

  /// Adds `profile`, read from the file `file` (for GroupKey::file).
  void add(const Profile& profile, std::string_view file = {});

  /// The rows, largest absolute total self first (growth before shrinking
  /// of the same size), ties by key.
  std::vector<AggregateRow> rows() const;
  /// Sum of every record's self figure: for a change measure, the net change
  /// of the outermost measured passes.
  Nanoseconds total_self_ns() const { return total_self_ns_; }
  std::uint64_t profiles() const { return profiles_; }
  GroupBy group_by() const { return by_; }
  Measure measure() const { return measure_; }

 private:
  struct Group {
    std::vector<std::string> keys;
    std::uint64_t executions = 0;
    Nanoseconds total_inclusive_ns = 0;
    Nanoseconds total_self_ns = 0;
    std::vector<Nanoseconds> self_samples;
  };
  /// The group of record `r` of `s`, made on first sight.
  std::size_t group_index(const Section& s, const Record& r, std::string_view file);

  GroupBy by_;
  Measure measure_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::pair<std::string, Group>> groups_;
  Nanoseconds total_self_ns_ = 0;
  std::uint64_t profiles_ = 0;
};

/// Per group, the total self time and execution count of one profile: what
/// diff takes the median of when a side has several profiles.
struct GroupTotals {
  Nanoseconds self_ns = 0;
  std::uint64_t executions = 0;
};
/// With several keys, a group's key is their values joined by " | ".
std::unordered_map<std::string, GroupTotals> totals_by_group(const Profile& profile, GroupBy by);

/// One line of a diff: a group's median self time and executions per side.
struct DiffRow {
  std::string key;
  bool in_base = false;
  bool in_new = false;
  double base_self_ns = 0;  ///< median over the base profiles (0 when absent)
  double new_self_ns = 0;
  double base_executions = 0;
  double new_executions = 0;
  double delta_ns() const { return new_self_ns - base_self_ns; }
  /// Relative change of self time in percent; nullopt when the base is 0.
  std::optional<double> delta_percent() const;
};

/// Compares two sides of per-profile totals by their medians. Rows are sorted
/// by the absolute delta of self time, largest first, ties by key. A group
/// missing from a profile counts as 0 in that profile.
std::vector<DiffRow> diff_profiles(
    const std::vector<std::unordered_map<std::string, GroupTotals>>& base,
    const std::vector<std::unordered_map<std::string, GroupTotals>>& next);

/// Whether `row` is a regression: it exists on both sides, its new median
/// self time is at least `min_ms`, and it grew by more than `fail_above_pct`.
bool is_regression(const DiffRow& row, double fail_above_pct, double min_ms);

}  // namespace passtiming
