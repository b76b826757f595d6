#pragma once
/// \file
/// The text report, exactly as TileLang's Python module prints it
/// (docs/report-format.md holds the contract).

#include <optional>
#include <string>
#include <string_view>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/output_file.h"

namespace passtiming {

/// How a source's reports look. The default is upstream TileLang's report,
/// byte for byte, which the TileLang and TVM sources print. Other compilers'
/// reports get a neutral title, and rank their top passes by self time:
/// their pass managers and adaptors run every other pass, so by inclusive
/// time they would fill the list.
struct ReportStyle {
  std::string_view title = "TileLang Pass Timing Report";
  /// The line of a section without records.
  std::string_view no_passes = "[tilelang pass timing] No passes recorded.";
  bool top_by_self = false;
};

/// The style of the reports of `source` (ProfileMetadata::source): the
/// default for "" (TileLang, TVM), "Pass Timing Report" ranked by self time
/// for any other.
ReportStyle report_style(std::string_view source);

/// The style of one section of `profile`: by its origin's source when it was
/// merged from another profile, else by the profile's.
ReportStyle report_style(const Profile& profile, const Section& section);

/// The report of one section, by default upstream's "TileLang Pass Timing
/// Report". `threshold_ms` hides
/// records whose inclusive time is below it (0 shows all); `context` adds the
/// context line when given and not empty, as Python's truthiness has it.
///
///     std::string text = render_report(section, /*threshold_ms=*/10.0, "stage=lower");
std::string render_report(const Section& section, double threshold_ms,
                          std::optional<std::string_view> context, ReportStyle style = {});

/// The report of a compile session: every section's report, each with its own
/// context label and style, in the order the contexts ran, joined by one
/// empty line. A section merged from another profile (Section::origin) says
/// which on a `From:` line under its context.
std::string render_session_report(const Profile& profile, double threshold_ms);

/// render_report() and render_session_report(), handed to `sink` in pieces
/// of about 64 KiB: a report of a million records (about 90 MB) is then
/// written without ever being whole in memory.
///
///     passtiming::OutputFile out("-");
///     passtiming::write_session_report(profile, 0.0, out.sink());
///     out.commit();
void write_report(const Section& section, double threshold_ms,
                  std::optional<std::string_view> context, const TextSink& sink,
                  ReportStyle style = {});
void write_session_report(const Profile& profile, double threshold_ms, const TextSink& sink);

/// The metrics of one section's records (metrics.h) as a table, for when a
/// user asks for them (`passtiming report --metrics`): the seed's report
/// stays as it is, and this table follows it. Rows are the seed report's
/// visible rows with the same numbers and indentation; one column per
/// recorded figure (CPU inclusive, self and CPU/wall; RSS at start, end and
/// peak in MiB; IR size before and after and whether the pass changed it;
/// instructions inclusive and self); "-" where a value was not measured.
/// Metrics asked for but unavailable are named under the heading with the
/// reason. No newline after the last line.
std::string render_metrics_table(const Section& section, const ProfileMetrics& metrics,
                                 double threshold_ms);

/// Makes a name, kernel label or context safe to print on a terminal: control
/// characters and bytes that are not UTF-8 become `\xNN` (C1 controls
/// `\u0080`..`\u009f`, a backslash stays a backslash). Text without such
/// characters comes back unchanged, so reports of ordinary names are the
/// seed's byte for byte.
std::string escape_for_terminal(std::string_view text);

}  // namespace passtiming
