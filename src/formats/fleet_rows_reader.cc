/// \file
/// The fleet's rows read back into profiles (`passtiming pull`): the
/// inverse of write_rows, as far as the rows hold a profile.

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "passtiming/engine/environment.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/version.h"
#include "passtiming/formats/fleet.h"

namespace passtiming {
namespace {

namespace dom = simdjson::dom;

/// The most a Linux pid can be (PID_MAX_LIMIT on 64-bit): the pids the
/// search of a run id's pid tries.
constexpr std::int64_t kMaxPid = std::int64_t{1} << 22;

constexpr std::uint64_t kFnvBasis = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

/// 64-bit FNV-1a, run_identity's hash of a run id (fleet_rows.cc). A pid
/// found with it is checked with run_identity itself, so a drift between
/// the two finds nothing rather than a wrong pid.
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = kFnvBasis) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= kFnvPrime;
  }
  return hash;
}

/// The inverse of the prime modulo 2^64 (Newton's iteration doubles the
/// correct low bits each step: 5 steps from 5 bits).
constexpr std::uint64_t inverse_prime() {
  std::uint64_t inverse = kFnvPrime;
  for (int i = 0; i < 5; ++i) inverse *= 2 - kFnvPrime * inverse;
  return inverse;
}
static_assert(kFnvPrime * inverse_prime() == 1);

/// The hash before `text` was hashed into it: FNV-1a's steps undone.
std::uint64_t unhash(std::string_view text, std::uint64_t hash) {
  for (auto c = text.rbegin(); c != text.rend(); ++c) {
    hash *= inverse_prime();
    hash ^= static_cast<unsigned char>(*c);
  }
  return hash;
}

/// The pid that run_identity hashed with `metadata` (its pid ignored) into
/// `run_id`, if any: the hash is undone through the command and the start
/// time, which leaves the hash just after the pid's digits, and the pids
/// are tried to meet it. -1 when none does.
std::int64_t find_pid(const ProfileMetadata& metadata, std::string_view run_id) {
  std::uint64_t id = 0;
  if (run_id.size() != 16) return -1;
  const auto [end, error] = std::from_chars(run_id.data(), run_id.data() + 16, id, 16);
  if (error != std::errc() || end != run_id.data() + 16) return -1;
  const std::uint64_t after_pid =
      unhash(metadata.start_time, unhash(metadata.command, id) ^ 0x3f) ^ 0x2f;
  const std::uint64_t before_pid = fnv1a(metadata.host) ^ 0x1f;
  char digits[24];
  for (std::int64_t pid = 0; pid <= kMaxPid; ++pid) {
    const auto [last, ignored] = std::to_chars(digits, digits + sizeof digits, pid);
    if (fnv1a(std::string_view(digits, static_cast<std::size_t>(last - digits)), before_pid) ==
        after_pid) {
      ProfileMetadata check = metadata;
      check.pid = pid;
      if (run_identity(check, {}, MapEnvironment{}).run_id == run_id) return pid;
    }
  }
  return -1;
}

/// A row's record fields before the section's names and threads are made.
struct RowRecord {
  Record record;
  std::uint64_t thread_key = 0;
  std::string pass;
  std::string kernel;
};

struct RunRows {
  StoredRun stored;
  std::map<std::uint32_t, std::string> contexts;            ///< by section number
  std::map<std::uint32_t, std::vector<RowRecord>> records;  ///< by section number
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;   ///< (section, sequence)
};

/// The columns of one line, with the place for messages.
class Row {
 public:
  Row(dom::object object, std::string_view source, std::size_t line)
      : object_(object), source_(source), line_(line) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(std::string(source_), line_, message);
  }

  dom::element column(std::string_view name) const {
    dom::element value;
    if (object_[name].get(value)) fail(fmt::format("missing column '{}'", name));
    return value;
  }

  std::string string(std::string_view name) const {
    std::string_view text;
    if (column(name).get(text)) fail(fmt::format("column '{}' must be a string", name));
    return std::string(text);
  }

  std::vector<std::string> strings(std::string_view name) const {
    dom::array array;
    if (column(name).get(array)) fail(fmt::format("column '{}' must be an array of strings", name));
    std::vector<std::string> out;
    for (dom::element e : array) {
      std::string_view text;
      if (e.get(text)) fail(fmt::format("column '{}' must be an array of strings", name));
      out.emplace_back(text);
    }
    return out;
  }

  /// An integer from `low` to `high`, a JSON number or a quoted decimal
  /// (ClickHouse's default for 64-bit integers).
  std::int64_t integer(std::string_view name, std::int64_t low, std::int64_t high) const {
    std::int64_t n = 0;
    if (!number(name, n) || n < low || n > high) {
      fail(fmt::format("column '{}' must be an integer from {} to {}", name, low, high));
    }
    return n;
  }

  /// An unsigned 64-bit key (`thread`), numbers or quoted.
  std::uint64_t key(std::string_view name) const {
    std::uint64_t n = 0;
    if (!number(name, n))
      fail(fmt::format("column '{}' must be an integer from 0 to 2^64-1", name));
    return n;
  }

 private:
  /// Column `name` into `n`, from a JSON number or a quoted decimal; false
  /// when it is neither or does not fit `T`.
  template <typename T>
  bool number(std::string_view name, T& n) const {
    const dom::element value = column(name);
    if (std::string_view text; !value.get(text)) {
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
      return error == std::errc() && end == text.data() + text.size() && !text.empty();
    }
    return !value.get(n);
  }

  dom::object object_;
  std::string_view source_;
  std::size_t line_;
};

/// "YYYY-MM-DD hh:mm:ss" (the DateTime text of run_identity) as the
/// profile's "YYYY-MM-DDThh:mm:ssZ"; "" when it is not that form.
std::string iso_time(std::string_view text) {
  static constexpr std::string_view kForm = "dddd-dd-dd dd:dd:dd";
  if (text.size() != kForm.size()) return {};
  for (std::size_t i = 0; i < kForm.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kForm[i] == 'd' ? !digit : text[i] != kForm[i]) return {};
  }
  std::string iso(text);
  iso[10] = 'T';
  iso += 'Z';
  return iso;
}

/// The report style of a run of `tool` (ProfileMetadata::source).
std::string source_of(std::string_view tool) {
  if (tool == "clang" || tool == "opt") return "llvm";
  if (tool == "mlir") return "mlir";
  return {};
}

constexpr std::int64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
/// The largest section number read: a profile gets a section per number up
/// to its largest, so a runaway number must fail with a message rather than
/// take the machine's memory. No compile has a million contexts.
constexpr std::int64_t kMaxSection = (std::int64_t{1} << 20) - 1;
constexpr std::int64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();

/// A section's records, names and threads from its rows.
Section make_section(std::string context, std::vector<RowRecord>& rows) {
  Section section;
  section.context = std::move(context);
  for (const RowRecord& row : rows) section.threads.push_back(row.thread_key);
  std::sort(section.threads.begin(), section.threads.end());
  section.threads.erase(std::unique(section.threads.begin(), section.threads.end()),
                        section.threads.end());
  // Completion order: a record completes at its end; of two ending at one
  // clock value, the deeper is the child (it completes first); else the
  // one started first.
  std::stable_sort(rows.begin(), rows.end(), [](const RowRecord& a, const RowRecord& b) {
    const Record& x = a.record;
    const Record& y = b.record;
    return std::tuple(x.start_ns + x.inclusive_ns, -int{x.depth}, x.sequence) <
           std::tuple(y.start_ns + y.inclusive_ns, -int{y.depth}, y.sequence);
  });
  section.records.reserve(rows.size());
  for (RowRecord& row : rows) {
    Record r = row.record;
    r.name = section.names.intern(row.pass);
    r.kernel = section.names.intern(row.kernel);
    r.thread = static_cast<std::uint32_t>(
        std::lower_bound(section.threads.begin(), section.threads.end(), row.thread_key) -
        section.threads.begin());
    section.records.push_back(r);
  }
  return section;
}

}  // namespace

std::vector<StoredRun> read_fleet_rows(std::string_view json_lines, std::string_view source_name) {
  dom::parser parser;
  std::vector<RunRows> runs;
  std::map<std::string, std::size_t, std::less<>> run_index;
  std::size_t line = 0;
  std::size_t at = 0;
  while (at < json_lines.size()) {
    std::size_t newline = json_lines.find('\n', at);
    if (newline == std::string_view::npos) newline = json_lines.size();
    const std::string_view text = json_lines.substr(at, newline - at);
    at = newline + 1;
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    dom::object object;
    if (parser.parse(text.data(), text.size()).get(object)) {
      throw InputError(std::string(source_name), line, "not a JSON object (a row of JSONEachRow)");
    }
    const Row row(object, source_name, line);
    const std::int64_t version = row.integer("schema_version", 0, 255);
    if (version != kRowSchemaVersion) {
      row.fail(fmt::format("schema_version {}: this passtiming reads rows of schema version {}",
                           version, kRowSchemaVersion));
    }
    std::string run_id = row.string("run_id");
    auto found = run_index.find(run_id);
    if (found == run_index.end()) {
      // The run's columns from its first row: every row of a run repeats them.
      RunRows run;
      RunIdentity& id = run.stored.identity;
      id.run_id = run_id;
      id.host = row.string("host");
      id.start_time = row.string("start_time");
      id.command = row.string("command");
      id.tool = row.string("tool");
      id.commit = row.string("commit");
      id.build_id = row.string("build_id");
      const std::vector<std::string> keys = row.strings("meta_keys");
      const std::vector<std::string> values = row.strings("meta_values");
      if (keys.size() != values.size()) {
        row.fail(fmt::format("{} meta_keys but {} meta_values", keys.size(), values.size()));
      }
      for (std::size_t i = 0; i < keys.size(); ++i) id.meta.emplace_back(keys[i], values[i]);
      if (iso_time(id.start_time).empty()) {
        row.fail(fmt::format("column 'start_time' must be \"YYYY-MM-DD hh:mm:ss\" (got '{}')",
                             id.start_time));
      }
      found = run_index.emplace(std::move(run_id), runs.size()).first;
      runs.push_back(std::move(run));
    }
    RunRows& run = runs[found->second];
    const auto section = static_cast<std::uint32_t>(row.integer("section", 0, kMaxSection));
    RowRecord r;
    // kNoParent is the UInt32 maximum: no sequence takes it.
    r.record.sequence = static_cast<std::uint32_t>(row.integer("sequence", 0, kMaxU32 - 1));
    const std::int64_t parent = row.integer("parent_sequence", -1, kMaxU32 - 1);
    r.record.parent = parent < 0 ? kNoParent : static_cast<std::uint32_t>(parent);
    r.pass = row.string("pass");
    r.kernel = row.string("kernel");
    r.record.depth = static_cast<std::uint16_t>(row.integer("depth", 0, 65535));
    r.thread_key = row.key("thread");
    r.record.start_ns = row.integer("start_ns", 0, kMaxI64);
    r.record.inclusive_ns = row.integer("inclusive_ns", 0, kMaxI64);
    r.record.self_ns = row.integer("self_ns", 0, kMaxI64);
    r.record.flags = row.integer("failed", 0, 1) ? kRecordFailed : 0;
    std::string context = row.string("context");
    // A row stored twice (a ReplacingMergeTree before its merge): the first.
    if (!run.seen.emplace(section, r.record.sequence).second) continue;
    run.contexts.emplace(section, std::move(context));
    run.records[section].push_back(std::move(r));
    ++run.stored.rows;
  }

  std::vector<StoredRun> out;
  out.reserve(runs.size());
  for (RunRows& run : runs) {
    StoredRun& stored = run.stored;
    const RunIdentity& id = stored.identity;
    ProfileMetadata& m = stored.profile.metadata;
    m.tool = fmt::format("passtiming {}", kVersion);
    m.command = id.command;
    m.host = id.host;
    m.start_time = iso_time(id.start_time);
    m.source = source_of(id.tool);
    m.pid = find_pid(m, id.run_id);
    if (m.pid < 0 && id.start_time == "1970-01-01 00:00:00") {
      // run_identity writes an unknown start time as the epoch.
      ProfileMetadata unknown = m;
      unknown.start_time.clear();
      if ((unknown.pid = find_pid(unknown, id.run_id)) >= 0) m = unknown;
    }
    m.pid = std::max<std::int64_t>(m.pid, 0);
    // Sections by number; numbers without rows are empty sections.
    const std::uint32_t count = run.records.empty() ? 0 : run.records.rbegin()->first + 1;
    stored.profile.sections.resize(count);
    for (auto& [number, rows] : run.records) {
      stored.profile.sections[number] = make_section(std::move(run.contexts[number]), rows);
    }
    out.push_back(std::move(stored));
  }
  return out;
}

MetaPairs reproduce_meta(const StoredRun& run) {
  const RunIdentity& stored = run.identity;
  // What the profile alone gives, in an environment without CI variables.
  const RunIdentity derived = run_identity(run.profile.metadata, {}, MapEnvironment{});
  MetaPairs meta;
  if (derived.run_id != stored.run_id) meta.emplace_back("run_id", stored.run_id);
  if (derived.tool != stored.tool) meta.emplace_back("tool", stored.tool);
  if (!stored.commit.empty()) meta.emplace_back("commit", stored.commit);
  if (!stored.build_id.empty()) meta.emplace_back("build_id", stored.build_id);
  meta.insert(meta.end(), stored.meta.begin(), stored.meta.end());
  return meta;
}

}  // namespace passtiming
