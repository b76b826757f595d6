#include "phase_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace passtiming::cli {

std::string render_phase_totals_text(const PhaseTotals& totals) {
  if (totals.empty()) return {};
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Phases ({} of {} profiles recorded phases)\n", totals.profiles_with_phases(),
                 totals.profiles());
  const std::vector<PhaseTotal> rows = totals.rows();
  std::vector<std::string> labels;
  // The whole path is the row's key (in diff as here), so it is never cut:
  // the column widens to the longest.
  std::size_t width = 48;
  for (const PhaseTotal& row : rows) {
    std::string label = escape_for_terminal(row.path);
    if (row.failed) label += "  [failed]";
    width = std::max(width, label.size());
    labels.push_back(std::move(label));
  }
  fmt::format_to(it, "{:<{}} {:>10} {:>7} {:>6}\n", "Phase", width, "Time (s)", "Share", "Count");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PhaseTotal& row = rows[i];
    fmt::format_to(it, "{:<{}} {:>10.4f} {:>6.1f}% ", labels[i], width, to_seconds(row.total_ns),
                   row.share * 100.0);
    if (row.untimed) {
      fmt::format_to(it, "{:>6}\n", "");
    } else {
      fmt::format_to(it, "{:>6}\n", row.count);
    }
  }
  return out;
}

std::string render_phase_totals_json(const PhaseTotals& totals) {
  if (totals.empty()) return {};
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, ",\"phases\":{{\"profiles_with_phases\":{},\"root_ns\":{},\"rows\":[",
                 totals.profiles_with_phases(), totals.root_ns());
  bool first = true;
  for (const PhaseTotal& row : totals.rows()) {
    out += first ? "\n{\"path\":" : ",\n{\"path\":";
    first = false;
    append_json_string(out, row.path);
    fmt::format_to(it, ",\"depth\":{},\"total_ns\":{},\"share\":{},\"count\":{}", row.depth,
                   row.total_ns, row.share, row.count);
    if (row.untimed) out += ",\"untimed\":true";
    if (row.failed) out += ",\"failed\":true";
    out += '}';
  }
  out += "\n]}";
  return out;
}

}  // namespace passtiming::cli
