#include "passtiming/formats/phase_report.h"

#include <fmt/format.h>

#include <iterator>

#include "passtiming/engine/phase.h"
#include "passtiming/engine/profile.h"

namespace passtiming {

std::string render_phase_table(const std::vector<Phase>& phases) {
  if (phases.empty()) return {};
  const std::vector<PhaseRow> rows = phase_table(phases);
  std::string out = "Phases\n";
  fmt::format_to(std::back_inserter(out), "{:<48} {:>10} {:>7} {:>6}\n", "Phase", "Time (s)",
                 "Share", "Count");
  for (const PhaseRow& row : rows) {
    std::string label(2 * row.depth, ' ');
    label += row.untimed ? "(untimed)" : row.name;
    if (!row.detail.empty()) label += "  " + row.detail;
    if (row.failed) label += "  [failed]";
    // A long label keeps its columns: it is cut, not the numbers.
    if (label.size() > 48) label = label.substr(0, 45) + "...";
    fmt::format_to(std::back_inserter(out), "{:<48} {:>10.4f} {:>6.1f}% ", label,
                   to_seconds(row.duration_ns), row.share * 100.0);
    if (row.untimed) {
      out += fmt::format("{:>6}\n", "");
    } else {
      fmt::format_to(std::back_inserter(out), "{:>6}\n", row.count);
    }
  }
  return out;
}

}  // namespace passtiming
