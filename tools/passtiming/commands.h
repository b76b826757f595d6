#pragma once
/// \file
/// The subcommands of the `passtiming` tool. Each registers itself on the
/// CLI11 app and returns the action to run once the arguments are parsed.

#include <CLI/CLI.hpp>

#include <functional>

namespace passtiming::cli {

/// Exit statuses shared by every subcommand.
enum ExitStatus : int {
  kExitOk = 0,
  kExitRegression = 1,  ///< `diff` found a regression
  kExitUsage = 2,       ///< bad arguments or malformed input
};

/// What a subcommand runs after parsing; returns the exit status.
using Action = std::function<int()>;

/// `passtiming report EVENTS.jsonl [--threshold-ms X]`
Action add_report_command(CLI::App& app);

/// Runs the tool with `argv`; the process's main and the tests call this.
int run_cli(int argc, const char* const* argv);

}  // namespace passtiming::cli
