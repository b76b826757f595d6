#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "commands.h"
#include "passtiming/errors.h"
#include "passtiming/event_log.h"
#include "passtiming/report.h"
#include "passtiming/settings.h"

namespace passtiming::cli {

Action add_report_command(CLI::App& app) {
  struct Options {
    std::string input;
    std::string threshold = "0";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "report", "Print the seed-format report of an event log ('-' reads stdin)");
  sub->add_option("EVENTS", options->input, "JSON Lines event log")->required();
  sub->add_option("--threshold-ms", options->threshold,
                  "hide passes whose inclusive time is under this many milliseconds");

  return [options]() -> int {
    double threshold = 0;
    try {
      threshold = parse_threshold_ms(options->threshold, "--threshold-ms");
    } catch (const ConfigError& e) {
      std::fprintf(stderr, "passtiming report: %s\n", e.what());
      return kExitUsage;
    }
    try {
      Profile profile;
      if (options->input == "-") {
        profile = replay_event_log(std::cin, "<stdin>");
      } else {
        std::ifstream in(options->input, std::ios::binary);
        if (!in) {
          std::fprintf(stderr, "%s: cannot open file\n", options->input.c_str());
          return kExitUsage;
        }
        profile = replay_event_log(in, options->input);
      }
      std::string text = render_session_report(profile, threshold);
      text.push_back('\n');
      std::fwrite(text.data(), 1, text.size(), stdout);
      return std::fflush(stdout) == 0 ? kExitOk : kExitUsage;
    } catch (const InputError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return kExitUsage;
    }
  };
}

}  // namespace passtiming::cli
