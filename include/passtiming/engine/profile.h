#pragma once
/// \file
/// The one data model downstream of the state machine: a Profile is sections
/// (one per PassContext) of records, plus metadata. Reports, files, summaries
/// and diffs take a Profile and nothing else.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/engine/names.h"
#include "passtiming/engine/phase.h"

namespace passtiming {

/// Sentinel for "no parent" (a top-level record).
inline constexpr std::uint32_t kNoParent = std::numeric_limits<std::uint32_t>::max();

/// Bits of `Record::flags`.
enum RecordFlags : std::uint16_t {
  kRecordFailed = 1u << 0,  ///< the pass reported failure (MLIR's runAfterPassFailed)
};

/// One completed pass execution, packed to 48 bytes so that a compile with a
/// million pass executions stays small. Strings live in the section's
/// NameTable.
struct Record {
  NameId name = 0;                   ///< pass name
  NameId kernel = 0;                 ///< IR-unit label; 0 is ""
  std::uint32_t sequence = 0;        ///< order of the before-callback within the section
  std::uint32_t parent = kNoParent;  ///< sequence of the enclosing pass, or kNoParent
  std::uint32_t thread = 0;          ///< thread index within the section
  std::uint16_t depth = 0;           ///< nesting depth, 0 = top level (saturates at 65535)
  std::uint16_t flags = 0;           ///< RecordFlags
  Nanoseconds start_ns = 0;          ///< clock value at the before-callback
  Nanoseconds inclusive_ns = 0;      ///< after − before
  Nanoseconds self_ns = 0;           ///< inclusive minus the children's inclusive, never negative
};
static_assert(sizeof(Record) == 48, "a record must stay at 48 bytes");

/// Seconds from nanoseconds, as one correctly rounded division: the value
/// every renderer prints, so they all agree to the last digit.
inline double to_seconds(Nanoseconds ns) {
  return static_cast<double>(ns) / 1e9;
}

/// Where and when a profile was made.
struct ProfileMetadata {
  std::string tool;        ///< e.g. "passtiming 0.1.0"
  std::string command;     ///< the command line of the profiled process
  std::string host;        ///< host name
  std::string start_time;  ///< ISO 8601, UTC
  std::int64_t pid = 0;
  /// Which compiler recorded it: "llvm", "mlir", or "" for the TileLang and
  /// TVM sources, whose profiles have always been unmarked. It picks the
  /// report's style (report.h).
  std::string source;

  friend bool operator==(const ProfileMetadata&, const ProfileMetadata&) = default;
};

/// Which recorded profile a section comes from, when that is not the profile
/// holding it: `passtiming merge` gives each section the file and metadata
/// of its input, so a merged profile still says which compile, process and
/// host recorded each section. Empty in a profile as recorded.
struct SectionOrigin {
  std::string file;          ///< the profile file the section was read from
  ProfileMetadata metadata;  ///< that profile's metadata

  bool empty() const { return file.empty() && metadata == ProfileMetadata{}; }
};

/// The records of one PassContext.
struct Section {
  std::string context;                 ///< the context label ("" when none was given)
  std::uint64_t skipped = 0;           ///< passes vetoed by should_run
  NameTable names;                     ///< names and kernel labels of `records`
  std::vector<std::uint64_t> threads;  ///< the source's key of each Record::thread index
  std::vector<Record> records;         ///< in completion order (a child before its parent)
  /// Empty when the profile recorded no metric; otherwise one per record, at
  /// the record's index.
  std::vector<RecordMetrics> metrics;
  /// Empty unless the section was merged from another profile.
  SectionOrigin origin;
  /// The phase (Profile::phases) open on the section's thread when its
  /// context began: its passes ran in that phase or in one of its
  /// descendants (innermost_phase()). kNoPhase when none was open.
  PhaseIndex phase = kNoPhase;

  std::string_view name_of(const Record& r) const { return names[r.name]; }
  std::string_view kernel_of(const Record& r) const { return names[r.kernel]; }

  /// Indices into `records`, ordered by sequence (the order passes started).
  std::vector<std::uint32_t> order_by_sequence() const;
  /// Sum of the depth-0 inclusive durations in seconds, added in completion
  /// order as the seed adds them.
  double total_seconds() const;
};

/// A compile session: its sections in the order the contexts ran, and the
/// phases of the compile they ran in.
struct Profile {
  ProfileMetadata metadata;
  std::vector<Section> sections;
  /// The compile's phases, a parent before its children (phase.h); empty
  /// when the source recorded none.
  std::vector<Phase> phases;
  /// The metrics the records carry besides wall time (none by default).
  ProfileMetrics metrics;

  std::size_t record_count() const;
};

}  // namespace passtiming
