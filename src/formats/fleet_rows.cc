/// \file
/// The fleet's row per pass execution (docs/fleet.md) and the run identity
/// every row repeats.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "json_text.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/fleet.h"
#include "profile_json_fields.h"
#include "text_writing.h"

namespace passtiming {
namespace {

using detail::put;
using detail::put_int;

/// 64-bit FNV-1a: a stable hash, the same on every machine and in every
/// version, which a run id must be.
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 0xcbf29ce484222325ull) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string value_of(const MetaPairs& meta, std::string_view key) {
  std::string found;
  for (const auto& [k, v] : meta) {
    if (k == key) found = v;  // the last one given wins, as on a command line
  }
  return found;
}

std::string first_set(const Environment& env, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (std::optional<std::string> value = env.get(name); value && !value->empty()) {
      return *value;
    }
  }
  return {};
}

/// The program of a command line: its first word, without its directory.
std::string_view program_of(std::string_view command) {
  std::string_view first = command.substr(0, command.find(' '));
  if (first.size() >= 2 && first.front() == '\'' && first.back() == '\'') {
    first = first.substr(1, first.size() - 2);
  }
  const std::size_t slash = first.rfind('/');
  return slash == std::string_view::npos ? first : first.substr(slash + 1);
}

std::string guess_tool(std::string_view command) {
  const std::string_view program = program_of(command);
  if (program.starts_with("clang")) return "clang";
  if (program.starts_with("opt")) return "opt";
  if (program.find("mlir") != std::string_view::npos) return "mlir";
  if (program.starts_with("python")) return "tilelang";
  return std::string(program);
}

/// "2026-12-06T04:39:43Z" as ClickHouse's DateTime text "2026-12-06 04:39:43".
std::string datetime_text(std::string_view iso) {
  std::string text(iso.substr(0, 19));
  if (text.size() == 19 && text[10] == 'T') {
    text[10] = ' ';
    return text;
  }
  return "1970-01-01 00:00:00";  // unknown: the epoch, never a value ClickHouse rejects
}

/// `"key":` followed by the JSON string of `value` and a comma.
void member(std::string& out, std::string_view key, std::string_view value) {
  out += '"';
  out += key;
  out += "\":";
  detail::append_json_string(out, value);
  out += ',';
}

}  // namespace

RunIdentity run_identity(const ProfileMetadata& metadata, const MetaPairs& meta,
                         const Environment& env) {
  RunIdentity run;
  for (const auto& [key, value] : meta) {
    if (key.empty()) throw ConfigError("--meta: an empty key in '=" + value + "'");
    if (key != "run_id" && key != "tool" && key != "commit" && key != "build_id") {
      run.meta.emplace_back(key, value);
    }
  }
  run.host = metadata.host;
  run.start_time = datetime_text(metadata.start_time);
  run.command = metadata.command;
  run.tool = value_of(meta, "tool");
  if (run.tool.empty()) run.tool = guess_tool(metadata.command);
  run.commit = value_of(meta, "commit");
  if (run.commit.empty()) {
    run.commit = first_set(env, {"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT"});
  }
  run.build_id = value_of(meta, "build_id");
  if (run.build_id.empty()) {
    run.build_id =
        first_set(env, {"GITHUB_RUN_ID", "CI_PIPELINE_ID", "BUILDKITE_BUILD_ID", "BUILD_ID"});
  }
  run.run_id = value_of(meta, "run_id");
  if (run.run_id.empty()) {
    std::uint64_t hash = fnv1a(metadata.host);
    hash = fnv1a(std::to_string(metadata.pid), hash ^ 0x1f);
    hash = fnv1a(metadata.start_time, hash ^ 0x2f);
    hash = fnv1a(metadata.command, hash ^ 0x3f);
    run.run_id = fmt::format("{:016x}", hash);
  }
  return run;
}

RowWriter::RowWriter(const Profile& profile, const RunIdentity& run) : profile_(profile) {
  // What every row of the profile repeats, escaped once.
  head_ = fmt::format("{{\"schema_version\":{},", kRowSchemaVersion);
  member(head_, "run_id", run.run_id);
  member(head_, "host", run.host);
  member(head_, "start_time", run.start_time);
  member(head_, "command", run.command);
  member(head_, "tool", run.tool);
  member(head_, "commit", run.commit);
  member(head_, "build_id", run.build_id);
  head_ += "\"meta_keys\":[";
  for (std::size_t i = 0; i < run.meta.size(); ++i) {
    if (i) head_ += ',';
    detail::append_json_string(head_, run.meta[i].first);
  }
  head_ += "],\"meta_values\":[";
  for (std::size_t i = 0; i < run.meta.size(); ++i) {
    if (i) head_ += ',';
    detail::append_json_string(head_, run.meta[i].second);
  }
  head_ += "],";
}

void RowWriter::append(std::string& out, std::size_t s, std::size_t index) {
  append(out, s, index, static_cast<std::uint32_t>(s));
}

void RowWriter::append(std::string& out, std::size_t s, std::size_t index, std::uint32_t number) {
  const Section& section = profile_.sections[s];
  if (s != section_ || number != number_) {
    // What every row of the section repeats, and its names, escaped once.
    section_ = s;
    number_ = number;
    section_head_ = head_;
    section_head_ += fmt::format("\"section\":{},", number);
    member(section_head_, "context", section.context);
    quoted_.assign(section.names.size(), std::string());
    for (std::size_t id = 0; id < quoted_.size(); ++id) {
      detail::append_json_string(quoted_[id], section.names[static_cast<NameId>(id)]);
    }
  }
  const Record& r = section.records[index];
  out += section_head_;
  // The numbers and the two names: at most 12 numbers and 8 keys. The
  // members a row shares with a profile record come from kRecordFields.
  using detail::put_record_member;
  using detail::record_field_index;
  char numbers[512];
  char* p = numbers;
  p = put_record_member<record_field_index("sequence"), 0>(p, r, quoted_);
  p = put(p, ",\"parent_sequence\":");
  p = put_int(p, r.parent == kNoParent ? std::int64_t{-1} : std::int64_t{r.parent});
  p = put(p, ",\"pass\":");
  out.append(numbers, p);
  out += quoted_[r.name];
  out += detail::record_member_prefix<record_field_index("kernel")>();
  out += quoted_[r.kernel];
  p = numbers;
  p = put_record_member<record_field_index("depth")>(p, r, quoted_);
  p = put(p, ",\"thread\":");
  p = put_int(p, r.thread < section.threads.size() ? section.threads[r.thread] : r.thread);
  p = put_record_member<record_field_index("start_ns")>(p, r, quoted_);
  p = put_record_member<record_field_index("inclusive_ns")>(p, r, quoted_);
  p = put_record_member<record_field_index("self_ns")>(p, r, quoted_);
  p = put(p, ",\"failed\":");
  p = put_int(p, (r.flags & kRecordFailed) ? 1 : 0);
  p = put(p, "}\n");
  out.append(numbers, p);
}

void write_phase_rows(const Profile& profile, const RunIdentity& run, const TextSink& sink) {
  if (profile.phases.empty()) return;
  // The run's members, as a pass row has them.
  std::string head = fmt::format("{{\"schema_version\":{},", kPhaseRowSchemaVersion);
  {
    RowWriter pass_rows(profile, run);
    const std::string& pass_head = pass_rows.head();
    head += pass_head.substr(pass_head.find(',') + 1);
  }
  // Each phase's path and depth, from its parent's: parents come first.
  const std::vector<Phase>& phases = profile.phases;
  std::vector<std::string> paths(phases.size());
  std::vector<std::uint32_t> depths(phases.size(), 0);
  std::vector<std::uint32_t> sections(phases.size(), 0);
  for (const Section& section : profile.sections) {
    if (section.phase < phases.size()) ++sections[section.phase];
  }
  std::string out;
  for (PhaseIndex i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    const bool child = p.parent < i;
    paths[i] = child ? paths[p.parent] + '/' + p.name : p.name;
    depths[i] = child ? depths[p.parent] + 1 : 0;
    out += head;
    out += fmt::format("\"phase\":{},\"parent\":{},", i,
                       child ? static_cast<std::int64_t>(p.parent) : std::int64_t{-1});
    member(out, "path", paths[i]);
    member(out, "name", p.name);
    member(out, "detail", p.detail);
    out += fmt::format(
        "\"depth\":{},\"thread\":{},\"start_ns\":{},\"duration_ns\":{},\"cpu_ns\":{},"
        "\"failed\":{},\"section_count\":{}}}\n",
        depths[i], p.thread, p.start_ns, p.duration_ns, p.cpu_ns < 0 ? -1 : p.cpu_ns,
        p.failed() ? 1 : 0, sections[i]);
    if (out.size() >= kTextPieceBytes) {
      sink(out);
      out.clear();
    }
  }
  if (!out.empty()) sink(out);
}

std::vector<FleetRun> fleet_runs(const Profile& profile, const MetaPairs& meta,
                                 const Environment& env) {
  std::vector<FleetRun> runs;
  const bool one_run =
      std::any_of(meta.begin(), meta.end(), [](const auto& kv) { return kv.first == "run_id"; });
  // The metadata of each run, in order of its first section.
  std::vector<const ProfileMetadata*> recorded_by;
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    const Section& section = profile.sections[s];
    const ProfileMetadata& metadata =
        one_run || section.origin.empty() ? profile.metadata : section.origin.metadata;
    std::size_t r = 0;
    while (r < recorded_by.size() && !(*recorded_by[r] == metadata)) ++r;
    if (r == runs.size()) {
      recorded_by.push_back(&metadata);
      runs.push_back({run_identity(metadata, meta, env), {}});
    }
    FleetRun& run = runs[r];
    // Numbered among the run's sections, empty ones included, as the
    // recorded profile numbers them.
    const auto number = static_cast<std::uint32_t>(
        one_run ? s
                : std::count_if(profile.sections.begin(),
                                profile.sections.begin() + static_cast<std::ptrdiff_t>(s),
                                [&](const Section& before) {
                                  return (before.origin.empty()
                                              ? profile.metadata
                                              : before.origin.metadata) == metadata;
                                }));
    if (!section.records.empty()) run.sections.push_back({s, number});
  }
  return runs;
}

void check_rows(const Profile& profile, std::string_view path) {
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    std::vector<std::uint32_t> sequences;
    sequences.reserve(profile.sections[s].records.size());
    for (const Record& r : profile.sections[s].records) {
      if (r.start_ns < 0) {
        throw std::invalid_argument(fmt::format(
            "{}: section {}: the record with sequence {} starts at {} ns (start_ns is unsigned "
            "in the table)",
            path, s, r.sequence, r.start_ns));
      }
      sequences.push_back(r.sequence);
    }
    std::sort(sequences.begin(), sequences.end());
    const auto twice = std::adjacent_find(sequences.begin(), sequences.end());
    if (twice != sequences.end()) {
      throw std::invalid_argument(fmt::format(
          "{}: section {}: two records with sequence {} (a row is stored by run_id, section "
          "and sequence)",
          path, s, *twice));
    }
  }
}

void write_rows(const Profile& profile, const std::vector<FleetRun>& runs, const TextSink& sink) {
  std::string out;
  out.reserve(kTextPieceBytes + 4096);
  for (const FleetRun& run : runs) {
    RowWriter writer(profile, run.identity);
    for (const RunSection& section : run.sections) {
      for (std::size_t i = 0; i < profile.sections[section.index].records.size(); ++i) {
        writer.append(out, section.index, i, section.number);
        if (out.size() >= kTextPieceBytes) {
          sink(out);
          out.clear();
        }
      }
    }
  }
  if (!out.empty()) sink(out);
}

void write_rows(const Profile& profile, const RunIdentity& run, const TextSink& sink) {
  RowWriter writer(profile, run);
  std::string out;
  out.reserve(kTextPieceBytes + 4096);
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    for (std::size_t i = 0; i < profile.sections[s].records.size(); ++i) {
      writer.append(out, s, i);
      if (out.size() >= kTextPieceBytes) {
        sink(out);
        out.clear();
      }
    }
  }
  if (!out.empty()) sink(out);
}

}  // namespace passtiming
