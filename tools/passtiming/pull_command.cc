// `passtiming pull --clickhouse URL... [--table T] [--run ID]... [--where SQL]
// [--last N] [--timeout-s S] -o PATTERN`: runs read back out of the fleet's
// table into profile files, which diff --gate, summary and report read as
// any profile (docs/fleet.md#a-base-from-the-fleets-table). The statements
// are the fleet room's (passtiming/fleet/pull.h); this file reads the
// options, names the files and writes them.

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/fleet/pull.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/recorder/path_pattern.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

struct Options {
  std::vector<std::string> urls;
  std::string table = "pass_executions";
  std::vector<std::string> runs;
  std::string where;
  std::size_t last = 0;
  std::string timeout_s = "60";
  std::string output;
};

/// A run id as part of a file name: what is not a letter, digit, '.', '-'
/// or '_' becomes '_' (an id given with --meta run_id= may hold '/').
std::string file_safe(std::string_view id) {
  std::string out(id);
  for (char& c : out) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return out;
}

/// Throws ConfigError for a % of `pattern` that is not %r, %i or %%: the
/// file names of pull are the pattern's alone.
void check_pattern(std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (next != 'r' && next != 'i' && next != '%') {
      throw ConfigError(fmt::format(
          "-o '{}': '%{}' is not a pattern (%r: the run's index from 1, %i: its id, %%: a %)",
          pattern, next == '\0' ? std::string() : std::string(1, next)));
    }
    ++i;
  }
}

/// `pattern` (check_pattern) with %r (the run's index, from 1), %i (its id,
/// file_safe) and %% expanded.
std::string expand(std::string_view pattern, std::size_t index, std::string_view id) {
  return expand_placeholders(pattern, {{'r', std::to_string(index)}, {'i', file_safe(id)}});
}

int pull(const Options& options) {
  if (options.output.empty()) return input_failure("passtiming pull: -o PATTERN is required");
  double timeout_s = 0;
  if (!parse_number_option(options.timeout_s, "--timeout-s", timeout_s)) return kExitUsage;
  if (timeout_s <= 0) {
    return input_failure(
        fmt::format("passtiming: --timeout-s must be more than 0 (got '{}')", options.timeout_s));
  }
  fleet::PullSettings settings;
  settings.urls = options.urls;
  settings.table = options.table;
  settings.runs = options.runs;
  settings.where = options.where;
  settings.last = options.last;
  settings.timeout_s = timeout_s;

  std::vector<StoredRun> runs;
  std::vector<std::string> paths;
  try {
    // The pattern is checked before the server is asked.
    check_pattern(options.output);
    runs = fleet::pull(settings);
    std::set<std::string> taken;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      paths.push_back(expand(options.output, i + 1, runs[i].identity.run_id));
      if (paths.back() == "-" && runs.size() > 1) {
        throw ConfigError(fmt::format("-o -: {} runs matched, and stdout takes one", runs.size()));
      }
      if (!taken.insert(paths.back()).second) {
        throw ConfigError(fmt::format(
            "-o '{}': {} runs matched and would be written to one file, {} (give %r or %i)",
            options.output, runs.size(), paths.back()));
      }
    }
  } catch (const ConfigError& e) {
    return input_failure(fmt::format("passtiming pull: {}", e.what()));
  } catch (const fleet::PullRefused& e) {
    return input_failure(e.what());
  } catch (const fleet::PullFailed& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitIncomplete;
  } catch (const InputError& e) {
    // Rows this passtiming cannot read (another schema version).
    return input_failure(fmt::format("passtiming pull: {}", e.what()));
  }

  for (std::size_t i = 0; i < runs.size(); ++i) {
    try {
      write_profile_file(runs[i].profile, paths[i]);
    } catch (const std::exception& e) {
      return input_failure(fmt::format("passtiming pull: {}", e.what()));
    }
    // What export --to rows (or push) of the file needs to give the rows
    // it was made of: the columns no profile holds.
    std::string again;
    for (const auto& [key, value] : reproduce_meta(runs[i])) {
      again += fmt::format(" --meta '{}={}'", key, value);
    }
    std::fprintf(stderr, "passtiming pull: wrote %s (run %s, %zu rows)%s%s\n", paths[i].c_str(),
                 runs[i].identity.run_id.c_str(), runs[i].rows,
                 again.empty() ? "" : "; its rows again with", again.c_str());
  }
  return kExitOk;
}

}  // namespace

Action add_pull_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "pull",
      "Read runs back out of the fleet's ClickHouse table into profile files (wall time only: "
      "the rows hold no CPU time, instructions or phases), e.g. a base for diff --gate "
      "--measure wall");
  sub->add_option("--clickhouse", options->urls,
                  "the server's HTTP interface, e.g. http://127.0.0.1:8123; repeated: replicas of "
                  "one shard, the next tried when one is away");
  sub->add_option("--table", options->table, "table (NAME or DATABASE.NAME)")
      ->default_str("pass_executions");
  sub->add_option("--run", options->runs, "a run id to read (repeatable)")->type_name("ID");
  sub->add_option("--where", options->where,
                  "a ClickHouse condition on the rows, e.g. \"commit = 'abc'\": the runs with a "
                  "row that meets it")
      ->type_name("SQL");
  sub->add_option("--last", options->last,
                  "only the N matching runs with the latest start_time (ties by run id)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  sub->add_option("--timeout-s", options->timeout_s, "seconds a query may take")
      ->type_name("SECONDS")
      ->check(non_negative_number())
      ->default_str("60");
  sub->add_option("-o,--output", options->output,
                  "file per run, replaced atomically: %r the run's index from 1 (the --run order, "
                  "else newest first), %i its id, %% a %")
      ->type_name("PATTERN");
  return [options]() -> int { return pull(*options); };
}

}  // namespace passtiming::cli
