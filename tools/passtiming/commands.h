#pragma once
/// \file
/// The subcommands of the `passtiming` tool. Each registers itself on the
/// CLI11 app and returns the action to run once the arguments are parsed.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace passtiming::cli {

/// Exit statuses shared by every subcommand.
enum ExitStatus : int {
  kExitOk = 0,
  kExitRegression = 1,  ///< `diff` found a regression
  kExitUsage = 2,       ///< bad arguments or malformed input
  kExitIncomplete = 3,  ///< `push` could not store everything, or `pull` read nothing (server
                        ///< away or refusing)
};

/// What a subcommand runs after parsing; returns the exit status.
using Action = std::function<int()>;

/// The check of an option that takes a finite non-negative number (every
/// numeric option of the tool: milliseconds, percents, seconds, a rate;
/// each names its unit with type_name(), as --help lists it). CLI11 refuses
/// anything else while parsing, one usage line naming the option: "--min-ms:
/// must be a finite non-negative number (got 'x')". The rule is
/// parse_threshold_ms's.
CLI::Validator non_negative_number();

/// `passtiming report EVENTS.jsonl [--threshold-ms X]`
Action add_report_command(CLI::App& app);

/// `passtiming run [--threshold-ms X] [-o PROFILE] -- COMMAND…`: a compile
/// (or a build) with the LLVM pass plugin injected.
Action add_run_command(CLI::App& app);

/// `passtiming summary FILE... [--by pass|kernel|context] [--top N] [--threshold-ms X]`
Action add_summary_command(CLI::App& app);

/// `passtiming merge FILE... -o OUT`
Action add_merge_command(CLI::App& app);

/// `passtiming diff BASE NEW | --base FILE... --new FILE... [--fail-above PCT] [--min-ms X]`
Action add_diff_command(CLI::App& app);

/// `passtiming gate --base CMD --new CMD [--runs N] [--seed S] [--dir DIR] [--metrics M]`
/// and diff --gate's settings: both commands run alternately, then judged.
Action add_gate_command(CLI::App& app);

/// `passtiming convert INPUT --to chrome|html|json [-o OUT]`
Action add_convert_command(CLI::App& app);

/// `passtiming export FILE... --to rows|phase-rows|otlp [--meta KEY=VALUE]...
/// [--max-line-bytes N] [-o OUT]`
Action add_export_command(CLI::App& app);

/// `passtiming push FILE... --clickhouse URL... [--table T] [--create [--replicated]]
/// [--meta KEY=VALUE]... [--batch-rows N] [--connections N] [--retries N] [--timeout-s S]`,
/// or `push --print-schema [--replicated] [--table T]`: the rows of `export --to rows`
/// stored in ClickHouse, each pass execution once (passtiming/fleet/push.h).
Action add_push_command(CLI::App& app);

/// `passtiming pull --clickhouse URL... [--table T] [--run ID]... [--where SQL] [--last N]
/// [--timeout-s S] -o PATTERN`: runs read back out of the fleet's table into profile
/// files, one per run (passtiming/fleet/pull.h).
Action add_pull_command(CLI::App& app);

/// Parses `--meta KEY=VALUE` texts; throws ConfigError naming a bad one.
std::vector<std::pair<std::string, std::string>> parse_meta_pairs(
    const std::vector<std::string>& texts);

/// `path` with each `%` written `%%`, for a file pattern that `run` and the
/// compiles expand (%p, %n, %r).
std::string escape_percent(std::string_view path);

/// Runs the tool with `argv`; the process's main and the tests call this.
int run_cli(int argc, const char* const* argv);

}  // namespace passtiming::cli
