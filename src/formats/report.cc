#include "passtiming/formats/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "text_writing.h"

namespace passtiming {
namespace {

constexpr std::size_t kMinNameWidth = 43;
constexpr std::size_t kTopN = 10;

/// The `From:` line's text: the profile file a merged section came from,
/// and the process and host that recorded it.
std::string origin_text(const SectionOrigin& origin) {
  std::string text = origin.file.empty() ? origin.metadata.command : origin.file;
  const ProfileMetadata& m = origin.metadata;
  if (m.pid != 0 || !m.host.empty()) {
    text += text.empty() ? "" : " ";
    text += "(";
    if (m.pid != 0) text += fmt::format("pid {}", m.pid);
    if (m.pid != 0 && !m.host.empty()) text += " on ";
    text += m.host;
    text += ")";
  }
  return text;
}

/// Code points of valid UTF-8 (every escaped string is valid UTF-8).
std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

/// Length of the UTF-8 sequence starting at text[i], or 0 when it is not a
/// well-formed one (overlong forms, surrogates and values past U+10FFFF are
/// rejected, as Python's decoder rejects them).
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& cp) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  std::size_t len;
  std::uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    unsigned char d = byte(i + k);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/// The numeric cells of a table line are built in a small stack buffer and
/// appended to the report in one piece; it grows on the heap only for the
/// absurd values ({fmt}'s slow path) that need more room.
using CellBuffer = fmt::memory_buffer;

void append_spaces(CellBuffer& out, std::size_t count) {
  static constexpr std::string_view kSpaces = "                                ";
  for (; count > kSpaces.size(); count -= kSpaces.size()) out.append(kSpaces);
  out.append(kSpaces.substr(0, count));
}

/// Appends `value` right-aligned in `width` characters.
void append_right(CellBuffer& out, std::string_view value, std::size_t width) {
  if (value.size() < width) append_spaces(out, width - value.size());
  out.append(value);
}

/// `{seconds:>W.4f}` for a duration in nanoseconds, without going through
/// the floating-point formatter when the answer is certain: the double
/// `ns / 1e9` lies within half an ulp (< 1e-9 s below 46 days) of the exact
/// decimal, and a rounding boundary (an odd multiple of 50 µs) is at least
/// 1 ns away unless `ns` sits on it, so rounding the integer gives the same
/// digits as rounding the double. On a boundary, or for huge values, {fmt}
/// decides from the exact binary value, as Python does.
void append_seconds(CellBuffer& out, Nanoseconds ns, std::size_t width) {
  constexpr Nanoseconds kExactLimit = 4'000'000'000'000'000;  // 46 days: half an ulp < 1 ns
  if (ns < 0 || ns >= kExactLimit || ns % 100'000 == 50'000) {
    fmt::format_to(fmt::appender(out), "{:>{}.4f}", to_seconds(ns), width);
    return;
  }
  const auto ticks = static_cast<std::uint64_t>((ns + 50'000) / 100'000);  // units of 0.1 ms
  char buffer[32];
  char* end = detail::put_int(buffer, ticks / 10'000);
  const auto frac = static_cast<unsigned>(ticks % 10'000);
  *end++ = '.';
  *end++ = static_cast<char>('0' + frac / 1000);
  *end++ = static_cast<char>('0' + frac / 100 % 10);
  *end++ = static_cast<char>('0' + frac / 10 % 10);
  *end++ = static_cast<char>('0' + frac % 10);
  append_right(out, std::string_view(buffer, static_cast<std::size_t>(end - buffer)), width);
}

/// `{percent:>W.1f}` with the same shortcut: when ten times the value is not
/// within 1e-6 of a rounding boundary (the double's own error is below
/// 1e-12 there), rounding it gives Python's digits; otherwise {fmt} decides.
void append_percent(CellBuffer& out, double percent, std::size_t width) {
  const double tenths = percent * 10;
  const double floor = std::floor(tenths);
  const double fraction = tenths - floor;
  if (!(tenths >= 0 && tenths < 1e12) || std::abs(fraction - 0.5) < 1e-6) {
    fmt::format_to(fmt::appender(out), "{:>{}.1f}", percent, width);
    return;
  }
  const auto rounded = static_cast<std::uint64_t>(floor) + (fraction > 0.5 ? 1 : 0);
  char buffer[32];
  char* end = detail::put_int(buffer, rounded / 10);
  *end++ = '.';
  *end++ = static_cast<char>('0' + rounded % 10);
  append_right(out, std::string_view(buffer, static_cast<std::size_t>(end - buffer)), width);
}

/// A pass or kernel name prepared for the table: escaped, with its width.
struct Label {
  std::string text;
  std::size_t width = 0;
};

class ReportWriter {
 public:
  /// With a sink, the text goes there in pieces of about kTextPieceBytes;
  /// without one, render() returns it whole.
  ReportWriter(const Section& section, double threshold_ms, std::optional<std::string_view> context,
               ReportStyle style, const TextSink* sink = nullptr)
      : section_(section),
        threshold_ms_(threshold_ms),
        threshold_s_(threshold_ms / 1000.0),
        context_(context),
        style_(style),
        sink_(sink) {
    labels_.resize(section.names.size());
    for (std::size_t id = 0; id < labels_.size(); ++id) {
      labels_[id].text = escape_for_terminal(section.names[static_cast<NameId>(id)]);
      labels_[id].width = code_points(labels_[id].text);
    }
  }

  std::string render() {
    const double total = section_.total_seconds();
    const Layout layout = measure();
    const std::size_t visible_count = section_.records.size() - layout.hidden_count;
    out_.reserve(sink_ ? kTextPieceBytes + 2 * layout.rule + 256
                       : 256 + (visible_count + kTopN) * (layout.rule + 8));
    write_header(layout, total);
    write_rows(layout.width, total);
    line(std::string(layout.rule, '-'));
    if (layout.ranked_count > 0) write_slowest(layout, total);
    if (layout.hidden_count > 0) {
      fmt::format_to(std::back_inserter(out_),
                     "\n({} passes skipped - under {:.1f}ms inclusive threshold)\n",
                     layout.hidden_count, threshold_ms_);
    }
    out_.append(layout.rule, '=');
    if (sink_) {
      (*sink_)(out_);
      out_.clear();
    }
    return std::move(out_);
  }

 private:
  /// The table's geometry: the name column's width, the rules', and how
  /// many rows are hidden and ranked.
  struct Layout {
    std::size_t width = kMinNameWidth;
    std::size_t rule = 0;
    std::size_t hidden_count = 0;
    std::size_t ranked_count = 0;
  };

  // The seed hides a row when its time is under the threshold, but sizes
  // the name column and ranks the top 10 over the rows at or above it. The
  // two differ only for a NaN threshold: every row shown, none ranked.
  bool hidden(const Record& r) const { return to_seconds(r.inclusive_ns) < threshold_s_; }
  bool ranked(const Record& r) const { return to_seconds(r.inclusive_ns) >= threshold_s_; }

  Layout measure() const {
    Layout layout;
    for (const Record& r : section_.records) {
      if (hidden(r)) ++layout.hidden_count;
      if (!ranked(r)) continue;
      ++layout.ranked_count;
      layout.width = std::max(layout.width, 2 * std::size_t{r.depth} + display_width(r));
    }
    layout.rule = layout.width + 53;
    return layout;
  }

  /// The title, the context, the total and the threshold, and the column
  /// heads between rules.
  void write_header(const Layout& layout, double total) {
    line(std::string(layout.rule, '='));
    line(style_.title);
    if (context_) line("Context: " + escape_for_terminal(*context_));
    if (!section_.origin.empty())
      line("From: " + escape_for_terminal(origin_text(section_.origin)));
    line(std::string(layout.rule, '='));
    fmt::format_to(std::back_inserter(out_), "Total: {:.4f}s ({} passes)\n", total,
                   section_.records.size());
    if (threshold_ms_ > 0) {
      fmt::format_to(std::back_inserter(out_), "(inclusive threshold: {:.1f}ms)\n", threshold_ms_);
    }
    line(std::string(layout.rule, '-'));
    fmt::format_to(std::back_inserter(out_), "{:>3}  ", "#");
    padded("Pass Name", 9, layout.width);
    fmt::format_to(std::back_inserter(out_), " {:>10} {:>10}  {:>7} {:>7}\n", "Inclusive", "Self",
                   "Incl %", "Self %");
    line(std::string(layout.rule, '-'));
  }

  /// One row per record not hidden, in the order the passes started,
  /// indented by depth; handed to the sink every kTextPieceBytes.
  void write_rows(std::size_t width, double total) {
    const auto& records = section_.records;
    const std::vector<std::uint32_t> order = section_.order_by_sequence();
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Record& r = records[order[i]];
      if (hidden(r)) continue;
      const std::size_t indent = 2 * std::size_t{r.depth};
      CellBuffer cells;
      char index[24];
      append_right(cells, std::string_view(index, detail::put_int(index, i + 1) - index), 3);
      append_spaces(cells, 2 + indent);
      out_.append(cells.data(), cells.size());
      display(r, width - std::min(width, indent));
      cells.clear();
      cells.push_back(' ');
      append_seconds(cells, r.inclusive_ns, 9);
      cells.append(std::string_view("s "));
      append_seconds(cells, r.self_ns, 9);
      cells.append(std::string_view("s "));
      append_percent(cells, percent(to_seconds(r.inclusive_ns), total), 6);
      cells.append(std::string_view("% "));
      append_percent(cells, percent(to_seconds(r.self_ns), total), 6);
      cells.append(std::string_view("%\n"));
      out_.append(cells.data(), cells.size());
      if (sink_ && out_.size() >= kTextPieceBytes) {
        (*sink_)(out_);
        out_.clear();
      }
    }
  }

  /// The top kTopN ranked records by inclusive time, or by self time in a
  /// style that says so.
  void write_slowest(const Layout& layout, double total) {
    const std::vector<std::uint32_t> top = slowest(layout.ranked_count, threshold_s_);
    fmt::format_to(std::back_inserter(out_), "Top {} Slowest Passes by {} Time:\n", top.size(),
                   style_.top_by_self ? "Self" : "Inclusive");
    for (std::size_t rank = 0; rank < top.size(); ++rank) {
      const Record& r = section_.records[top[rank]];
      fmt::format_to(std::back_inserter(out_), "  {:>2}. ", rank + 1);
      display(r, layout.width + 2);
      const double time = to_seconds(ranked_time(r));
      fmt::format_to(std::back_inserter(out_), " {:>9.4f}s {:>5.1f}%\n", time,
                     percent(time, total));
    }
  }

  /// What the top list ranks by.
  Nanoseconds ranked_time(const Record& r) const {
    return style_.top_by_self ? r.self_ns : r.inclusive_ns;
  }

  static double percent(double value, double total) {
    return total > 0 ? value / total * 100 : 0.0;
  }

  void line(std::string_view text) {
    out_.append(text);
    out_.push_back('\n');
  }

  void padded(std::string_view text, std::size_t text_width, std::size_t width) {
    out_.append(text);
    if (text_width < width) out_.append(width - text_width, ' ');
  }

  std::size_t display_width(const Record& r) const {
    std::size_t w = labels_[r.name].width;
    if (r.kernel != 0) w += labels_[r.kernel].width + 2;
    return w;
  }

  /// Appends `name` or `name(kernel)`, left-aligned in `width` code points.
  void display(const Record& r, std::size_t width) {
    out_.append(labels_[r.name].text);
    if (r.kernel != 0) {
      out_.push_back('(');
      out_.append(labels_[r.kernel].text);
      out_.push_back(')');
    }
    const std::size_t w = display_width(r);
    if (w < width) out_.append(width - w, ' ');
  }

  /// The visible records with the longest inclusive time, longest first;
  /// equal times keep completion order, as Python's stable sort keeps them.
  std::vector<std::uint32_t> slowest(std::size_t visible_count, double threshold_s) const {
    const auto& records = section_.records;
    std::vector<std::uint32_t> candidates;
    candidates.reserve(visible_count);
    for (std::uint32_t i = 0; i < records.size(); ++i) {
      if (to_seconds(records[i].inclusive_ns) >= threshold_s) candidates.push_back(i);
    }
    const std::size_t k = std::min(kTopN, candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k),
                      candidates.end(), [&](std::uint32_t a, std::uint32_t b) {
                        const double da = to_seconds(ranked_time(records[a]));
                        const double db = to_seconds(ranked_time(records[b]));
                        return da != db ? da > db : a < b;
                      });
    candidates.resize(k);
    return candidates;
  }

  const Section& section_;
  double threshold_ms_;
  double threshold_s_;
  std::optional<std::string_view> context_;
  ReportStyle style_;
  const TextSink* sink_;
  std::vector<Label> labels_;
  std::string out_;
};

}  // namespace

std::string escape_for_terminal(std::string_view text) {
  auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x7F; };
  if (std::all_of(text.begin(), text.end(),
                  [&](char c) { return plain(static_cast<unsigned char>(c)); })) {
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (plain(c)) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c < 0x80) {  // C0 control or DEL
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t len = utf8_sequence(text, i, cp);
    if (len == 0) {  // not UTF-8: show the byte
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
    } else if (cp <= 0x9F) {  // C1 control
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", cp);
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

namespace {

std::string no_passes_line(const Section& section, std::optional<std::string_view> context,
                           const ReportStyle& style) {
  std::string line(style.no_passes);
  if (context) line += " Context: " + escape_for_terminal(*context);
  if (!section.origin.empty()) line += " From: " + escape_for_terminal(origin_text(section.origin));
  return line;
}

}  // namespace

ReportStyle report_style(std::string_view source) {
  if (source.empty()) return {};
  return {.title = "Pass Timing Report",
          .no_passes = "[passtiming] No passes recorded.",
          .top_by_self = true};
}

ReportStyle report_style(const Profile& profile, const Section& section) {
  return report_style(section.origin.empty() ? profile.metadata.source
                                             : section.origin.metadata.source);
}

std::string render_report(const Section& section, double threshold_ms,
                          std::optional<std::string_view> context, ReportStyle style) {
  if (context && context->empty()) context.reset();
  if (section.records.empty()) return no_passes_line(section, context, style);
  return ReportWriter(section, threshold_ms, context, style).render();
}

void write_report(const Section& section, double threshold_ms,
                  std::optional<std::string_view> context, const TextSink& sink,
                  ReportStyle style) {
  if (context && context->empty()) context.reset();
  if (section.records.empty()) {
    sink(no_passes_line(section, context, style));
    return;
  }
  ReportWriter(section, threshold_ms, context, style, &sink).render();
}

void write_session_report(const Profile& profile, double threshold_ms, const TextSink& sink) {
  if (profile.sections.empty()) {
    sink(report_style(profile.metadata.source).no_passes);
    return;
  }
  for (std::size_t i = 0; i < profile.sections.size(); ++i) {
    if (i > 0) sink("\n\n");
    const Section& section = profile.sections[i];
    write_report(section, threshold_ms, section.context, sink, report_style(profile, section));
  }
}

std::string render_session_report(const Profile& profile, double threshold_ms) {
  std::string out;
  write_session_report(profile, threshold_ms, [&out](std::string_view text) { out += text; });
  return out;
}

}  // namespace passtiming
