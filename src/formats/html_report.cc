#include "passtiming/formats/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "formats/html/assets.h"
#include "formats/html/html_json.h"
#include "json_text.h"
#include "metric_fields.h"

namespace passtiming {
namespace {

/// Text for an HTML element or attribute value.
std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

/// A CSP source expression ('sha256-BASE64') from a hex SHA-256 digest.
std::string csp_hash(std::string_view hex) {
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    bytes.push_back(static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  std::string out = "'sha256-";
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<std::uint8_t>(bytes[i + 2]);
    out.push_back(kBase64[(v >> 18) & 63]);
    out.push_back(kBase64[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? kBase64[v & 63] : '=');
  }
  out += "'";
  return out;
}

void append_string(std::string& out, std::string_view text) {
  detail::append_html_json_string(out, text);
}

/// One section as the page's script reads it: names once, records as arrays
/// in start order, times in nanoseconds from the section's first start.
void append_section(std::string& out, const Section& section) {
  out += "{\"context\":";
  append_string(out, section.context);
  detail::append_origin_member(out, section.origin, &append_string);
  if (section.phase != kNoPhase) {
    fmt::format_to(std::back_inserter(out), ",\"phase\":{}", section.phase);
  }
  fmt::format_to(std::back_inserter(out), ",\"skipped\":{},\"threads\":[", section.skipped);
  for (std::size_t i = 0; i < section.threads.size(); ++i) {
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}", section.threads[i]);
  }
  out += "],\"names\":[";
  for (std::size_t i = 0; i < section.names.size(); ++i) {
    if (i) out.push_back(',');
    append_string(out, section.names[static_cast<NameId>(i)]);
  }
  Nanoseconds origin = std::numeric_limits<Nanoseconds>::max();
  for (const Record& r : section.records) origin = std::min(origin, r.start_ns);
  out += "],\"records\":[";
  bool first = true;
  for (std::uint32_t i : section.order_by_sequence()) {
    const Record& r = section.records[i];
    out += first ? "\n[" : ",\n[";
    first = false;
    const long long parent = r.parent == kNoParent ? -1 : static_cast<long long>(r.parent);
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{}]", r.sequence, parent,
                   r.thread, r.depth, r.name, r.kernel, r.start_ns - origin, r.inclusive_ns,
                   r.self_ns, r.flags);
  }
  out += "]";
  if (!section.records.empty() && section.metrics.size() == section.records.size()) {
    // Parallel to "records": per record its metric numbers in the order of
    // the page's "metrics"."fields", -1 when not measured.
    out += ",\"metrics\":[";
    first = true;
    for (std::uint32_t i : section.order_by_sequence()) {
      const RecordMetrics& m = section.metrics[i];
      out += first ? "\n[" : ",\n[";
      first = false;
      for (const detail::MetricNumberField& f : detail::kMetricNumberFields) {
        fmt::format_to(std::back_inserter(out), "{},", m.*f.member);
      }
      fmt::format_to(std::back_inserter(out), "{}]", m.ir_flags);
    }
    out += "]";
  }
  out += "}";
}

/// The profile's metrics: those recorded, those unavailable with the
/// reason, and the names of the numbers of each section's metric arrays.
void append_metrics(std::string& out, const ProfileMetrics& metrics) {
  out += ",\n\"metrics\":{";
  detail::append_metrics_lists(out, metrics, &append_string);
  out += ",\"fields\":[";
  for (const detail::MetricNumberField& f : detail::kMetricNumberFields) {
    append_string(out, f.key);
    out += ',';
  }
  out += "\"ir_flags\"]}";
}

/// The compile's phases as the page's script reads them: one array a phase,
/// [name, detail, parent (-1 for a root), thread, start (ns from the first
/// phase's start), duration, CPU (-1 when not measured), flags].
void append_phases(std::string& out, const std::vector<Phase>& phases) {
  Nanoseconds origin = std::numeric_limits<Nanoseconds>::max();
  for (const Phase& p : phases) origin = std::min(origin, p.start_ns);
  out += ",\n\"phases\":[";
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    out += i ? ",\n[" : "\n[";
    append_string(out, p.name);
    out += ',';
    append_string(out, p.detail);
    const long long parent = p.parent == kNoPhase ? -1 : static_cast<long long>(p.parent);
    fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},{}]", parent, p.thread,
                   p.start_ns - origin, p.duration_ns, p.cpu_ns, p.flags);
  }
  out += ']';
}

std::string page_data(const Profile& profile, const HtmlOptions& options) {
  std::string out = "{\"title\":";
  append_string(out, options.title);
  fmt::format_to(std::back_inserter(out), ",\"top_n\":{},\"metadata\":{{", options.top_n);
  detail::append_metadata_members(out, profile.metadata, &append_string);
  out += '}';
  // Absent without metrics, so such a profile's page is what it always was.
  if (!profile.metrics.empty()) append_metrics(out, profile.metrics);
  // Likewise absent without phases.
  if (!profile.phases.empty()) append_phases(out, profile.phases);
  out += ",\n\"sections\":[";
  for (std::size_t i = 0; i < profile.sections.size(); ++i) {
    if (i) out += ",\n";
    append_section(out, profile.sections[i]);
  }
  out += "]}";
  return out;
}

}  // namespace

std::string render_html_report(const Profile& profile, const HtmlOptions& options) {
  std::string out;
  out.reserve(detail::kReportCss.size() + detail::kReportJs.size() + 4096 +
              64 * profile.record_count());
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Only the page's own style and script, named by hash, may apply or run:
  // no network, no inline handler, nothing a crafted pass name could add.
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src ";
  out += csp_hash(detail::kReportCssSha256);
  out += "; script-src ";
  out += csp_hash(detail::kReportJsSha256);
  out += "; base-uri 'none'; form-action 'none'\">\n";
  out += "<title>" + escape_html(options.title) + "</title>\n<style>";
  out += detail::kReportCss;
  out += "</style>\n</head>\n<body>\n<main id=\"app\"></main>\n";
  out += "<script type=\"application/json\" id=\"passtiming-data\">";
  out += page_data(profile, options);
  out += "</script>\n<script>";
  out += detail::kReportJs;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace passtiming
