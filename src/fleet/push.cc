#include "passtiming/fleet/push.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <span>
#include <thread>
#include <unordered_set>
#include <utility>

#include "passtiming/fleet/claims.h"
#include "passtiming/fleet/clickhouse_http.h"
#include "server_reply.h"
#include "tsv_rows.h"

namespace passtiming::fleet {
namespace {

std::string plural(std::uint64_t n, std::string_view word) {
  if (n == 1) return fmt::format("1 {}", word);
  if (word.ends_with('y')) return fmt::format("{} {}ies", n, word.substr(0, word.size() - 1));
  return fmt::format("{} {}s", n, word);
}

/// The first word of a statement, for messages ("INSERT", "SELECT").
std::string_view verb_of(std::string_view statement) {
  return statement.substr(0, statement.find_first_of(" \n"));
}

/// The query id of a push's INSERT of a chunk: the same for every push of
/// the chunk, so that the server runs one at a time and a push can see one
/// still running, its own or another's. The run id is hex or the user's
/// `--meta run_id`, so it is quoted as it goes into a LIKE pattern.
constexpr std::string_view kQueryIdPrefix = "passtiming-push:";
/// Marks the query id of a pack of chunks (several runs): after the table.
constexpr std::string_view kPackMark = "pack:";

std::string query_id(std::string_view table, std::string_view run_id, std::uint32_t section,
                     std::size_t chunk) {
  return fmt::format("{}{}:{}:{}:{}", kQueryIdPrefix, table, run_id, section, chunk);
}

/// Whether an INSERT's reply leaves its outcome open, worth another try
/// once the server says what is stored: a transport failure, 502/503/504,
/// 216 (an INSERT of the same query id still runs), 252 (too many parts:
/// the server asks to wait for its merges).
bool retryable(const HttpReply& reply) {
  return reply.transient() || has_error_code(reply, 216) || has_error_code(reply, 252);
}

/// The servers of a push, one of them current: a request that finds it away
/// goes to the next (a replica of the same shard) when retried.
class Servers {
 public:
  Servers(const std::vector<std::string>& urls, double timeout_s) {
    for (const std::string& url : urls) {
      servers_.push_back(std::make_unique<ClickHouseHttp>(url, timeout_s));
    }
  }
  ClickHouseHttp& current() { return *servers_[current_]; }
  void next() { current_ = (current_ + 1) % servers_.size(); }
  std::size_t size() const { return servers_.size(); }

 private:
  std::vector<std::unique_ptr<ClickHouseHttp>> servers_;
  std::size_t current_ = 0;
};

/// A chunk of a section to send: records [first, last) of the profile's
/// section `index`, stored as section `number` of `run`; `rows` lists the
/// records when only some of the chunk are missing (else empty: all).
struct Chunk {
  std::size_t profile = 0;
  std::size_t run = 0;
  std::size_t index = 0;
  std::uint32_t number = 0;
  std::size_t chunk = 0;
  std::size_t first = 0;
  std::size_t last = 0;
  std::vector<std::uint32_t> rows;

  /// How many records the chunk sends.
  std::size_t row_count() const { return rows.empty() ? last - first : rows.size(); }
  /// Two chunks send the same rows as the same section of the same run.
  bool operator==(const Chunk&) const = default;
};

/// How far a section of a profile got, for the message when a push stops.
struct SectionProgress {
  std::size_t index = 0;     ///< in the profile
  std::uint32_t number = 0;  ///< in its run
  std::uint64_t total = 0;
  std::uint64_t stored = 0;   ///< known stored
  std::uint64_t unknown = 0;  ///< sent without an answer
};

/// A profile of a push() and how far it got.
struct GroupProfile {
  std::string path;
  bool done = false;
  bool checked = false;  ///< what is stored is known
  std::vector<SectionProgress> sections;
};

/// The rows of `pack` as one INSERT's body: a function of the chunks
/// alone, so that the same pack is the same block whoever builds it and
/// whenever (a retry, a body built ahead while the checks run).
std::string pack_body(const std::vector<ProfileToPush>& profiles,
                      const std::vector<std::vector<FleetRun>>& runs, std::span<const Chunk> pack) {
  std::size_t total = 0, done = 0;
  for (const Chunk& chunk : pack) total += chunk.row_count();
  std::string body;
  for (const Chunk& chunk : pack) {
    const Profile& profile = profiles[chunk.profile].profile;
    TsvRowWriter writer(profile, runs[chunk.profile][chunk.run].identity);
    const std::size_t n = chunk.row_count();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = chunk.rows.empty() ? chunk.first + k : chunk.rows[k];
      writer.append(body, chunk.index, i, chunk.number);
    }
    if (done == 0 && n > 0) {
      // Room for the rest at the first chunk's bytes per row and an eighth
      // more: a pack's tens of megabytes not copied at each doubling.
      body.reserve(body.size() / n * total * 9 / 8);
    }
    done += n;
  }
  return body;
}

}  // namespace

bool valid_table_name(std::string_view name) {
  static const std::regex pattern("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  return std::regex_match(name.begin(), name.end(), pattern);
}

std::string server_settings_problem(std::string_view command, const std::vector<std::string>& urls,
                                    std::string_view table) {
  if (urls.empty()) return fmt::format("{}: --clickhouse URL is required", command);
  for (const std::string& url : urls) {
    if (!url.starts_with("http://") && !url.starts_with("https://")) {
      return fmt::format("{}: --clickhouse '{}': expected an http:// or https:// URL", command,
                         redacted_url(url));
    }
  }
  if (!valid_table_name(table)) {
    return fmt::format("{}: --table '{}': expected NAME or DATABASE.NAME (letters, digits, _)",
                       command, table);
  }
  return {};
}

struct Pusher::State {
  PushSettings settings;
  std::vector<std::string> secrets;
  std::string shown_url;  ///< the first URL, redacted
  Servers servers;
  std::string insert;
  std::vector<std::pair<std::string, std::string>> insert_settings;
  std::string phase_table;
  bool phase_schema_checked = false;
  bool no_phase_table = false;
  /// The table drops an INSERT block identical to one stored
  /// (Replicated*MergeTree): each chunk is sent alone, as its own block.
  bool deduplicating = true;
  /// The runs' claims in ZooKeeper (settings.zookeeper), made by prepare().
  std::unique_ptr<Claims> claims;

  /// Whether chunks of several runs share an INSERT: into a table that
  /// drops no repeated block, or under claims, where no other push sends
  /// the same runs meanwhile.
  bool packing() const { return !deduplicating || claims != nullptr; }

  std::mutex mutex;  ///< guards what follows, and `note`
  std::size_t profiles_stored = 0;
  std::uint64_t rows_inserted = 0;
  /// The profiles of the push() under way, and their sections' progress.
  std::vector<GroupProfile> group;

  explicit State(PushSettings s)
      : settings(std::move(s)),
        servers(settings.urls, settings.timeout_s),
        // TabSeparated: the rows of `export --to rows`, which the server
        // reads in less than half the time of JSONEachRow.
        insert(fmt::format("INSERT INTO {} FORMAT TabSeparated", settings.table)),
        phase_table(phase_table_name(settings.table)) {
    for (const std::string& url : settings.urls) {
      for (std::string& secret : url_secrets(url)) secrets.push_back(std::move(secret));
    }
    shown_url = servers.current().url();
    // One INSERT is one block, which a replicated table compares with the
    // blocks it stored: the rows of a chunk are never split, and never
    // squashed with another INSERT's.
    insert_settings = {{"max_insert_block_size", std::to_string(settings.batch_rows)},
                       {"insert_deduplicate", "1"}};
  }

  std::string shown(std::string text) const { return scrubbed(std::move(text), secrets); }

  void note(const std::string& line) {
    if (!settings.note) return;
    std::lock_guard lock(mutex);
    settings.note(shown(line));
  }

  [[noreturn]] void stop(const std::string& reason) const { throw PushStopped(shown(reason)); }
  [[noreturn]] void refuse(const std::string& reason) const { throw PushRefused(shown(reason)); }

  /// Pauses before retry number `retries` (0.2 s doubling, at most 5 s), or
  /// stops when the retries are used up. The retry goes to the next server.
  void pause(Servers& on, int& retries, const std::string& error) {
    if (retries >= settings.retries) {
      stop(fmt::format("gave up after {}: {} ({})", plural(retries, "retry"), error,
                       on.current().url()));
    }
    const auto wait = std::chrono::milliseconds(std::min(5000, 200 << std::min(retries, 5)));
    ++retries;
    note(fmt::format("passtiming push: {}; retry {} of {} in {:.1f} s{}", error, retries,
                     settings.retries, static_cast<double>(wait.count()) / 1000.0,
                     on.size() > 1 ? " on the next server" : ""));
    std::this_thread::sleep_for(wait);
    on.next();
  }

  std::string server_refused(std::string_view statement, const HttpReply& reply) const {
    return fmt::format("the server answered {} with HTTP {}: {}", verb_of(statement), reply.status,
                       reply.message());
  }

  /// Sends a request until a reply comes that is not transient, pausing
  /// between attempts. With `strict`, any reply but 200 stops the push.
  HttpReply exchange(Servers& on, std::string_view query, std::string_view body, int& retries,
                     bool strict = true) {
    while (true) {
      HttpReply reply = on.current().post(query, body);
      if (reply.ok() || !reply.transient()) {
        if (!reply.ok() && strict) stop(server_refused(query.empty() ? body : query, reply));
        return reply;
      }
      pause(on, retries, reply.message());
    }
  }

  /// The ids among a `system.processes` reply's rows (running_inserts_sql)
  /// that start with one of `prefixes`: the INSERTs of a push still running.
  static std::set<std::string> inserts_of(std::string_view body,
                                          const std::vector<std::string>& prefixes) {
    std::set<std::string> ids;
    for (const auto& row : tsv_rows(body)) {
      for (const std::string& prefix : prefixes) {
        if (!row.empty() && row[0].starts_with(prefix)) ids.insert(std::string(row[0]));
      }
    }
    return ids;
  }

  /// Every push's queries a server runs, for inserts_of.
  static std::string running_inserts_sql() {
    return fmt::format(
        "SELECT query_id FROM system.processes WHERE query_id LIKE '{}%' FORMAT TabSeparated",
        kQueryIdPrefix);
  }

  /// How long an INSERT sent before may keep the push waiting: 4 ×
  /// timeout_s, the time a server gives a slow INSERT before dropping it.
  class InsertDeadline {
   public:
    explicit InsertDeadline(const State& push)
        : push_(push),
          at_(std::chrono::steady_clock::now() +
              std::chrono::milliseconds(static_cast<long>(push.settings.timeout_s * 1000 * 4))) {}
    /// Stops the push when the wait has outlived the deadline.
    void check(std::string_view url) const {
      if (std::chrono::steady_clock::now() <= at_) return;
      push_.stop(fmt::format("an INSERT sent before still runs after {:.0f} s ({})",
                             push_.settings.timeout_s * 4, url));
    }

   private:
    const State& push_;
    std::chrono::steady_clock::time_point at_;
  };

  /// Waits while a query whose id starts with one of `prefixes` runs on the
  /// current server: an INSERT of a push killed or cut off, which may still
  /// store its rows.
  void wait_for_inserts(Servers& on, const std::vector<std::string>& prefixes, int& retries) {
    if (prefixes.empty()) return;
    const std::string sql = running_inserts_sql();
    const InsertDeadline deadline(*this);
    bool told = false;
    while (!inserts_of(exchange(on, {}, sql, retries).body, prefixes).empty()) {
      if (!told) {
        note("passtiming push: an INSERT sent before still runs; waiting until it ends");
        told = true;
      }
      deadline.check(on.current().url());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  /// Under claims: waits while a query whose id starts with one of
  /// `prefixes`, running at the first look, still runs on any of the URLs
  /// (a pack sent to another replica by a push that died or lost its
  /// claims still stores its block), skipping a server that does not
  /// answer (what it runs, it cannot commit while away).
  void wait_for_inserts_everywhere(const std::vector<std::string>& prefixes) {
    const std::string sql = running_inserts_sql();
    const InsertDeadline deadline(*this);
    for (const std::string& url : settings.urls) {
      ClickHouseHttp server(url, settings.timeout_s);
      bool told = false;
      std::set<std::string> running;
      while (true) {
        const HttpReply reply = server.post({}, sql);
        if (!reply.ok()) {
          note(
              fmt::format("passtiming push: {} did not say which INSERTs it runs ({}); not "
                          "waited for",
                          server.url(), reply.message()));
          break;
        }
        // Only the INSERTs running at the first look: one started since
        // was sent under claims of other runs (these are this push's).
        const std::set<std::string> now = inserts_of(reply.body, prefixes);
        if (!told) running = now;
        std::erase_if(running, [&](const std::string& id) { return !now.contains(id); });
        if (running.empty()) break;
        if (!told) {
          note(
              fmt::format("passtiming push: an INSERT sent before still runs on {}; waiting "
                          "until it ends",
                          server.url()));
          told = true;
        }
        deadline.check(server.url());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  }

  /// Under claims, into a replicated table: waits until the replica `on`
  /// holds every part committed before (its log pulled, no part to fetch),
  /// so that its count sees what pushes before the claim stored on other
  /// replicas. Stops after timeout_s: a replica that stays behind waits
  /// for parts it cannot fetch (the replica holding them is away), and
  /// what it counts is not what the table holds.
  void wait_for_replica(Servers& on, int& retries) {
    const std::size_t dot = settings.table.find('.');
    const std::string where =
        dot == std::string::npos
            ? fmt::format("database = currentDatabase() AND table = {}", sql_string(settings.table))
            : fmt::format("database = {} AND table = {}", sql_string(settings.table.substr(0, dot)),
                          sql_string(settings.table.substr(dot + 1)));
    // log_pointer is one past the last entry of the shared log the replica
    // took into its queue, log_max_index the shared log's last entry (both
    // 0 for an empty log). Entries not taken yet are read from ZooKeeper:
    // a part another replica made ("get" from a source replica not this
    // one) is a part this one lacks; its own it has.
    const std::string sql = fmt::format(
        "SELECT log_pointer, log_max_index, inserts_in_queue, zookeeper_path, replica_name FROM "
        "system.replicas WHERE {} FORMAT TabSeparated",
        where);
    auto in_step = [&]() {
      const HttpReply reply = exchange(on, {}, sql, retries);
      const auto rows = tsv_rows(reply.body);
      if (rows.empty()) return true;  // not a replicated table
      if (rows[0].size() != 5) {
        stop("unexpected reply to SELECT FROM system.replicas: " + reply.message());
      }
      const std::uint64_t pointer = tsv_number(rows[0][0], "SELECT log_pointer");
      const std::uint64_t last = tsv_number(rows[0][1], "SELECT log_max_index");
      if (tsv_number(rows[0][2], "SELECT inserts_in_queue") != 0) return false;
      if (pointer > last) return true;
      const std::string own = fmt::format("source replica: {}\\n", rows[0][4]);
      const HttpReply log =
          exchange(on, {},
                   fmt::format("SELECT name, value FROM system.zookeeper WHERE path = {} FORMAT "
                               "TabSeparated",
                               sql_string(std::string(rows[0][3]) + "/log")),
                   retries);
      for (const auto& entry : tsv_rows(log.body)) {
        if (entry.size() != 2 || !entry[0].starts_with("log-")) continue;
        if (tsv_number(entry[0].substr(4), "the log entry's number") < pointer) continue;
        const bool fetch = entry[1].find("\\nget\\n") != std::string_view::npos;
        if (fetch && entry[1].find(own) == std::string_view::npos) return false;
      }
      return true;
    };
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long>(settings.timeout_s * 1000));
    bool told = false;
    while (true) {
      if (in_step()) return;
      if (!told) {
        note(fmt::format(
            "passtiming push: {} has parts of other replicas to fetch; waiting until it has them",
            on.current().url()));
        told = true;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        stop(fmt::format(
            "replica {} still lacks parts stored on other replicas after {:g} s: its count "
            "cannot be trusted (is a replica down?)",
            on.current().url(), settings.timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  /// Before an INSERT under claims: the session holding them is alive.
  void check_claims() {
    if (!claims) return;
    try {
      claims->check_alive();
    } catch (const ClaimLost& e) {
      stop(fmt::format("{}: its claims may be another push's now, so nothing more is sent",
                       e.what()));
    }
  }

  /// The distinct sequences stored per section of each of `run_ids`:
  /// (run id, section) -> count, one query through the sorting key.
  std::map<std::pair<std::string, std::uint32_t>, std::uint64_t> stored_counts(
      Servers& on, const std::vector<std::string>& run_ids, int& retries) {
    std::string list;
    for (const std::string& id : run_ids) {
      if (!list.empty()) list += ", ";
      list += sql_string(id);
    }
    const std::string sql = fmt::format(
        "SELECT run_id, section, uniqExact(sequence) FROM {} WHERE run_id IN ({}) GROUP BY "
        "run_id, section FORMAT TabSeparated",
        settings.table, list);
    const HttpReply reply = exchange(on, {}, sql, retries);
    std::map<std::pair<std::string, std::uint32_t>, std::uint64_t> counts;
    for (const auto& row : tsv_rows(reply.body)) {
      if (row.size() != 3)
        stop("unexpected reply to SELECT uniqExact(sequence): " + reply.message());
      counts[{std::string(row[0]), static_cast<std::uint32_t>(tsv_number(row[1], "SELECT"))}] =
          tsv_number(row[2], "SELECT uniqExact(sequence)");
    }
    return counts;
  }

  /// The stored sequences of section `number` of run `run_id`.
  std::unordered_set<std::uint32_t> stored_sequences(Servers& on, const std::string& run_id,
                                                     std::uint32_t number, int& retries) {
    const HttpReply reply = exchange(
        on, {},
        fmt::format("SELECT DISTINCT sequence FROM {} WHERE run_id = {} AND section = {} FORMAT "
                    "TabSeparated",
                    settings.table, sql_string(run_id), number),
        retries);
    std::unordered_set<std::uint32_t> sequences;
    for (const auto& row : tsv_rows(reply.body)) {
      sequences.insert(static_cast<std::uint32_t>(tsv_number(row[0], "SELECT sequence")));
    }
    return sequences;
  }

  SectionProgress* progress_of(const Chunk& chunk) {
    if (chunk.profile >= group.size()) return nullptr;
    for (SectionProgress& p : group[chunk.profile].sections) {
      if (p.index == chunk.index) return &p;
    }
    return nullptr;
  }

  /// Stores `chunk` on `on`: one INSERT; when its outcome is unknown, waits
  /// until it no longer runs, asks which of its rows are stored and sends
  /// the others. Returns the rows it found stored, its own or not.
  std::uint64_t insert_chunk(Servers& on, const Profile& profile, const FleetRun& run, Chunk chunk,
                             const std::string* unknown_pack = nullptr) {
    const std::string id = query_id(settings.table, run.identity.run_id, chunk.number, chunk.chunk);
    const Section& section = profile.sections[chunk.index];
    auto rows_of = [&](const Chunk& c) {
      std::vector<std::uint32_t> rows = c.rows;
      if (rows.empty()) {
        for (std::size_t i = c.first; i < c.last; ++i)
          rows.push_back(static_cast<std::uint32_t>(i));
      }
      return rows;
    };
    std::vector<std::uint32_t> rows = rows_of(chunk);
    int retries = 0;
    if (unknown_pack != nullptr) {
      // Sent in a pack whose outcome is unknown: once the pack no longer
      // runs, only the rows it did not store.
      wait_for_inserts(on, {*unknown_pack}, retries);
      const std::unordered_set<std::uint32_t> stored =
          stored_sequences(on, run.identity.run_id, chunk.number, retries);
      std::erase_if(rows,
                    [&](std::uint32_t i) { return stored.contains(section.records[i].sequence); });
      const std::uint64_t landed = rows_of(chunk).size() - rows.size();
      std::lock_guard lock(mutex);
      if (SectionProgress* p = progress_of(chunk)) p->stored += landed;
      rows_inserted += landed;
      if (rows.empty()) return landed;
    }
    while (true) {
      std::string body;
      TsvRowWriter writer(profile, run.identity);
      for (const std::uint32_t i : rows) writer.append(body, chunk.index, i, chunk.number);
      {
        std::lock_guard lock(mutex);
        if (SectionProgress* p = progress_of(chunk)) p->unknown += rows.size();
      }
      check_claims();
      const HttpReply reply = on.current().post(insert, body, id, insert_settings);
      {
        std::lock_guard lock(mutex);
        if (SectionProgress* p = progress_of(chunk)) {
          p->unknown -= rows.size();
          if (reply.ok()) p->stored += rows.size();
        }
        if (reply.ok()) rows_inserted += rows.size();
      }
      if (reply.ok()) return rows.size();

      // 216: an INSERT of this chunk still runs (an earlier one of this
      // push, cut off by its timeout, or another push's).
      const bool unknown = retryable(reply);
      if (unknown) pause(on, retries, reply.message());
      // Whatever the reply, the INSERT may have stored its rows (a
      // materialized view that fails after the table stored them): the push
      // says what is stored.
      wait_for_inserts(on, {id}, retries);
      const std::unordered_set<std::uint32_t> stored =
          stored_sequences(on, run.identity.run_id, chunk.number, retries);
      std::vector<std::uint32_t> missing;
      for (const std::uint32_t i : rows) {
        if (!stored.contains(section.records[i].sequence)) missing.push_back(i);
      }
      const std::uint64_t landed = rows.size() - missing.size();
      {
        std::lock_guard lock(mutex);
        if (SectionProgress* p = progress_of(chunk)) p->stored += landed;
        rows_inserted += landed;
      }
      if (!unknown) stop(server_refused(insert, reply));
      if (missing.empty()) return rows.size();
      // All of it missing: the same chunk again, the same block. Some:
      // rows stored by another hand than a push's chunks.
      if (missing.size() != rows.size()) rows = std::move(missing);
    }
  }

  /// Stores `pack`, chunks of several runs, in one INSERT (a table that
  /// drops no repeated block gains nothing from a block per chunk, and
  /// pays a part per INSERT), its rows `body` (pack_body() of `pack`).
  /// When its outcome is unknown, each chunk goes on alone with the rows
  /// the pack did not store.
  void insert_pack(Servers& on, const std::vector<ProfileToPush>& profiles,
                   const std::vector<std::vector<FleetRun>>& runs, std::span<const Chunk> pack,
                   const std::string& id, const std::string& body) {
    std::uint64_t rows = 0;
    for (const Chunk& chunk : pack) rows += chunk.row_count();
    std::vector<std::pair<std::string, std::string>> pack_settings = {
        {"max_insert_block_size", std::to_string(std::max<std::uint64_t>(rows, 1))},
        {"insert_deduplicate", "1"}};
    check_claims();
    HttpReply reply = on.current().post(insert, body, id, pack_settings);
    if (claims && deduplicating) {
      // Under claims, into a replicated table: an outcome unknown is
      // settled by sending the same block again (the next replica drops it
      // if it was stored), never by a block of other rows.
      int resent = 0;
      while (!reply.ok() && retryable(reply)) {
        pause(on, resent, reply.message());
        check_claims();
        reply = on.current().post(insert, body, id, pack_settings);
      }
    }
    if (reply.ok()) {
      std::lock_guard lock(mutex);
      for (const Chunk& chunk : pack) {
        const std::size_t n = chunk.row_count();
        if (SectionProgress* p = progress_of(chunk)) p->stored += n;
        rows_inserted += n;
      }
      return;
    }
    const bool unknown = retryable(reply);
    int retries = 0;
    if (unknown) pause(on, retries, reply.message());
    for (const Chunk& chunk : pack) {
      const FleetRun& run = runs[chunk.profile][chunk.run];
      if (unknown) {
        insert_chunk(on, profiles[chunk.profile].profile, run, chunk, &id);
        continue;
      }
      // Refused: what it stored anyway is counted before the push stops.
      wait_for_inserts(on, {id}, retries);
      const std::unordered_set<std::uint32_t> stored =
          stored_sequences(on, run.identity.run_id, chunk.number, retries);
      const Section& section = profiles[chunk.profile].profile.sections[chunk.index];
      std::uint64_t landed = 0;
      for (std::size_t i = chunk.first; i < chunk.last; ++i) {
        const bool listed = chunk.rows.empty() ||
                            std::find(chunk.rows.begin(), chunk.rows.end(), i) != chunk.rows.end();
        if (listed && stored.contains(section.records[i].sequence)) ++landed;
      }
      std::lock_guard lock(mutex);
      if (SectionProgress* p = progress_of(chunk)) p->stored += landed;
      rows_inserted += landed;
    }
    if (!unknown) stop(server_refused(insert, reply));
  }
};

Pusher::Pusher(PushSettings settings) {
  if (std::string problem =
          server_settings_problem("passtiming push", settings.urls, settings.table);
      !problem.empty()) {
    throw PushRefused(problem);
  }
  settings.batch_rows = std::max<std::size_t>(1, settings.batch_rows);
  settings.connections = std::max<std::size_t>(1, settings.connections);
  state_ = std::make_unique<State>(std::move(settings));
}

Pusher::~Pusher() = default;

std::string Pusher::shown(std::string text) const {
  return state_->shown(std::move(text));
}

bool Pusher::stored_anything() const {
  return state_->profiles_stored > 0 || state_->rows_inserted > 0;
}

namespace {

/// `table`'s columns are `expected`, names and types in order. A table that
/// does not exist is refused, or, given `missing`, sets it.
void check_schema(Pusher::State& s, const std::string& table, std::span<const RowColumn> expected,
                  bool* missing = nullptr) {
  int retries = 0;
  const HttpReply reply =
      s.exchange(s.servers, {}, fmt::format("DESCRIBE TABLE {} FORMAT TabSeparated", table),
                 retries, /*strict=*/false);
  if (!reply.ok()) {
    if (has_error_code(reply, 60) || has_error_code(reply, 81)) {
      if (missing != nullptr) {
        *missing = true;
        return;
      }
      s.refuse(fmt::format("passtiming push: table {} does not exist at {} (--create makes it): {}",
                           table, s.servers.current().url(), reply.message()));
    }
    s.stop(s.server_refused("DESCRIBE TABLE", reply));
  }
  const auto rows = tsv_rows(reply.body);
  const std::size_t n = std::max(rows.size(), expected.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string want =
        i < expected.size() ? fmt::format("{} {}", expected[i].name, expected[i].type) : "none";
    const std::string found = i < rows.size() && rows[i].size() >= 2
                                  ? fmt::format("{} {}", rows[i][0], rows[i][1])
                                  : std::string("none");
    if (want != found) {
      s.refuse(fmt::format(
          "passtiming push: table {} has another schema: column {} is '{}', expected '{}' "
          "(passtiming push --print-schema prints the table this version stores)",
          table, i + 1, found, want));
    }
  }
}

/// Stores the phases of `profile` not stored yet in the phase table, in one
/// INSERT (a compile has tens of phases, not millions), whose query id and
/// rows are the run's alone. The phase table is checked at the first
/// profile with phases.
void push_phases(Pusher::State& s, const std::string& path, const Profile& profile,
                 const RunIdentity& run) {
  if (profile.phases.empty() || s.no_phase_table) return;
  if (!s.phase_schema_checked) {
    check_schema(s, s.phase_table, phase_row_columns(), &s.no_phase_table);
    s.phase_schema_checked = true;
    if (s.no_phase_table) {
      // The passes are what the table was made for: they are stored without
      // the phases rather than refused.
      s.note(
          fmt::format("passtiming push: warning: table {} does not exist (--create makes it, "
                      "--print-phase-schema prints it): the phases are not stored",
                      s.phase_table));
      return;
    }
  }
  int retries = 0;
  const std::string id = fmt::format("{}{}:{}", kQueryIdPrefix, s.phase_table, run.run_id);
  s.wait_for_inserts(s.servers, {id}, retries);
  const HttpReply stored_reply =
      s.exchange(s.servers, {},
                 fmt::format("SELECT DISTINCT phase FROM {} WHERE run_id = {} FORMAT TabSeparated",
                             s.phase_table, sql_string(run.run_id)),
                 retries);
  std::unordered_set<std::uint64_t> stored;
  for (const auto& row : tsv_rows(stored_reply.body)) {
    if (!row.empty()) stored.insert(tsv_number(row[0], "SELECT phase"));
  }
  std::string rows;
  write_phase_rows(profile, run, [&rows](std::string_view text) { rows += text; });
  std::string body;
  std::uint64_t count = 0;
  std::size_t begin = 0;
  for (std::uint64_t phase = 0; begin < rows.size(); ++phase) {
    const std::size_t end = rows.find('\n', begin) + 1;
    if (!stored.contains(phase)) {
      body.append(rows, begin, end - begin);
      ++count;
    }
    begin = end;
  }
  if (count == 0) return;
  while (true) {
    const HttpReply reply =
        s.servers.current().post(fmt::format("INSERT INTO {} FORMAT JSONEachRow", s.phase_table),
                                 body, id, s.insert_settings);
    if (reply.ok()) break;
    if (!retryable(reply)) {
      s.stop(s.server_refused("INSERT", reply));
    }
    // Unknown: once the INSERT no longer runs, its phases are stored or not
    // at all (one block).
    s.pause(s.servers, retries, reply.message());
    s.wait_for_inserts(s.servers, {id}, retries);
    const HttpReply again =
        s.exchange(s.servers, {},
                   fmt::format("SELECT count() FROM {} WHERE run_id = {} FORMAT TabSeparated",
                               s.phase_table, sql_string(run.run_id)),
                   retries);
    const auto counted = tsv_rows(again.body);
    if (!counted.empty() && tsv_number(counted[0][0], "SELECT count()") >= stored.size() + count) {
      break;
    }
  }
  s.note(fmt::format("{}: {} stored in {}", path, plural(count, "phase"), s.phase_table));
}

}  // namespace

void Pusher::prepare() {
  State& s = *state_;
  if (s.settings.create) {
    for (const auto& [table, ddl] :
         {std::pair{s.settings.table, row_table_ddl(s.settings.table, s.settings.engine)},
          std::pair{s.phase_table, phase_table_ddl(s.phase_table, s.settings.engine)}}) {
      int retries = 0;
      const HttpReply reply = s.exchange(s.servers, {}, ddl, retries, /*strict=*/false);
      if (!reply.ok()) {
        // The server refused: credentials, rights, a replicated table
        // without ZooKeeper. Status 3, as every refusal of the server.
        s.stop(fmt::format("cannot create table {}: the server answered HTTP {}: {}", table,
                           reply.status, reply.message()));
      }
    }
  }
  check_schema(s, s.settings.table, row_columns());
  // Which engine: NAME in the URL's database, or DATABASE.NAME.
  const std::size_t dot = s.settings.table.find('.');
  const std::string where =
      dot == std::string::npos
          ? fmt::format("database = currentDatabase() AND name = {}", sql_string(s.settings.table))
          : fmt::format("database = {} AND name = {}", sql_string(s.settings.table.substr(0, dot)),
                        sql_string(s.settings.table.substr(dot + 1)));
  int retries = 0;
  const HttpReply engine = s.exchange(
      s.servers, {},
      fmt::format("SELECT engine FROM system.tables WHERE {} FORMAT TabSeparated", where), retries);
  // A Distributed table forwards blocks to replicated tables, perhaps: as
  // replicated. Only a MergeTree of one server is packed.
  const std::string_view name = std::string_view(engine.body).substr(0, engine.body.find('\n'));
  s.deduplicating = !(name.ends_with("MergeTree") && !name.starts_with("Replicated"));
  if (!s.settings.zookeeper.empty()) {
    // The claims' node is the table's, DATABASE.NAME whatever the URL's
    // database, so that every push into it meets the same claims.
    std::string qualified = s.settings.table;
    if (dot == std::string::npos) {
      const HttpReply database =
          s.exchange(s.servers, {}, "SELECT currentDatabase() FORMAT TabSeparated", retries);
      qualified =
          fmt::format("{}.{}", database.body.substr(0, database.body.find('\n')), s.settings.table);
    }
    try {
      s.claims = std::make_unique<Claims>(s.settings.zookeeper, "/passtiming/claims/" + qualified,
                                          s.settings.zookeeper_session_s, s.settings.timeout_s);
    } catch (const ClaimsError& e) {
      s.stop(e.what());
    }
  }
}

namespace {

/// The progress of the sections of each profile, as the rounds plan them.
using Sections = std::vector<std::vector<SectionProgress>>;

using Packs = std::vector<std::pair<std::size_t, std::size_t>>;  ///< [first, last) of chunks

/// Under claims the packs are the claimed runs' alone, in an order that
/// depends on them alone (run, section, sequence): a retry sends the same
/// blocks.
void sort_claimed(std::vector<Chunk>& chunks, const std::vector<std::vector<FleetRun>>& runs) {
  std::sort(chunks.begin(), chunks.end(), [&](const Chunk& a, const Chunk& b) {
    const std::string& x = runs[a.profile][a.run].identity.run_id;
    const std::string& y = runs[b.profile][b.run].identity.run_id;
    if (x != y) return x < y;
    if (a.number != b.number) return a.number < b.number;
    return a.first < b.first;
  });
}

/// A table that drops repeated blocks (replicated) gets each chunk in an
/// INSERT of its own, the same block whoever sends it, unless the runs are
/// claimed; any other gets chunks packed into INSERTs of up to batch_rows
/// rows, fewer parts.
Packs pack_ranges(const Pusher::State& s, const std::vector<Chunk>& chunks) {
  Packs packs;
  for (std::size_t i = 0; i < chunks.size();) {
    std::size_t j = i, rows = 0;
    do {
      rows += chunks[j].row_count();
      ++j;
    } while (s.packing() && j < chunks.size() &&
             rows + chunks[j].row_count() <= s.settings.batch_rows);
    packs.emplace_back(i, j);
    i = j;
  }
  return packs;
}

/// Under claims, the bodies of the first packs, built while the claims are
/// made and the checks wait on the servers, guessing that every run asked
/// for is claimed and nothing of them is stored (a fresh push): every
/// section whole, each (run, section) once. Used only when the plan the
/// count makes is the guess, chunk for chunk, so the blocks sent are the
/// ones built after the count would be.
struct BodiesAhead {
  std::vector<Chunk> chunks;
  Packs packs;
  std::vector<std::future<std::string>> bodies;  ///< of packs[0, bodies.size())
};

void build_ahead(const Pusher::State& s, const std::vector<ProfileToPush>& profiles,
                 const std::vector<std::vector<FleetRun>>& runs, const std::set<std::string>& only,
                 BodiesAhead& ahead) {
  std::set<std::pair<std::string, std::uint32_t>> seen;
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    for (std::size_t r = 0; r < runs[p].size(); ++r) {
      const FleetRun& run = runs[p][r];
      if (!only.contains(run.identity.run_id)) continue;
      for (const RunSection& rs : run.sections) {
        if (!seen.emplace(run.identity.run_id, rs.number).second) continue;
        const std::size_t size = profiles[p].profile.sections[rs.index].records.size();
        const std::size_t step = s.settings.batch_rows;
        for (std::size_t first = 0, c = 0; first < size; first += step, ++c) {
          ahead.chunks.push_back(
              {p, r, rs.index, rs.number, c, first, std::min(size, first + step), {}});
        }
      }
    }
  }
  sort_claimed(ahead.chunks, runs);
  ahead.packs = pack_ranges(s, ahead.chunks);
  // As many as the INSERTs sent at once: no more bodies held than the
  // workers would hold.
  const std::size_t n = std::min(s.settings.connections, ahead.packs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto [first, last] = ahead.packs[i];
    const std::span<const Chunk> pack =
        std::span<const Chunk>(ahead.chunks).subspan(first, last - first);
    ahead.bodies.push_back(std::async(std::launch::async, [&profiles, &runs, pack]() {
      return pack_body(profiles, runs, pack);
    }));
  }
}

/// One round of a push: of the runs in `only` (all when null), waits for
/// their INSERTs still running, counts what is stored, and sends what is
/// missing, `connections` INSERTs at a time. Appends each planned section
/// to `sections` and to the push's progress.
void send_round(Pusher::State& s, std::vector<ProfileToPush>& profiles,
                const std::vector<std::vector<FleetRun>>& runs, const std::set<std::string>* only,
                Sections& sections, BodiesAhead* ahead = nullptr) {
  std::vector<std::string> run_ids, prefixes;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    for (const FleetRun& run : runs[i]) {
      if (only != nullptr && !only->contains(run.identity.run_id)) continue;
      run_ids.push_back(run.identity.run_id);
      prefixes.push_back(
          fmt::format("{}{}:{}:", kQueryIdPrefix, s.settings.table, run.identity.run_id));
    }
  }
  // A pack names only its first run: any pack into the table may hold one
  // of these runs.
  if (s.packing()) {
    prefixes.push_back(fmt::format("{}{}:{}", kQueryIdPrefix, s.settings.table, kPackMark));
  }
  int retries = 0;
  if (s.claims) {
    // Holding the claims: what a push before stored, on any replica, is
    // committed or still running; the count waits for both.
    s.wait_for_inserts_everywhere(prefixes);
    if (s.deduplicating) s.wait_for_replica(s.servers, retries);
  } else {
    s.wait_for_inserts(s.servers, prefixes, retries);
  }
  const auto counts = run_ids.empty() ? decltype(s.stored_counts(s.servers, run_ids, retries))()
                                      : s.stored_counts(s.servers, run_ids, retries);

  // What is missing, in chunks of batch_rows records of a section. A
  // section met twice (an input and a merge of it) is sent once.
  std::vector<Chunk> chunks;
  Sections planned_sections(profiles.size());
  std::map<std::pair<std::string, std::uint32_t>, std::pair<std::size_t, std::size_t>> planned;
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    const Profile& profile = profiles[p].profile;
    for (std::size_t r = 0; r < runs[p].size(); ++r) {
      const FleetRun& run = runs[p][r];
      if (only != nullptr && !only->contains(run.identity.run_id)) continue;
      for (const RunSection& rs : run.sections) {
        const std::vector<Record>& records = profile.sections[rs.index].records;
        const auto found = counts.find({run.identity.run_id, rs.number});
        const std::uint64_t known = found == counts.end() ? 0 : found->second;
        const auto [plan, fresh] =
            planned.try_emplace({run.identity.run_id, rs.number}, p, rs.index);
        if (!fresh && known < records.size()) {
          const auto& [earlier, index] = plan->second;
          if (profiles[earlier].profile.sections[index].records.size() == records.size()) {
            s.note(fmt::format("{}: section {} of run {} is {}'s section {}: stored once",
                               profiles[p].path, rs.number, run.identity.run_id,
                               profiles[earlier].path, rs.number));
            planned_sections[p].push_back({rs.index, rs.number, records.size(), records.size(), 0});
            continue;
          }
        }
        planned_sections[p].push_back({rs.index, rs.number, records.size(), known, 0});
        if (known >= records.size()) {
          s.note(fmt::format("{}: section {} already stored ({})", profiles[p].path, rs.number,
                             plural(known, "row")));
          continue;
        }
        std::unordered_set<std::uint32_t> stored;
        if (known > 0) {
          stored = s.stored_sequences(s.servers, run.identity.run_id, rs.number, retries);
        }
        const std::size_t step = s.settings.batch_rows;
        for (std::size_t first = 0, c = 0; first < records.size(); first += step, ++c) {
          Chunk chunk{p, r, rs.index, rs.number, c, first, std::min(records.size(), first + step),
                      {}};
          std::vector<std::uint32_t> missing;
          for (std::size_t i = chunk.first; i < chunk.last; ++i) {
            if (!stored.contains(records[i].sequence)) {
              missing.push_back(static_cast<std::uint32_t>(i));
            }
          }
          if (missing.empty()) continue;
          if (missing.size() != chunk.last - chunk.first) chunk.rows = std::move(missing);
          chunks.push_back(std::move(chunk));
        }
      }
    }
  }
  {
    std::lock_guard lock(s.mutex);
    for (std::size_t p = 0; p < profiles.size(); ++p) {
      s.group[p].checked = true;
      for (const SectionProgress& section : planned_sections[p]) {
        s.group[p].sections.push_back(section);
        sections[p].push_back(section);
      }
    }
  }
  if (s.claims) sort_claimed(chunks, runs);
  const Packs packs = pack_ranges(s, chunks);
  // The bodies built ahead are this plan's when its chunks are the guess's.
  const std::size_t built = ahead != nullptr && chunks == ahead->chunks ? ahead->bodies.size() : 0;

  // The INSERTs, `connections` at a time, each worker on servers of its
  // own; the first failure stops the others after their current INSERT.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&]() {
    try {
      Servers on(s.settings.urls, s.settings.timeout_s);
      while (!failed) {
        const std::size_t i = next++;
        if (i >= packs.size()) return;
        const auto [first, last] = packs[i];
        const Chunk& chunk = chunks[first];
        const FleetRun& run = runs[chunk.profile][chunk.run];
        if (last - first == 1 && !s.claims) {
          s.insert_chunk(on, profiles[chunk.profile].profile, run, chunk);
        } else {
          const std::span<const Chunk> pack =
              std::span<const Chunk>(chunks).subspan(first, last - first);
          s.insert_pack(
              on, profiles, runs, pack,
              fmt::format("{}{}:{}{}:{}:{}+{}", kQueryIdPrefix, s.settings.table, kPackMark,
                          run.identity.run_id, chunk.number, chunk.chunk, last - first),
              i < built ? ahead->bodies[i].get() : pack_body(profiles, runs, pack));
        }
      }
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  const std::size_t workers = std::min(s.settings.connections, packs.size());
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
  }
  if (failure) std::rethrow_exception(failure);
}

/// The rounds of a push under claims: claims what it can of `run_ids`,
/// sends those runs, releases them; waits (watching) for a claim another
/// push holds, up to 4 × timeout_s without progress.
void send_claimed(Pusher::State& s, std::vector<ProfileToPush>& profiles,
                  const std::vector<std::vector<FleetRun>>& runs, std::set<std::string> pending,
                  Sections& sections) {
  const double patience = s.settings.timeout_s * 4;
  try {
    while (!pending.empty()) {
      BodiesAhead ahead;
      build_ahead(s, profiles, runs, pending, ahead);
      const std::vector<std::string> claimed =
          s.claims->try_claim(std::vector<std::string>(pending.begin(), pending.end()));
      if (claimed.empty()) {
        const std::string& held = *pending.begin();
        s.note(
            fmt::format("passtiming push: run {} is claimed by another push; waiting until "
                        "it is released",
                        held));
        if (!s.claims->wait_released(held, patience)) {
          s.stop(fmt::format(
              "run {} stayed claimed by another push for {:.0f} s (ZooKeeper at {}, node "
              "/passtiming/claims/…/{})",
              held, patience, s.claims->shown_address(), claim_node_name(held)));
        }
        continue;
      }
      const std::set<std::string> round(claimed.begin(), claimed.end());
      try {
        send_round(s, profiles, runs, &round, sections, &ahead);
      } catch (...) {
        s.claims->release_all();
        throw;
      }
      s.claims->release_all();
      for (const std::string& id : claimed) pending.erase(id);
    }
  } catch (const ClaimsError& e) {
    s.stop(e.what());
  } catch (const ClaimLost& e) {
    s.stop(
        fmt::format("{}: its claims may be another push's now, so nothing more is sent", e.what()));
  }
}

}  // namespace

void Pusher::push(std::vector<ProfileToPush>& profiles) {
  State& s = *state_;
  for (const ProfileToPush& p : profiles) {
    try {
      check_rows(p.profile, p.path);
    } catch (const std::invalid_argument& e) {
      s.refuse(e.what());
    }
  }
  // Every run of the profiles, and one wait and one count for all of them
  // (for those of each round, under claims).
  std::vector<std::vector<FleetRun>> runs(profiles.size());
  std::set<std::string> run_ids;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    try {
      runs[i] = fleet_runs(profiles[i].profile, s.settings.meta);
    } catch (const std::exception& e) {
      s.refuse(fmt::format("passtiming push: {}", e.what()));
    }
    for (const FleetRun& run : runs[i]) run_ids.insert(run.identity.run_id);
  }
  {
    std::lock_guard lock(s.mutex);
    s.group.clear();
    for (const ProfileToPush& p : profiles) s.group.push_back({p.path, false, false, {}});
  }
  if (profiles.empty()) return;
  Sections sections(profiles.size());
  if (s.claims) {
    send_claimed(s, profiles, runs, std::move(run_ids), sections);
  } else {
    send_round(s, profiles, runs, nullptr, sections);
  }

  for (std::size_t p = 0; p < profiles.size(); ++p) {
    const Profile& profile = profiles[p].profile;
    const std::string& path = profiles[p].path;
    std::uint64_t inserted = 0;
    {
      std::lock_guard lock(s.mutex);
      for (std::size_t i = 0; i < sections[p].size(); ++i) {
        inserted += s.group[p].sections[i].stored - sections[p][i].stored;
      }
    }
    if (inserted > 0) {
      std::string ids;
      for (const FleetRun& run : runs[p]) {
        if (!ids.empty()) ids += ", ";
        ids += run.identity.run_id;
      }
      s.note(fmt::format("{}: {} stored in {} (run_id {})", path, plural(inserted, "row"),
                         s.settings.table, ids));
    }
    // A merged profile's phases are its inputs' under new roots: they are
    // stored with the inputs, not again under the merge.
    const bool merged = std::any_of(profile.sections.begin(), profile.sections.end(),
                                    [](const Section& x) { return !x.origin.empty(); });
    if (!merged) push_phases(s, path, profile, run_identity(profile.metadata, s.settings.meta));
    std::lock_guard lock(s.mutex);
    s.group[p].done = true;
    ++s.profiles_stored;
  }
}

std::string Pusher::progress(std::size_t profiles) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  std::string text = fmt::format("stored {} of {}, {}", s.profiles_stored,
                                 plural(profiles, "profile"), plural(s.rows_inserted, "row"));
  // The first profile not stored, and its first section not stored.
  for (const GroupProfile& g : s.group) {
    if (g.done) continue;
    if (!g.checked) {
      text += fmt::format("; {} not checked", g.path);
      break;
    }
    const auto open = std::find_if(g.sections.begin(), g.sections.end(),
                                   [](const SectionProgress& p) { return p.stored < p.total; });
    if (open == g.sections.end()) continue;
    text += fmt::format("; {} section {}: {} of {} rows stored", g.path, open->number, open->stored,
                        open->total);
    if (open->unknown > 0) text += fmt::format(" ({} more sent without an answer)", open->unknown);
    break;
  }
  return s.shown(text);
}

}  // namespace passtiming::fleet
