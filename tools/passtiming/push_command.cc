// `passtiming push FILE... --clickhouse URL... [--table T] [--create [--replicated]]
// [--meta KEY=VALUE]... [--batch-rows N] [--connections N] [--retries N] [--timeout-s S]
// [--zookeeper HOST:PORT[,HOST:PORT...][/chroot]]`:
// stores the rows of `export --to rows` in a ClickHouse table over HTTP, each
// pass execution once, however often a push is repeated, cut off or run
// beside others. The protocol is the fleet room's (passtiming/fleet/push.h);
// this file reads the options and the files, and says how the push ended.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/fleet/claims.h"
#include "passtiming/fleet/clickhouse_http.h"
#include "passtiming/fleet/push.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/profile_io.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::vector<std::string> urls;
  std::string table = "pass_executions";
  bool create = false;
  bool replicated = false;
  bool print_schema = false;
  bool print_phase_schema = false;
  std::vector<std::string> meta;
  std::size_t batch_rows = 100000;
  std::size_t connections = 4;
  int retries = 5;
  std::string timeout_s = "60";
  std::string zookeeper;
};

/// Profiles are read and checked in groups, each one wait and one count of
/// what is stored on the server: many small profiles cost few requests, and
/// few large ones stay few in memory.
constexpr std::size_t kGroupProfiles = 1000;

std::size_t rows_of(const Profile& profile) {
  std::size_t rows = 0;
  for (const Section& section : profile.sections) rows += section.records.size();
  return rows;
}

int push(const Options& options) {
  if (!fleet::valid_table_name(options.table)) {
    return input_failure(fmt::format(
        "passtiming push: --table '{}': expected NAME or DATABASE.NAME (letters, digits, _)",
        options.table));
  }
  const TableEngine engine =
      options.replicated ? TableEngine::kReplicated : TableEngine::kReplacing;
  if (options.print_phase_schema) {
    std::printf("%s\n", phase_table_ddl(phase_table_name(options.table), engine).c_str());
    return kExitOk;
  }
  if (options.print_schema) {
    std::printf("%s\n", row_table_ddl(options.table, engine).c_str());
    return kExitOk;
  }
  if (options.inputs.empty()) return input_failure("passtiming push: no FILE given");
  if (options.urls.empty()) return input_failure("passtiming push: --clickhouse URL is required");
  double timeout_s = 0;
  if (!parse_number_option(options.timeout_s, "--timeout-s", timeout_s)) return kExitUsage;
  if (timeout_s <= 0) {
    return input_failure(
        fmt::format("passtiming: --timeout-s must be more than 0 (got '{}')", options.timeout_s));
  }
  if (!options.zookeeper.empty() && !fleet::Claims::available()) {
    return input_failure(
        "passtiming push: --zookeeper: this passtiming was built without ZooKeeper's C client "
        "(libzookeeper-mt-dev)");
  }
  fleet::PushSettings settings;
  try {
    settings.meta = parse_meta_pairs(options.meta);
  } catch (const ConfigError& e) {
    return input_failure(fmt::format("passtiming push: {}", e.what()));
  }
  const bool one_run_id = std::any_of(settings.meta.begin(), settings.meta.end(),
                                      [](const auto& kv) { return kv.first == "run_id"; });
  if (one_run_id && options.inputs.size() > 1) {
    return input_failure(
        "passtiming push: --meta run_id=… names one run, but several FILEs were given: each "
        "profile needs a run id of its own (push them one at a time)");
  }
  settings.urls = options.urls;
  settings.table = options.table;
  settings.create = options.create;
  settings.engine = engine;
  settings.batch_rows = options.batch_rows;
  settings.connections = options.connections;
  settings.retries = options.retries;
  settings.timeout_s = timeout_s;
  settings.zookeeper = options.zookeeper;
  settings.note = [](std::string_view line) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };

  std::unique_ptr<fleet::Pusher> pusher;
  try {
    pusher = std::make_unique<fleet::Pusher>(std::move(settings));
  } catch (const fleet::PushRefused& e) {
    return input_failure(e.what());
  }
  const std::size_t total = options.inputs.size();
  try {
    pusher->prepare();
    std::vector<fleet::ProfileToPush> group;
    std::size_t group_rows = 0;
    for (std::size_t i = 0; i < total; ++i) {
      const std::string& path = options.inputs[i];
      try {
        group.push_back({path, load_profile(path)});
      } catch (const std::exception& e) {
        // The profiles before it are stored first, as they would be alone.
        pusher->push(group);
        throw fleet::PushRefused(pusher->shown(e.what()));
      }
      group_rows += rows_of(group.back().profile);
      if (group.size() >= kGroupProfiles || group_rows >= options.batch_rows * 4 ||
          i + 1 == total) {
        pusher->push(group);
        group.clear();
        group_rows = 0;
      }
    }
  } catch (const fleet::PushRefused& e) {
    std::fprintf(stderr, "%s\n", e.what());
    if (pusher->stored_anything()) {
      std::fprintf(stderr, "passtiming push: %s before this error\n",
                   pusher->progress(total).c_str());
    }
    return kExitUsage;
  } catch (const fleet::PushStopped& e) {
    std::fprintf(stderr, "passtiming push: %s; %s\n", pusher->progress(total).c_str(), e.what());
    std::fprintf(stderr,
                 "passtiming push: nothing stored is lost; pushing the same files again stores "
                 "the rest\n");
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace

Action add_push_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "push",
      "Store profiles in a ClickHouse table over HTTP, one row per pass execution (the rows of "
      "export --to rows), each pass execution once: a repeated, resumed or concurrent push "
      "stores nothing twice");
  sub->add_option("FILE", options->inputs, "JSON profiles or JSONL event logs ('-' reads stdin)");
  sub->add_option("--clickhouse", options->urls,
                  "the server's HTTP interface, e.g. http://127.0.0.1:8123; repeated: replicas of "
                  "one shard, the next tried when one is away");
  sub->add_option("--table", options->table, "table (NAME or DATABASE.NAME)")
      ->default_str("pass_executions");
  sub->add_flag("--create", options->create,
                "create the table, and its phase table TABLE_phases, when they do not exist");
  sub->add_flag("--replicated", options->replicated,
                "with --create, --print-schema or --print-phase-schema: a "
                "ReplicatedReplacingMergeTree table (macros {shard} and {replica}), which drops "
                "an INSERT block it stored before, so that concurrent pushes store each row once");
  sub->add_flag("--print-phase-schema", options->print_phase_schema,
                "print the CREATE TABLE statement of the phase table, TABLE_phases, and exit");
  sub->add_flag("--print-schema", options->print_schema,
                "print the table's CREATE TABLE statement and exit");
  sub->add_option("--meta", options->meta, "KEY=VALUE for every row (repeatable), as for export");
  sub->add_option("--batch-rows", options->batch_rows,
                  "records of a section per INSERT (its first N, the next N, ...); pushes of "
                  "the same files must agree on it for a replicated table to drop a repeat")
      ->default_str("100000")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000000}));
  sub->add_option("--connections", options->connections, "INSERTs sent at once")
      ->default_str("4")
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  sub->add_option("--retries", options->retries,
                  "retries of a request after a connection failure, a timeout or HTTP 502/503/504")
      ->default_str("5")
      ->check(CLI::Range(0, 100));
  sub->add_option("--timeout-s", options->timeout_s, "seconds a request may take")
      ->type_name("SECONDS")
      ->check(non_negative_number())
      ->default_str("60");
  sub->add_option("--zookeeper", options->zookeeper,
                  "claim the runs in this ZooKeeper (the replicated table's) before sending, "
                  "and send many small profiles packed into few blocks: pushes that all give "
                  "it store each row once, in a part per block, not per profile")
      ->type_name("HOST:PORT[,HOST:PORT...][/CHROOT]");
  return [options]() -> int { return push(*options); };
}

}  // namespace passtiming::cli
