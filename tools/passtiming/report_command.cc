#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::cli {
namespace {

/// After the passes' report, never inside it (that one stays the seed's):
/// the phase table, after an empty line, when the profile has phases.
void write_phase_table(const Profile& profile, OutputFile& out) {
  if (profile.phases.empty()) return;
  out.write("\n");
  out.write(render_phase_table(profile.phases));
}

}  // namespace

Action add_report_command(CLI::App& app) {
  struct Options {
    std::string input;
    std::string threshold = "0";
    std::string format = "text";
    std::string output = "-";
    bool metrics = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "report", "Print the seed-format report of a JSON profile or an event log ('-' reads stdin)");
  sub->add_option("EVENTS", options->input, "JSON profile or JSON Lines event log")->required();
  sub->add_option("--threshold-ms", options->threshold,
                  "hide passes whose inclusive time is under this many milliseconds")
      ->type_name("MS")
      ->check(non_negative_number());
  sub->add_option("--format", options->format,
                  "text (the seed's report, default) or json (the input as a JSON profile)")
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_option("-o,--output", options->output, "output file (default '-': stdout)");
  sub->add_flag("--metrics", options->metrics,
                "after each section's report, a table of the metrics its passes recorded "
                "(PASSTIMING_METRICS)");

  return [options]() -> int {
    double threshold = 0;
    try {
      threshold = parse_threshold_ms(options->threshold, "--threshold-ms");
    } catch (const ConfigError& e) {
      std::fprintf(stderr, "passtiming report: %s\n", e.what());
      return kExitUsage;
    }
    try {
      // A JSON profile or an event log, told apart by content.
      const Profile profile = load_profile(options->input);
      // Streamed: a report of a million records is never whole in memory.
      OutputFile out(options->output);
      if (options->format == "json") {
        write_profile_json(profile, out.sink());
      } else if (options->metrics) {
        if (profile.metrics.empty()) {
          std::fprintf(stderr,
                       "passtiming report: %s recorded no metrics (record them with "
                       "PASSTIMING_METRICS=cpu,rss,ir,instructions)\n",
                       options->input.c_str());
          return kExitUsage;
        }
        for (std::size_t i = 0; i < profile.sections.size(); ++i) {
          const Section& section = profile.sections[i];
          if (i) out.write("\n\n");
          out.write(
              render_report(section, threshold, section.context, report_style(profile, section)));
          out.write("\n");
          out.write(render_metrics_table(section, profile.metrics, threshold));
        }
        out.write("\n");
        write_phase_table(profile, out);
      } else {
        write_session_report(profile, threshold, out.sink());
        out.write("\n");
        write_phase_table(profile, out);
      }
      out.commit();
      return kExitOk;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return kExitUsage;
    }
  };
}

}  // namespace passtiming::cli
