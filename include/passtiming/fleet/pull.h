#pragma once
/// \file
/// Runs read back out of the fleet's table (docs/fleet.md#a-base-from-the-fleets-table):
/// the run ids a selection names, then their rows, made into profiles by
/// read_fleet_rows. Two statements, each sent to the first of the URLs that
/// answers; nothing is written to the server.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "passtiming/formats/fleet.h"

namespace passtiming::fleet {

/// Where to read and which runs.
struct PullSettings {
  /// The servers' HTTP interfaces (`http://127.0.0.1:8123`, user
  /// information and parameters allowed): one server, or replicas of one
  /// shard, the next tried when one is away (a transport failure or HTTP
  /// 502/503/504). At least one.
  std::vector<std::string> urls;
  std::string table = "pass_executions";  ///< NAME or DATABASE.NAME
  /// Run ids to read; empty: every run the other conditions select.
  std::vector<std::string> runs;
  /// A ClickHouse condition on the rows, used as given (`commit = 'abc'`,
  /// `has(meta_keys, 'branch')`); a run matches when one of its rows does.
  /// Empty: none.
  std::string where;
  /// Only the `last` runs with the latest start_time among those that
  /// match (ties by run_id); 0: all of them.
  std::size_t last = 0;
  double timeout_s = 60;  ///< seconds a statement may take
};

/// A selection that cannot be run or names no run: a URL that is not
/// http(s), a table name that is not NAME or DATABASE.NAME, no condition at
/// all, no run matched, or a `runs` id not in the table. `what()` holds no
/// secret.
class PullRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The server refused a statement (credentials, rights, a missing table,
/// SQL it rejects in `where`) or none of the URLs answered. `what()` names
/// the redacted URL and quotes the server's first line, its secrets
/// scrubbed.
class PullFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The selected runs with their profiles (read_fleet_rows): the `runs` in
/// the order given, else newest first (by the latest start_time of their
/// rows, then run_id). The statements:
///
///     SELECT hex(run_id) FROM T [WHERE (where) [AND run_id IN (runs)]]
///       GROUP BY run_id ORDER BY max(start_time) DESC, run_id [LIMIT last]
///     SELECT <row_columns()> FROM T WHERE run_id IN (<the ids>)
///       ORDER BY run_id, section, sequence FORMAT JSONEachRow
///
/// (hex: a run id comes back whatever bytes it holds; ids go back quoted
/// with sql_string). Throws PullRefused, PullFailed, or InputError for
/// rows that read_fleet_rows refuses (another schema version).
std::vector<StoredRun> pull(const PullSettings& settings);

}  // namespace passtiming::fleet
