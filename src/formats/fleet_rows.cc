/// \file
/// The fleet's row per pass execution (docs/fleet.md) and the run identity
/// every row repeats.

#include <fmt/format.h>

#include <array>
#include <cstdint>
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
  const Section& section = profile_.sections[s];
  if (s != section_) {
    // What every row of the section repeats, and its names, escaped once.
    section_ = s;
    section_head_ = head_;
    section_head_ += fmt::format("\"section\":{},", s);
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
