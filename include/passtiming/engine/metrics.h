#pragma once
/// \file
/// Figures per pass execution besides wall time, chosen by one setting
/// (`PASSTIMING_METRICS=cpu,rss,ir,instructions`, the CLI's `--metrics`, the
/// C++ and Python `metrics` option). None is recorded unless asked for; with
/// none asked for, no source reads anything but the clock.
///
/// - `cpu`: the thread's CPU time (user + system), inclusive and self.
/// - `rss`: the process's resident set size at the pass's start and end, and
///   its peak resident set size at the end.
/// - `ir`: the size of the pass's IR unit before and after the pass, whether
///   the pass changed it, and (LLVM) whether it preserved all analyses. The
///   source counts: LLVM instructions, MLIR operations, TVM IR nodes.
/// - `instructions`: retired user-space instructions of the thread, from a
///   hardware counter (`perf_event_open`), inclusive and self. A machine
///   without the counter marks the metric unavailable, with the reason, and
///   records no value for it: never zero.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace passtiming {

/// One metric. The order is the order of every output's columns.
enum class Metric : std::uint8_t { cpu = 0, rss = 1, ir = 2, instructions = 3 };
inline constexpr Metric kAllMetrics[] = {Metric::cpu, Metric::rss, Metric::ir,
                                         Metric::instructions};

/// The metric's word in settings, files and headings: "cpu", "rss", "ir",
/// "instructions".
std::string_view metric_name(Metric metric);

/// A set of metrics, as bits `1 << Metric`.
class MetricSet {
 public:
  constexpr MetricSet() = default;
  constexpr explicit MetricSet(std::uint8_t bits) : bits_(bits) {}
  constexpr bool contains(Metric m) const { return (bits_ >> static_cast<unsigned>(m)) & 1u; }
  constexpr void insert(Metric m) { bits_ |= std::uint8_t(1u << static_cast<unsigned>(m)); }
  constexpr void erase(Metric m) { bits_ &= std::uint8_t(~(1u << static_cast<unsigned>(m))); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr std::uint8_t bits() const { return bits_; }
  friend constexpr bool operator==(MetricSet, MetricSet) = default;

 private:
  std::uint8_t bits_ = 0;
};

/// The metrics of a comma-separated list ("cpu,rss"; spaces around words
/// are allowed; "" and "none" are the empty set; "all" is every metric).
/// Throws ConfigError naming `setting` (e.g. "PASSTIMING_METRICS") and the
/// unknown word, with the known ones.
MetricSet parse_metrics(std::string_view list, std::string_view setting);

/// The set as the list parse_metrics() reads, in Metric order: "cpu,ir".
std::string format_metrics(MetricSet set);

/// A value not measured for this record (an IR unit the source cannot
/// count, a metric not recorded).
inline constexpr std::int64_t kNotMeasured = -1;

/// Bits of `RecordMetrics::ir_flags`.
enum IrFlags : std::uint8_t {
  kIrChangeKnown = 1u << 0,     ///< the source knows whether the pass changed the IR
  kIrChanged = 1u << 1,         ///< ... and it did
  kIrPreservedKnown = 1u << 2,  ///< the source reports preserved analyses (LLVM)
  kIrPreservedAll = 1u << 3,    ///< ... and the pass preserved all of them
};

/// The figures of one completed pass execution beyond wall time. A section
/// that recorded metrics holds one per record, at the record's index. A
/// field whose metric was not recorded, or not measured for this pass, is
/// kNotMeasured.
struct RecordMetrics {
  std::int64_t cpu_ns = kNotMeasured;             ///< thread CPU time, after − before
  std::int64_t cpu_self_ns = kNotMeasured;        ///< minus the same thread's nested passes
  std::int64_t rss_start_bytes = kNotMeasured;    ///< resident set size at the before-callback
  std::int64_t rss_end_bytes = kNotMeasured;      ///< ... at the after-callback
  std::int64_t rss_peak_bytes = kNotMeasured;     ///< the process's peak, at the after-callback
  std::int64_t ir_before = kNotMeasured;          ///< size of the IR unit before the pass
  std::int64_t ir_after = kNotMeasured;           ///< ... after it
  std::int64_t instructions = kNotMeasured;       ///< retired user-space instructions
  std::int64_t instructions_self = kNotMeasured;  ///< minus the same thread's nested passes
  std::uint8_t ir_flags = 0;                      ///< IrFlags

  friend bool operator==(const RecordMetrics&, const RecordMetrics&) = default;
};

/// A metric asked for that the machine cannot give, and why (e.g.
/// instructions: "perf_event_open: No such file or directory").
struct UnavailableMetric {
  Metric metric;
  std::string reason;
  friend bool operator==(const UnavailableMetric&, const UnavailableMetric&) = default;
};

/// What a profile recorded besides wall time.
struct ProfileMetrics {
  MetricSet recorded;                          ///< metrics with values in the records
  std::vector<UnavailableMetric> unavailable;  ///< asked for, not recorded, with the reason
  bool empty() const { return recorded.empty() && unavailable.empty(); }
  friend bool operator==(const ProfileMetrics&, const ProfileMetrics&) = default;
};

}  // namespace passtiming
