#include "passtiming/formats/profile_json.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <simdjson.h>

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "json_text.h"
#include "metric_fields.h"
#include "passtiming/formats/profile_io.h"
#include "profile_json_fields.h"
#include "profile_json_reader.h"
#include "text_writing.h"

namespace passtiming {
namespace {

using detail::put;
using detail::put_int;

// ---------------------------------------------------------------- writing

void write_metadata(std::string& out, const ProfileMetadata& m) {
  out += "\"metadata\":{";
  detail::append_metadata_members(out, m);
  out += "},\n";
}

/// Each of the section's names as a JSON string, quoted and escaped once
/// rather than once per record that uses it.
std::vector<std::string> quoted_names(const NameTable& names) {
  std::vector<std::string> quoted(names.size());
  for (std::size_t id = 0; id < names.size(); ++id) {
    detail::append_json_string(quoted[id], names[static_cast<NameId>(id)]);
  }
  return quoted;
}

/// The slow way of write_record for a name too long for its buffer: the
/// line so far (`line` to `end`) and then the member appended to `out`.
[[gnu::noinline]] void append_long_member(std::string& out, const char* line, const char* end,
                                          std::string_view prefix, std::string_view quoted) {
  out.append(line, end);
  out += prefix;
  out += quoted;
}

/// The line of one record after `separator`, member by member as
/// kRecordFields lists them. A compile writes hundreds of thousands of
/// records at its end, so the line is built in one stack buffer and appended
/// to `out` once, rather than in pieces that each check the string's
/// capacity. Only names too long for the buffer take that slower way.
// Flattened: left to GCC's inliner, the append of the line stays a call
// to std::string's out-of-line code, a tenth more instructions a record.
[[gnu::flatten]] void write_record(std::string& out, std::string_view separator,
                                   const std::vector<std::string>& quoted, const Record& r,
                                   const RecordMetrics* metrics) {
  // The keys, separator and numbers of kMaxIntChars of the record, and its
  // metric members, fit in 768 bytes, leaving 768 for the quoted names.
  constexpr std::size_t kLineBytes = 1536;
  constexpr std::size_t kNamesBytes = kLineBytes - 768;
  static_assert(8 + detail::record_numbers_max_bytes() + detail::kMetricMembersBytes <=
                kLineBytes - kNamesBytes);
  std::size_t names_bytes = 0;
  detail::for_each_record_field([&]<std::size_t I>() {
    constexpr auto& field = std::get<I>(detail::kRecordFields);
    if constexpr (field.value == detail::RecordValue::name) {
      names_bytes += quoted[r.*field.member].size();
    }
  });
  const bool names_fit = names_bytes <= kNamesBytes;
  char line[kLineBytes];
  char* p = put(line, separator);
  detail::for_each_record_field([&]<std::size_t I>() {
    constexpr auto& field = std::get<I>(detail::kRecordFields);
    constexpr char lead = I == 0 ? '{' : ',';
    if constexpr (field.value == detail::RecordValue::metrics) {
      if (metrics != nullptr) {
        p = detail::put_metric_members(p, *metrics, detail::kMetricNumberFields, metrics->ir_flags);
      }
    } else if constexpr (field.value == detail::RecordValue::name) {
      if (names_fit) {
        p = detail::put_record_member<I, lead>(p, r, quoted);
      } else {
        append_long_member(out, line, p, detail::record_member_prefix<I, lead>(),
                           quoted[r.*field.member]);
        p = line;
      }
    } else {
      p = detail::put_record_member<I, lead>(p, r, quoted);
    }
  });
  *p++ = '}';
  out.append(line, p);
}

/// Hands `out` to `sink` once it holds a piece's worth; no sink: keeps it.
void flush_full_piece(std::string& out, const TextSink* sink) {
  if (sink != nullptr && out.size() >= kTextPieceBytes) {
    (*sink)(out);
    out.clear();
  }
}

/// The phases on one line of the header (docs/profile-format.md), so that
/// the streamed read takes them with the rest of the header.
void write_phases(std::string& out, const std::vector<Phase>& phases) {
  out += "\"phases\":[";
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    out += i ? ",{\"name\":" : "{\"name\":";
    detail::append_json_string(out, p.name);
    if (!p.detail.empty()) {
      out += ",\"detail\":";
      detail::append_json_string(out, p.detail);
    }
    if (p.parent == kNoPhase) {
      out += ",\"parent\":null";
    } else {
      fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"parent\":{}"), p.parent);
    }
    fmt::format_to(std::back_inserter(out),
                   FMT_COMPILE(",\"thread\":{},\"start_ns\":{},\"duration_ns\":{}"), p.thread,
                   p.start_ns, p.duration_ns);
    if (p.cpu_ns >= 0) {
      fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"cpu_ns\":{}"), p.cpu_ns);
    }
    if (p.failed()) out += ",\"failed\":true";
    out += '}';
  }
  out += "],\n";
}

void write_section(std::string& out, const Section& s, PhaseIndex phase, const TextSink* sink) {
  out += "{\"context\":";
  detail::append_json_string(out, s.context);
  detail::append_origin_member(out, s.origin);
  if (phase != kNoPhase)
    fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"phase\":{}"), phase);
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"skipped\":{},\"threads\":["), s.skipped);
  for (std::size_t i = 0; i < s.threads.size(); ++i) {
    if (i) out += ',';
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), s.threads[i]);
  }
  out += "],\"records\":[";
  const std::vector<std::string> quoted = quoted_names(s.names);
  std::string_view separator = "\n";  // one record a line; ",\n" after the first
  const bool with_metrics = s.metrics.size() == s.records.size();
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    write_record(out, separator, quoted, s.records[i], with_metrics ? &s.metrics[i] : nullptr);
    separator = ",\n";
    flush_full_piece(out, sink);
  }
  out += "]}";
}

/// A profile's text into `out`, or through `out` into `sink` when given:
/// its metadata, its metrics, its phases and its sections, `section(i)` (in
/// phase `phase_of(i)`) for each `i` under `count`, so that sections held
/// elsewhere are written in place.
template <typename SectionAt, typename PhaseOf>
void write_profile(const ProfileMetadata& metadata, const ProfileMetrics& metrics,
                   const std::vector<Phase>& phases, std::size_t count, const SectionAt& section,
                   const PhaseOf& phase_of, std::string& out, const TextSink* sink) {
  // The lowest version that holds what the profile has, so that a profile
  // without metrics or phases reads, byte for byte, as it always did.
  const int version = !phases.empty()    ? kProfileFormatVersion
                      : !metrics.empty() ? kProfileFormatVersionWithMetrics
                                         : kProfileFormatVersionWithoutMetrics;
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{{\"format\":\"{}\",\"version\":{},\n"),
                 kProfileFormatName, version);
  write_metadata(out, metadata);
  if (!metrics.empty()) {
    detail::append_metrics_member(out, metrics);
    out += ",\n";
  }
  if (!phases.empty()) write_phases(out, phases);
  out += "\"sections\":[";
  for (std::size_t i = 0; i < count; ++i) {
    out += i ? ",\n" : "\n";
    write_section(out, section(i), phase_of(i), sink);
  }
  out += "\n]}\n";
  if (sink != nullptr) (*sink)(out);
}

void write_profile(const Profile& profile, std::string& out, const TextSink* sink) {
  write_profile(
      profile.metadata, profile.metrics, profile.phases, profile.sections.size(),
      [&](std::size_t i) -> const Section& { return profile.sections[i]; },
      [&](std::size_t i) { return profile.sections[i].phase; }, out, sink);
}

}  // namespace

std::string profile_to_json(const Profile& profile) {
  std::string out;
  out.reserve(256 + profile.record_count() * 176);
  write_profile(profile, out, nullptr);
  return out;
}

void write_profile_json(const Profile& profile, const TextSink& sink) {
  std::string piece;
  piece.reserve(kTextPieceBytes + 4096);
  write_profile(profile, piece, &sink);
}

Profile parse_profile_json(std::string_view text, std::string_view source) {
  simdjson::padded_string padded(text);
  return detail::read_profile_json(padded, source);
}

void append_json_string(std::string& out, std::string_view text) {
  detail::append_json_string(out, text);
}

void write_profile_file(const Profile& profile, const std::string& path) {
  OutputFile out(path);
  write_profile_json(profile, out.sink());
  out.commit();
}

void write_profile_file(const ProfileMetadata& metadata, const ProfileMetrics& metrics,
                        const std::vector<Phase>& phases, std::span<const Section* const> sections,
                        std::span<const PhaseIndex> section_phases, const std::string& path) {
  OutputFile out(path);
  std::string piece;
  piece.reserve(kTextPieceBytes + 4096);
  const TextSink sink = out.sink();
  write_profile(
      metadata, metrics, phases, sections.size(),
      [&](std::size_t i) -> const Section& { return *sections[i]; },
      [&](std::size_t i) { return i < section_phases.size() ? section_phases[i] : kNoPhase; },
      piece, &sink);
  out.commit();
}

}  // namespace passtiming
