/// \file
/// A profile as OpenTelemetry spans, in the OTLP JSON file format (one
/// `TracesData` document per line, as OpenTelemetry's file exporter writes
/// it, each line under a limit: otlp_lines.h): trace and span ids in hex,
/// 64-bit integers as strings, enums as numbers.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "json_text.h"
#include "otlp_lines.h"
#include "passtiming/engine/version.h"
#include "passtiming/formats/fleet.h"
#include "text_writing.h"

namespace passtiming {
namespace {

constexpr int kSpanKindInternal = 1;
constexpr int kStatusError = 2;
/// The sequence the root span of a section takes in its span id.
constexpr std::uint64_t kRootSequence = ~std::uint64_t{0};
/// The section number of the phases' span ids and of the one trace of a
/// profile with phases.
constexpr std::size_t kPhaseSection = ~std::size_t{0};

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (8 * i)) & 0xff;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// A span id in hex, without the allocation a string of 16 would need.
struct SpanId {
  std::array<char, 16> digits{};
  std::string_view text() const { return {digits.data(), digits.size()}; }
};

/// Ids derived from the run, section and sequence: exporting a profile
/// twice gives the same spans, so a collector can drop the repeat.
struct Ids {
  std::uint64_t run;
  std::string trace_id(std::size_t section) const {
    const std::uint64_t a = mix(run, section);
    return fmt::format("{:016x}{:016x}", a, mix(a ^ 0x9e3779b97f4a7c15ull, section));
  }
  SpanId span_id(std::size_t section, std::uint64_t sequence) const {
    std::uint64_t id = mix(mix(run ^ 0x51, section), sequence);
    if (id == 0) id = 1;  // an all-zero span id is invalid
    SpanId hex;
    for (std::size_t i = hex.digits.size(); i-- > 0; id >>= 4) {
      hex.digits[i] = "0123456789abcdef"[id & 0xf];
    }
    return hex;
  }
};

/// Seconds since the epoch of "YYYY-MM-DDThh:mm:ssZ", or 0.
std::int64_t epoch_seconds(std::string_view iso) {
  std::tm t{};
  const std::string text(iso);
  if (::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &t) == nullptr) return 0;
  return static_cast<std::int64_t>(::timegm(&t));
}

void string_attribute(std::string& out, std::string_view key, std::string_view value) {
  out += "{\"key\":";
  detail::append_json_string(out, key);
  out += ",\"value\":{\"stringValue\":";
  detail::append_json_string(out, value);
  out += "}}";
}

/// An integer attribute. `key` is a plain ASCII name, written as it is:
/// a span has six of these, so they are built without escaping or a
/// temporary string.
void int_attribute(std::string& out, std::string_view key, std::uint64_t value) {
  char text[detail::kMaxIntChars + 64];
  char* p = text;
  p = detail::put(p, "{\"key\":\"");
  out.append(text, p);
  out += key;
  p = detail::put(text, "\",\"value\":{\"intValue\":\"");
  p = detail::put_int(p, value);
  p = detail::put(p, "\"}}");
  out.append(text, p);
}

struct Span {
  std::string_view trace_id;
  std::string_view span_id;
  std::string_view parent_id;    ///< "" for a root
  std::string_view quoted_name;  ///< the name as a JSON string, quotes included
  std::uint64_t start_unix_ns;
  std::uint64_t end_unix_ns;
  bool failed;
};

void open_span(std::string& out, const Span& span) {
  out += "{\"traceId\":\"";
  out += span.trace_id;
  out += "\",\"spanId\":\"";
  out += span.span_id;
  out += '"';
  if (!span.parent_id.empty()) {
    out += ",\"parentSpanId\":\"";
    out += span.parent_id;
    out += '"';
  }
  out += ",\"name\":";
  out += span.quoted_name;
  char text[3 * detail::kMaxIntChars + 96];
  char* p = detail::put(text, ",\"kind\":");
  p = detail::put_int(p, kSpanKindInternal);
  p = detail::put(p, ",\"startTimeUnixNano\":\"");
  p = detail::put_int(p, span.start_unix_ns);
  p = detail::put(p, "\",\"endTimeUnixNano\":\"");
  p = detail::put_int(p, span.end_unix_ns);
  p = detail::put(p, "\",\"attributes\":[");
  out.append(text, p);
}

void close_span(std::string& out, bool failed) {
  out += ']';
  if (failed) out += fmt::format(",\"status\":{{\"code\":{}}}", kStatusError);
  out += '}';
}

/// Times on the Unix clock: a record's offset from the profile's first pass
/// (`origin`, one clock for every section) after the profile's start time.
struct UnixClock {
  std::uint64_t base_ns;
  Nanoseconds origin;
  std::uint64_t at(Nanoseconds t) const { return base_ns + (t - origin); }
};

UnixClock unix_clock_of(const Profile& profile) {
  Nanoseconds origin = 0;
  bool any = false;
  for (const Section& section : profile.sections) {
    for (const Record& r : section.records) {
      origin = any ? std::min(origin, r.start_ns) : r.start_ns;
      any = true;
    }
  }
  // A compile's phases begin before its passes: the first of them is the
  // origin then.
  for (const Phase& p : profile.phases) {
    origin = any ? std::min(origin, p.start_ns) : p.start_ns;
    any = true;
  }
  const std::uint64_t base_ns =
      static_cast<std::uint64_t>(epoch_seconds(profile.metadata.start_time)) * 1'000'000'000ull;
  return {base_ns, origin};
}

/// Every line's head: the resource (the service, the host, the process and
/// the run's identity and metadata) and the scope, up to its list of spans.
std::string resource_head(const Profile& profile, const RunIdentity& run) {
  std::string out;
  out += "{\"resourceSpans\":[{\"resource\":{\"attributes\":[";
  string_attribute(out, "service.name", "passtiming");
  out += ',';
  string_attribute(out, "host.name", run.host);
  out += ',';
  string_attribute(out, "process.command_line", run.command);
  out += ',';
  int_attribute(out, "process.pid", static_cast<std::uint64_t>(profile.metadata.pid));
  for (const auto& [key, value] :
       {std::pair<std::string_view, std::string_view>{"passtiming.run_id", run.run_id},
        {"passtiming.tool", run.tool},
        {"passtiming.commit", run.commit},
        {"passtiming.build_id", run.build_id},
        {"passtiming.start_time", run.start_time}}) {
    out += ',';
    string_attribute(out, key, value);
  }
  for (const auto& [key, value] : run.meta) {
    out += ',';
    string_attribute(out, "passtiming.meta." + key, value);
  }
  out += "]},\"scopeSpans\":[{\"scope\":{\"name\":\"passtiming\",\"version\":\"";
  out += kVersion;
  out += "\"},\"spans\":[";
  return out;
}

/// `text` quoted for an error message, cut to its first 80 bytes: a name
/// long enough to fill a line would bury the message.
std::string quoted_for_message(std::string_view text) {
  constexpr std::size_t kShown = 80;
  if (text.size() <= kShown) return fmt::format("'{}'", text);
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // UTF-8
  return fmt::format("'{}...' ({} bytes)", text.substr(0, cut), text.size());
}

/// The sequences of a section's records: a record's parent is given a span
/// only when it is one of them, so every parentSpanId names a span of the
/// output even in a profile edited by hand or cut short.
class Sequences {
 public:
  explicit Sequences(const Section& section) {
    std::uint64_t max = 0;
    for (const Record& r : section.records) max = std::max<std::uint64_t>(max, r.sequence);
    // Sequences count from 0, so a bit each is the common case; a sparse
    // set (a huge sequence in a small section) is a sorted list instead.
    if (max < 4 * std::uint64_t{section.records.size()} + 1024) {
      bits_.assign(max + 1, false);
      for (const Record& r : section.records) bits_[r.sequence] = true;
    } else {
      sorted_.reserve(section.records.size());
      for (const Record& r : section.records) sorted_.push_back(r.sequence);
      std::sort(sorted_.begin(), sorted_.end());
    }
  }
  bool contains(std::uint32_t sequence) const {
    if (!sorted_.empty()) return std::binary_search(sorted_.begin(), sorted_.end(), sequence);
    return sequence < bits_.size() && bits_[sequence];
  }

 private:
  std::vector<bool> bits_;
  std::vector<std::uint32_t> sorted_;
};

/// The spans of one section, in one trace: what every span of it shares.
struct SectionSpans {
  const Section& section;
  std::size_t index;
  std::string trace_id;
  SpanId root_id;
  /// The span id of the section's phase, or "" when it ran in none.
  std::string phase_id;
  /// Each name as a JSON string once, not once per span.
  std::vector<std::string> quoted;
  Sequences sequences;
};

/// The span of one phase, in the profile's one trace: a child of its parent
/// phase's span, its failure as the error status.
void append_phase_span(std::string& out, const Profile& profile, PhaseIndex index, const Ids& ids,
                       const std::string& trace_id, const UnixClock& clock) {
  const Phase& p = profile.phases[index];
  const SpanId id = ids.span_id(kPhaseSection, index);
  const SpanId parent = ids.span_id(kPhaseSection, p.parent);
  std::string name;
  detail::append_json_string(name, p.name);
  open_span(out, {trace_id, id.text(), p.parent == kNoPhase ? "" : parent.text(), name,
                  clock.at(p.start_ns), clock.at(p.end_ns()), p.failed()});
  string_attribute(out, "passtiming.kind", "phase");
  out += ',';
  int_attribute(out, "passtiming.phase", index);
  out += ',';
  string_attribute(out, "passtiming.detail", p.detail);
  out += ',';
  int_attribute(out, "passtiming.thread", p.thread);
  out += ',';
  int_attribute(out, "passtiming.duration_ns", static_cast<std::uint64_t>(p.duration_ns));
  if (p.cpu_ns >= 0) {
    out += ',';
    int_attribute(out, "passtiming.cpu_ns", static_cast<std::uint64_t>(p.cpu_ns));
  }
  close_span(out, p.failed());
}

/// The section's root span: the PassContext, parent of its top-level
/// passes, from its first start to its last end; a child of its phase's
/// span when it ran in one.
void append_section_span(std::string& out, const SectionSpans& spans, const UnixClock& clock) {
  const Section& section = spans.section;
  Nanoseconds first = section.records.front().start_ns;
  Nanoseconds last = first;
  for (const Record& r : section.records) {
    first = std::min(first, r.start_ns);
    last = std::max(last, r.start_ns + r.inclusive_ns);
  }
  std::string root_name;
  detail::append_json_string(root_name, section.context.empty() ? "PassContext" : section.context);
  open_span(out, {spans.trace_id, spans.root_id.text(), spans.phase_id, root_name, clock.at(first),
                  clock.at(last), false});
  int_attribute(out, "passtiming.section", spans.index);
  out += ',';
  string_attribute(out, "passtiming.context", section.context);
  out += ',';
  int_attribute(out, "passtiming.records", section.records.size());
  close_span(out, false);
}

/// The span of one record, a child of its parent record's span or, for a
/// top-level record or one whose parent is no other record of the section,
/// of the section's.
void append_record_span(std::string& out, const SectionSpans& spans, const Ids& ids,
                        const Record& r, const UnixClock& clock) {
  const Section& section = spans.section;
  const bool failed = (r.flags & kRecordFailed) != 0;
  const SpanId id = ids.span_id(spans.index, r.sequence);
  const bool nested =
      r.parent != kNoParent && r.parent != r.sequence && spans.sequences.contains(r.parent);
  const SpanId parent = nested ? ids.span_id(spans.index, r.parent) : spans.root_id;
  open_span(out, {spans.trace_id, id.text(), parent.text(), spans.quoted[r.name],
                  clock.at(r.start_ns), clock.at(r.start_ns + r.inclusive_ns), failed});
  out += "{\"key\":\"passtiming.kernel\",\"value\":{\"stringValue\":";
  out += spans.quoted[r.kernel];
  out += "}}";
  out += ',';
  int_attribute(out, "passtiming.sequence", r.sequence);
  out += ',';
  int_attribute(out, "passtiming.depth", r.depth);
  out += ',';
  int_attribute(out, "passtiming.thread",
                r.thread < section.threads.size() ? section.threads[r.thread] : r.thread);
  out += ',';
  int_attribute(out, "passtiming.inclusive_ns", r.inclusive_ns);
  out += ',';
  int_attribute(out, "passtiming.self_ns", r.self_ns);
  close_span(out, failed);
}

}  // namespace

void write_otlp(const Profile& profile, const RunIdentity& run, const TextSink& sink,
                std::size_t max_line_bytes) {
  const Ids ids{fnv1a(run.run_id, 0xcbf29ce484222325ull)};
  const UnixClock clock = unix_clock_of(profile);
  detail::OtlpLines lines(resource_head(profile, run), max_line_bytes, sink);
  // With phases the compile is one trace: its phases, and under each phase
  // the sections that ran in it. Without, a trace per section, as always.
  const bool phased = !profile.phases.empty();
  const std::string phase_trace = phased ? ids.trace_id(kPhaseSection) : std::string();
  for (PhaseIndex i = 0; i < profile.phases.size(); ++i) {
    append_phase_span(lines.begin_span(), profile, i, ids, phase_trace, clock);
    lines.end_span([&] {
      return fmt::format("the span of phase {} (phase {})",
                         quoted_for_message(profile.phases[i].name), i);
    });
  }
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    const Section& section = profile.sections[s];
    if (section.records.empty()) continue;
    SectionSpans spans{section,
                       s,
                       phased ? phase_trace : ids.trace_id(s),
                       ids.span_id(s, kRootSequence),
                       section.phase < profile.phases.size()
                           ? std::string(ids.span_id(kPhaseSection, section.phase).text())
                           : std::string(),
                       std::vector<std::string>(section.names.size()),
                       Sequences(section)};
    for (std::size_t id = 0; id < spans.quoted.size(); ++id) {
      detail::append_json_string(spans.quoted[id], section.names[static_cast<NameId>(id)]);
    }
    append_section_span(lines.begin_span(), spans, clock);
    lines.end_span([&] {
      return fmt::format("the root span of section {} ({})", s,
                         quoted_for_message(section.context));
    });
    for (const Record& r : section.records) {
      append_record_span(lines.begin_span(), spans, ids, r, clock);
      lines.end_span([&] {
        return fmt::format("the span of pass {} (section {}, sequence {})",
                           quoted_for_message(section.name_of(r)), s, r.sequence);
      });
    }
  }
  lines.finish();
}

}  // namespace passtiming
