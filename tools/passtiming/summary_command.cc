#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/analysis/aggregate.h"
#include "passtiming/analysis/phase_totals.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "phase_text.h"
#include "profile_inputs.h"
#include "summary_text.h"

namespace passtiming::cli {
namespace {

struct SummaryOptions {
  std::vector<std::string> inputs;
  std::string by = "pass";
  std::size_t top = 0;
  std::string threshold = "0";
  std::string format = "text";
  std::string output = "-";
  /// "auto": CPU time when every input recorded it, else wall time.
  std::string measure = "auto";
};

std::string render_json(const std::vector<AggregateRow>& rows, const Aggregator& agg,
                        std::size_t hidden, const PhaseTotals& phases) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"by\":\"{}\",\"profiles\":{},\"total_self_ns\":{},\"hidden_rows\":{},",
                 group_by_name(agg.group_by()), agg.profiles(), agg.total_self_ns(), hidden);
  // Wall time keeps the original members; another measure is named, and
  // the `_ns` members then hold its values in its unit.
  if (agg.measure() != Measure::wall) {
    fmt::format_to(it, "\"measure\":\"{}\",\"unit\":\"{}\",", measure_name(agg.measure()),
                   measure_unit(agg.measure()));
  }
  out += "\"rows\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AggregateRow& r = rows[i];
    out += i ? ",\n" : "\n";
    out += "{\"key\":";
    append_json_string(out, r.key);
    const std::span<const GroupKey> keys = agg.group_by().keys();
    if (keys.size() > 1) {
      // Each key's value, for readers that would otherwise split "key".
      out += ",\"keys\":{";
      for (std::size_t k = 0; k < keys.size() && k < r.keys.size(); ++k) {
        if (k) out += ',';
        append_json_string(out, group_key_name(keys[k]));
        out += ':';
        append_json_string(out, r.keys[k]);
      }
      out += '}';
    }
    fmt::format_to(it,
                   ",\"executions\":{},\"total_inclusive_ns\":{},\"total_self_ns\":{},"
                   "\"mean_self_ns\":{},\"p50_self_ns\":{},\"p95_self_ns\":{},\"max_self_ns\":{},"
                   "\"self_share\":{}}}",
                   r.executions, r.total_inclusive_ns, r.total_self_ns, r.mean_self_ns,
                   r.p50_self_ns, r.p95_self_ns, r.max_self_ns, r.self_share);
  }
  out += "\n]";
  // Absent when no input recorded phases: such a summary reads as before.
  out += render_phase_totals_json(phases);
  out += "}\n";
  return out;
}

/// Wall and CPU self time of the records that measured both: what tells
/// waiting from working.
struct WallAndCpu {
  std::int64_t wall_ns = 0;
  std::int64_t cpu_ns = 0;

  void add(const Profile& profile) {
    for (const Section& section : profile.sections) {
      if (section.metrics.size() != section.records.size()) continue;
      for (std::size_t i = 0; i < section.records.size(); ++i) {
        if (section.metrics[i].cpu_self_ns == kNotMeasured) continue;
        wall_ns += section.records[i].self_ns;
        cpu_ns += section.metrics[i].cpu_self_ns;
      }
    }
  }

  /// A note when the passes' wall time is more than 1.5 times their CPU
  /// time, by more than 10 ms: the compiles waited for a processor (a
  /// parallel build, a busy machine), and the waits landed in whichever pass
  /// was running. Empty otherwise.
  std::string note() const {
    if (cpu_ns <= 0 || wall_ns * 2 <= cpu_ns * 3 || wall_ns - cpu_ns <= 10'000'000) return {};
    return fmt::format(
        "passtiming summary: note: the passes' wall time is {:.1f}x their CPU time ({:.3f} s "
        "against {:.3f} s): the compiles waited for a processor (a parallel build, a busy "
        "machine), and the waits count in whichever pass was running; --measure cpu ranks by "
        "the work done",
        static_cast<double>(wall_ns) / static_cast<double>(cpu_ns), wall_ns / 1e9, cpu_ns / 1e9);
  }
};

}  // namespace

Action add_summary_command(CLI::App& app) {
  auto options = std::make_shared<SummaryOptions>();
  CLI::App* sub = app.add_subcommand(
      "summary",
      "Aggregate any number of profiles and event logs per pass, kernel, context or file, or any "
      "combination of them: runs, total inclusive and self time, mean/p50/p95/max self time, "
      "share of self time");
  sub->add_option("FILE", options->inputs, "JSON profiles or event logs ('-' reads stdin)")
      ->required();
  sub->add_option("--by", options->by,
                  "group by pass (default), kernel, context (for clang: the translation unit) or "
                  "file (the profile), or several joined by commas: pass,kernel")
      ->type_name("KEY[,KEY...]")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            if (parse_group_by(text)) return {};
            return "'" + text +
                   "' is not a grouping: pass, kernel, context or file, or several of them "
                   "joined by commas, each once";
          },
          "", "GROUPING"));
  sub->add_option("--top", options->top, "show only the N rows with the most self time (0 = all)");
  sub->add_option("--threshold-ms", options->threshold,
                  "hide rows whose total inclusive time is under this many milliseconds")
      ->type_name("MS")
      ->check(non_negative_number());
  sub->add_option("--format", options->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_option("-o,--output", options->output, "output file (default '-': stdout)");
  sub->add_option("--measure", options->measure,
                  "what to aggregate: auto (default: CPU self time when every input recorded "
                  "it, else wall self time), wall, or a recorded metric: cpu, instructions, rss "
                  "(growth), ir (growth)")
      ->check(CLI::IsMember({"auto", "wall", "cpu", "instructions", "rss", "ir"}));

  return [options]() -> int {
    double threshold_ms = 0;
    if (!parse_number_option(options->threshold, "--threshold-ms", threshold_ms)) return kExitUsage;
    // By default both are aggregated, and CPU time shown when every input
    // recorded it: wall time also counts the waits for a processor.
    const bool automatic = options->measure == "auto";
    const Measure measure = automatic ? Measure::wall : *parse_measure(options->measure);
    const GroupBy by = *parse_group_by(options->by);
    Aggregator wall_agg(by, measure);
    std::optional<Aggregator> cpu_agg;
    if (automatic) cpu_agg.emplace(by, Measure::cpu);
    WallAndCpu wall_and_cpu;
    PhaseTotals phases;
    try {
      std::size_t index = 0;
      for_each_profile(options->inputs, [&](Profile&& profile) {
        const std::string_view file =
            index < options->inputs.size() ? std::string_view(options->inputs[index]) : "-";
        ++index;
        if (cpu_agg && !profile_has_measure(profile, Measure::cpu)) cpu_agg.reset();
        if (!profile_has_measure(profile, measure)) {
          throw std::runtime_error(fmt::format(
              "passtiming summary: {} did not record the metric '{}' that --measure {} needs "
              "({})",
              file, measure_name(measure), measure_name(measure),
              missing_measure_advice(profile.metrics, measure)));
        }
        wall_agg.add(profile, file);
        if (cpu_agg) cpu_agg->add(profile, file);
        if (measure == Measure::wall) wall_and_cpu.add(profile);
        phases.add(profile);
      });
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    const Aggregator& agg = cpu_agg ? *cpu_agg : wall_agg;
    std::vector<AggregateRow> rows = agg.rows();
    const std::size_t all = rows.size();
    // A change's size, growth or shrinking, is what the threshold weighs.
    std::erase_if(rows, [&](const AggregateRow& r) {
      return std::abs(static_cast<double>(r.total_inclusive_ns)) < threshold_ms * 1e6;
    });
    if (options->top > 0 && rows.size() > options->top) rows.resize(options->top);
    const std::size_t hidden = all - rows.size();
    std::string text = options->format == "json"
                           ? render_json(rows, agg, hidden, phases)
                           : render_summary_text(rows, agg, hidden, threshold_ms);
    if (options->format != "json" && !phases.empty()) {
      text += "\n";
      text += render_phase_totals_text(phases);
    }
    try {
      write_output(options->output, text);
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    if (const std::string note = wall_and_cpu.note(); !note.empty() && !cpu_agg) {
      std::fprintf(stderr, "%s\n", note.c_str());
    }
    return kExitOk;
  };
}

}  // namespace passtiming::cli
