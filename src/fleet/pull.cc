/// \file
/// `passtiming pull`'s statements: which runs a selection names, then their
/// rows (pull.h).

#include "passtiming/fleet/pull.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/fleet/clickhouse_http.h"
#include "passtiming/fleet/push.h"
#include "server_reply.h"

namespace passtiming::fleet {
namespace {

/// The servers of a pull, tried in turn, and the secrets no message shows.
class Servers {
 public:
  explicit Servers(const PullSettings& settings) {
    for (const std::string& url : settings.urls) {
      servers_.push_back(std::make_unique<ClickHouseHttp>(url, settings.timeout_s));
      const std::vector<std::string> secrets = url_secrets(url);
      secrets_.insert(secrets_.end(), secrets.begin(), secrets.end());
    }
  }

  /// The reply of the first server that answers `sql`, and its URL as shown.
  /// Throws PullFailed when one refuses it or none answers.
  std::pair<std::string, std::string> run(const std::string& sql) {
    std::string errors;
    for (const auto& server : servers_) {
      HttpReply reply = server->post({}, sql);
      if (reply.ok()) return {std::move(reply.body), server->url()};
      if (!reply.transient()) {
        // A server that answers and refuses: another replica would too.
        throw PullFailed(
            scrubbed(fmt::format("passtiming pull: the server refused a query ({}): {}",
                                 server->url(), reply.message()),
                     secrets_));
      }
      if (!errors.empty()) errors += "; ";
      errors += fmt::format("{} ({})", reply.message(), server->url());
    }
    throw PullFailed(scrubbed("passtiming pull: no server answered: " + errors, secrets_));
  }

 private:
  std::vector<std::unique_ptr<ClickHouseHttp>> servers_;
  std::vector<std::string> secrets_;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/// The bytes of hex(run_id).
std::string unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int high = hex_digit(hex[i]);
    const int low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0 || hex.size() % 2) {
      throw PullFailed(
          fmt::format("passtiming pull: the server sent '{}' for hex(run_id)", hex.substr(0, 80)));
    }
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& ids) {
  std::string list;
  for (const std::string& id : ids) {
    if (!list.empty()) list += ',';
    list += sql_string(id);
  }
  return list;
}

}  // namespace

std::vector<StoredRun> pull(const PullSettings& settings) {
  if (std::string problem =
          server_settings_problem("passtiming pull", settings.urls, settings.table);
      !problem.empty()) {
    throw PullRefused(problem);
  }
  if (settings.runs.empty() && settings.where.empty() && settings.last == 0) {
    // The whole table is never what a base wants, and may be huge.
    throw PullRefused("passtiming pull: say which runs: --run ID, --where SQL or --last N");
  }
  Servers servers(settings);

  // The run ids first: the selection is the server's to make, over rows.
  std::vector<std::string> conditions;
  if (!settings.where.empty()) conditions.push_back("(" + settings.where + ")");
  if (!settings.runs.empty())
    conditions.push_back("run_id IN (" + quoted_list(settings.runs) + ")");
  std::string select = fmt::format("SELECT hex(run_id) FROM {}", settings.table);
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    select += (i ? " AND " : " WHERE ") + conditions[i];
  }
  select += " GROUP BY run_id ORDER BY max(start_time) DESC, run_id";
  if (settings.last > 0) select += fmt::format(" LIMIT {}", settings.last);
  select += " FORMAT TabSeparated";
  std::vector<std::string> ids;
  {
    const auto [body, url] = servers.run(select);
    for (const std::vector<std::string_view>& row : tsv_rows(body)) {
      if (!row.empty() && !row[0].empty()) ids.push_back(unhex(row[0]));
    }
  }
  if (!settings.runs.empty()) {
    // The runs given, in their order; each must be there.
    std::vector<std::string> given;
    for (const std::string& id : settings.runs) {
      if (std::find(given.begin(), given.end(), id) != given.end()) continue;
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
        given.push_back(id);
      } else if (settings.last == 0) {
        throw PullRefused(fmt::format("passtiming pull: no run '{}' in {}{}", id, settings.table,
                                      settings.where.empty() ? "" : " that matches --where"));
      }
    }
    ids = std::move(given);
  }
  if (ids.empty()) {
    throw PullRefused(
        fmt::format("passtiming pull: no run in {} matched the selection", settings.table));
  }

  std::string columns;
  for (const RowColumn& column : row_columns()) {
    if (!columns.empty()) columns += ',';
    columns += column.name;
  }
  const auto [body, url] = servers.run(
      fmt::format("SELECT {} FROM {} WHERE run_id IN ({}) ORDER BY run_id, section, sequence "
                  "FORMAT JSONEachRow",
                  columns, settings.table, quoted_list(ids)));
  std::vector<StoredRun> read = read_fleet_rows(body, fmt::format("{} {}", url, settings.table));
  // In the selection's order, not the rows'.
  std::vector<StoredRun> runs;
  runs.reserve(ids.size());
  for (const std::string& id : ids) {
    const auto found = std::find_if(read.begin(), read.end(),
                                    [&](const StoredRun& r) { return r.identity.run_id == id; });
    if (found == read.end()) {
      // Dropped between the two statements (a partition detached).
      throw PullFailed(
          fmt::format("passtiming pull: run '{}' has no rows any more in {}", id, settings.table));
    }
    runs.push_back(std::move(*found));
  }
  return runs;
}

}  // namespace passtiming::fleet
