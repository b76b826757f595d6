#pragma once
/// \file
/// A profile as a fleet stores it: one flat row per pass execution, carrying
/// the identity of the run (ClickHouse's JSONEachRow; docs/fleet.md), or
/// OpenTelemetry spans in the OTLP JSON file format.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passtiming/engine/environment.h"
#include "passtiming/engine/profile.h"
#include "passtiming/formats/output_file.h"

namespace passtiming {

/// The version of the row schema (docs/fleet.md). A row carries it as
/// `schema_version`; a change of column meaning or type, or of the table's
/// sorting key, increments it. 2: the table is sorted by the identity of a
/// pass execution (run_id, section, sequence), and a merged profile's
/// sections are stored under their inputs' identity.
inline constexpr int kRowSchemaVersion = 2;

/// The version of the phase rows' schema (docs/fleet.md#phases), kept
/// apart from kRowSchemaVersion: the phases are a table of their own. 2:
/// the table is sorted by the identity of a phase (run_id, phase).
inline constexpr int kPhaseRowSchemaVersion = 2;

/// `key=value` pairs given with `--meta`, in order.
using MetaPairs = std::vector<std::pair<std::string, std::string>>;

/// Who made a profile, when and where: the columns every row of it repeats.
struct RunIdentity {
  std::string run_id;      ///< unique per profile, stable across exports
  std::string host;        ///< host name
  std::string start_time;  ///< UTC, "YYYY-MM-DD hh:mm:ss" (ClickHouse's DateTime text)
  std::string command;     ///< the profiled command line
  std::string tool;        ///< clang, opt, mlir, tvm, tilelang, or what `tool=` says
  std::string commit;      ///< source revision, or ""
  std::string build_id;    ///< CI build or pipeline id, or ""
  MetaPairs meta;          ///< the other `--meta` pairs
};

/// The identity of a run from its profile's metadata and `meta`:
/// - `run_id=`, `tool=`, `commit=`, `build_id=` in `meta` win;
/// - else the commit and build id come from the variables CI systems set
///   (GITHUB_SHA, CI_COMMIT_SHA, BUILDKITE_COMMIT, GIT_COMMIT; GITHUB_RUN_ID,
///   CI_PIPELINE_ID, BUILDKITE_BUILD_ID, BUILD_ID), first found;
/// - the tool is guessed from the command (clang, opt, mlir, else tilelang
///   for a Python command, else the command's program name);
/// - the run id is a hash of host, pid, start time and command, so the same
///   profile always gets the same id (which makes a repeated push
///   idempotent) and two runs practically never share one.
/// Throws ConfigError naming a pair whose key is empty.
RunIdentity run_identity(const ProfileMetadata& metadata, const MetaPairs& meta,
                         const Environment& env = Environment::process());

/// A section as its run numbers it: `index` in the profile, `number` the
/// `section` column of its rows.
struct RunSection {
  std::size_t index = 0;
  std::uint32_t number = 0;
};

/// The rows of one recorded run within a profile: its identity and its
/// sections.
struct FleetRun {
  RunIdentity identity;
  std::vector<RunSection> sections;
};

/// The runs whose rows `profile` holds. A profile as recorded is one run,
/// its sections numbered by their index. A merged profile (sections with an
/// origin, `passtiming merge`) holds the runs of its inputs: each section
/// belongs to the run of its origin's metadata, numbered in order within
/// it, as its input numbers it, so that the rows of a merged section are
/// the rows of the same section of the input (same identity, same section
/// number) and a merge stores nothing twice. `run_id=` in `meta` names one
/// run: every section belongs to it, numbered by its index. Sections
/// without records are left out.
std::vector<FleetRun> fleet_runs(const Profile& profile, const MetaPairs& meta,
                                 const Environment& env = Environment::process());

/// Throws std::invalid_argument, naming `path`, the section and the
/// sequence, when `profile` has rows no table can store as they are: two
/// records of a section with one sequence (which name one pass execution)
/// or a negative start (`start_ns` is unsigned). `export --to rows` and
/// `push` refuse such a profile alike.
void check_rows(const Profile& profile, std::string_view path);

/// One JSON object per line per record of `profile`, in section order and
/// then completion order, with the columns of docs/fleet.md: every section
/// under `run`, numbered by its index.
void write_rows(const Profile& profile, const RunIdentity& run, const TextSink& sink);

/// The rows of `runs` (fleet_runs of `profile`), run after run, each
/// section's records in completion order.
void write_rows(const Profile& profile, const std::vector<FleetRun>& runs, const TextSink& sink);

/// The rows of write_rows one at a time, for callers that send a profile in
/// batches (`passtiming push`): what every row of the profile and of a
/// section repeats is escaped once, as in write_rows.
class RowWriter {
 public:
  /// `profile` must outlive the writer.
  RowWriter(const Profile& profile, const RunIdentity& run);
  /// Appends the row (a line ending in '\n') of `section`'s record `index`,
  /// its `section` column `number` (by default, `section`).
  void append(std::string& out, std::size_t section, std::size_t index);
  void append(std::string& out, std::size_t section, std::size_t index, std::uint32_t number);
  /// The members every row of the profile repeats, from the opening brace
  /// to the comma after `meta_values`.
  const std::string& head() const { return head_; }

 private:
  const Profile& profile_;
  std::string head_;
  std::size_t section_ = static_cast<std::size_t>(-1);
  std::uint32_t number_ = 0;  ///< the section column of section_'s rows
  std::string section_head_;
  std::vector<std::string> quoted_;  ///< the section's names as JSON strings
};

/// One JSON object per line per phase of `profile`, in index order, with
/// the columns of phase_row_columns() (docs/fleet.md#phases): the run's
/// identity, then the phase's index, parent, path of names, name, detail,
/// depth, thread, start, duration, CPU time (-1: not measured) and failure.
/// Nothing for a profile without phases.
void write_phase_rows(const Profile& profile, const RunIdentity& run, const TextSink& sink);

/// A run read back from its rows (`passtiming pull`): the identity the rows
/// state and a profile of them.
struct StoredRun {
  RunIdentity identity;  ///< the columns every row of the run repeats, as stored
  Profile profile;
  std::size_t rows = 0;  ///< the rows read, duplicates not counted
};

/// The runs of `json_lines`, rows as write_rows writes them (ClickHouse's
/// JSONEachRow: one object per line, every column of row_columns(); blank
/// lines are skipped, other members ignored), one StoredRun per run_id in
/// order of first appearance. 64-bit integers are read as JSON numbers or
/// as quoted decimal strings (ClickHouse quotes UInt64 and Int64 by
/// default). Of rows with one (run_id, section, sequence), as a
/// ReplacingMergeTree holds them before it merges, the first is kept.
///
/// Each run's profile:
/// - metadata: host and command as stored; start_time the ISO 8601 UTC
///   form a recorded profile has ("YYYY-MM-DDThh:mm:ssZ", the inverse of
///   run_identity's), or "" when the run id says the recorded one was
///   unknown; pid the one run_identity hashed into the run id, found by
///   undoing the hash over every Linux pid (0 to 2^22), or 0 when the id
///   is none of those (one given with `--meta run_id=`); tool
///   "passtiming <version>" (the program that wrote the profile, as in a
///   recorded one; the rows' tool column stays in `identity`); source
///   "llvm" for the tools clang and opt, "mlir" for mlir, else "".
///   With the pid found, run_identity of this metadata gives the stored
///   run id again, so `export --to rows` and `push` of the profile name the
///   same run (see reproduce_meta for the other columns).
/// - sections: section `n` holds the rows whose `section` is n, with their
///   `context`; numbers without rows are empty sections, so that the rows
///   of the profile keep their numbers.
/// - records: pass, kernel, sequence, parent (parent_sequence -1:
///   kNoParent), depth, flags (failed: kRecordFailed), start_ns,
///   inclusive_ns, self_ns; `thread` indexes the section's threads, the
///   distinct thread keys of its rows in ascending order. In completion
///   order, as Section::records requires, derived from the times: by end
///   (start_ns + inclusive_ns), then the deeper first (a child ends no
///   later than its parent), then by sequence.
/// - none of what the rows do not hold: no metrics (CPU time, RSS,
///   instructions, IR counts), no phases, no skipped counts.
///
/// Throws InputError naming `source_name` and the line (1 for the first)
/// for a line that is not a JSON object, a missing column, a value of the
/// wrong type or range, a `schema_version` other than kRowSchemaVersion, or
/// a start_time that is not "YYYY-MM-DD hh:mm:ss".
std::vector<StoredRun> read_fleet_rows(std::string_view json_lines, std::string_view source_name);

/// The `--meta` pairs with which `export --to rows` (or `push`) of `run`'s
/// profile gives the rows it was read from: `run_id=` when its pid was not
/// found, `tool=` when the stored tool is not the one guessed from the
/// command, `commit=` and `build_id=` when stored non-empty, then the
/// stored meta pairs. Empty when the profile alone gives them (and no CI
/// variable sets a commit or build id where it is exported).
MetaPairs reproduce_meta(const StoredRun& run);

/// A column of the row table: its name and ClickHouse type.
struct RowColumn {
  std::string_view name;
  std::string_view type;
};

/// The columns of a row, in the order write_rows writes them.
std::span<const RowColumn> row_columns();

/// The engine of a fleet table (docs/fleet.md#the-table).
enum class TableEngine {
  /// ReplacingMergeTree on one server: a push's check of what is stored is
  /// its only guard against storing a row twice.
  kReplacing,
  /// ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/<table>',
  /// '{replica}'): the server also drops an INSERT block identical to one
  /// stored, which makes concurrent and repeated pushes store each row once.
  kReplicated,
};

/// The ClickHouse statement that makes `table` for the rows (docs/fleet.md):
/// `CREATE TABLE IF NOT EXISTS <table> (<columns>) ENGINE = <engine>
/// PARTITION BY toYYYYMM(start_time) ORDER BY (run_id, section, sequence)`.
/// The sorting key is the identity of a pass execution, so that a push's
/// check of a run reads a range of the key, and a row stored twice is one
/// row after a merge. `table` is used as given.
std::string row_table_ddl(std::string_view table, TableEngine engine = TableEngine::kReplacing);

/// The columns of a phase row, in the order write_phase_rows writes them.
std::span<const RowColumn> phase_row_columns();

/// The ClickHouse statement that makes `table` for the phase rows:
/// `CREATE TABLE IF NOT EXISTS <table> (<columns>) ENGINE = ReplacingMergeTree
/// PARTITION BY toYYYYMM(start_time) ORDER BY (run_id, phase)`: run_id and
/// phase name one phase of one run, so that a push's look at the phases
/// stored of a run reads a range of the key, and a row stored twice is one
/// row after a merge.
std::string phase_table_ddl(std::string_view table, TableEngine engine = TableEngine::kReplacing);

/// The phase table that goes with the pass table `table`: `table` + "_phases".
std::string phase_table_name(std::string_view table);

/// The default of write_otlp's limit on a line: 1 MiB, the most the
/// OpenTelemetry Collector's `otlpjsonfile` receiver reads a line by default.
inline constexpr std::size_t kOtlpMaxLineBytes = std::size_t{1} << 20;

/// `profile` as OTLP JSON `TracesData` documents, one a line: a trace per
/// section, a root span for the section and a span per record, nested by
/// parent span ids, with the figures as attributes. A profile with phases
/// is one trace instead: a span per phase, nested likewise, and each
/// section's root span a child of its phase's span (docs/fleet.md#otlp).
/// Times are the offsets from the profile's first pass or phase, added to
/// the profile's start time.
///
/// No line exceeds `max_line_bytes`, its newline included: every line
/// repeats the resource and the scope, and carries as many of the next
/// spans, in the order above, as fit; the next line goes on. Every
/// parentSpanId names a span of the output, on this line or another (a
/// record whose parent is no record of its section hangs under the
/// section's span). Throws std::length_error, naming the span, when the
/// resource with one span exceeds the limit (a name or command line near
/// the limit in size): nothing is cut short. The sink may have had part of
/// the output by then.
void write_otlp(const Profile& profile, const RunIdentity& run, const TextSink& sink,
                std::size_t max_line_bytes = kOtlpMaxLineBytes);

}  // namespace passtiming
