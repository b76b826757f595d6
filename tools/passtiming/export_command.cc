// `passtiming export FILE... --to rows|phase-rows|otlp [--meta KEY=VALUE]...
// [--max-line-bytes N] [-o OUT]`: profiles (or event logs) as a fleet
// stores them: ClickHouse JSONEachRow rows, one per pass execution, or OTLP
// JSON spans in lines of bounded size (docs/fleet.md).

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/output_file.h"
#include "profile_inputs.h"

namespace passtiming::cli {

MetaPairs parse_meta_pairs(const std::vector<std::string>& texts) {
  MetaPairs pairs;
  for (const std::string& text : texts) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw ConfigError("--meta '" + text + "': expected KEY=VALUE");
    }
    pairs.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  return pairs;
}

Action add_export_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    std::string to;
    std::vector<std::string> meta;
    std::string output = "-";
    std::size_t max_line_bytes = kOtlpMaxLineBytes;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Write profiles as a fleet stores them: one JSON row per pass execution (ClickHouse "
      "JSONEachRow) or OpenTelemetry spans (OTLP JSON); see docs/fleet.md");
  sub->add_option("FILE", options->inputs, "JSON profiles or JSONL event logs ('-' reads stdin)")
      ->required();
  sub->add_option("--to", options->to,
                  "rows (a row per pass execution), phase-rows (a row per phase, for the phase "
                  "table) or otlp")
      ->required()
      ->check(CLI::IsMember({"rows", "phase-rows", "otlp"}));
  sub->add_option("--meta", options->meta,
                  "KEY=VALUE for every row (repeatable); run_id, tool, commit and build_id set "
                  "those columns, other keys go to meta_keys/meta_values");
  // The floor leaves room for the resource and a span of plain names; the
  // ceiling is far above any collector's buffer.
  CLI::Option* max_line_bytes =
      sub->add_option("--max-line-bytes", options->max_line_bytes,
                      "with --to otlp: the most bytes an output line takes, its newline "
                      "included (default 1048576, the OpenTelemetry Collector's otlpjsonfile "
                      "limit); the spans go on in as many lines as they need")
          ->check(CLI::Range(std::size_t{4096}, std::size_t{1} << 40));
  sub->add_option("-o,--output", options->output,
                  "output file, replaced atomically (default '-': stdout)");

  return [options, max_line_bytes]() -> int {
    if (max_line_bytes->count() > 0 && options->to != "otlp") {
      return input_failure("passtiming: --max-line-bytes applies to --to otlp only");
    }
    MetaPairs meta;
    try {
      meta = parse_meta_pairs(options->meta);
    } catch (const ConfigError& e) {
      return input_failure(e.what());
    }
    try {
      OutputFile out(options->output);
      const TextSink sink = out.sink();
      std::size_t input = 0;  // for_each_profile gives one profile an input, in order
      for_each_profile(options->inputs, [&](Profile&& profile) {
        const std::string& path = options->inputs[input++];
        const RunIdentity run = run_identity(profile.metadata, meta);
        if (options->to == "rows") {
          // What push refuses, export refuses: a row no table stores as is.
          check_rows(profile, path);
          // A merged profile's rows are its inputs' (fleet_runs).
          write_rows(profile, fleet_runs(profile, meta), sink);
        } else if (options->to == "phase-rows") {
          write_phase_rows(profile, run, sink);
        } else {
          try {
            write_otlp(profile, run, sink, options->max_line_bytes);
          } catch (const std::length_error& e) {
            // A span too large for a line: which of the inputs holds it.
            throw std::length_error(path + ": " + e.what());
          }
        }
      });
      out.commit();
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    return kExitOk;
  };
}

}  // namespace passtiming::cli
