#pragma once
/// \file
/// The push protocol (docs/fleet.md#the-push): profiles stored in a
/// ClickHouse table over HTTP, each pass execution once, however often a
/// push is repeated, cut off or run beside others.
///
/// - Identity: a row is named by (run_id, section, sequence), the run and
///   section as the recording profile numbers them (fleet_runs: a merged
///   profile's sections keep their inputs' identity).
/// - What is stored: before sending, a push waits until no INSERT of its
///   runs still runs on the server (each has a query id made of the table,
///   run, section and chunk), then counts the distinct sequences stored per
///   section (the table's sorting key leads with run_id, section,
///   sequence). A section with every sequence stored is skipped; of one
///   partly stored, only the chunks with missing rows are sent.
/// - Deterministic blocks: a section is sent in chunks of `batch_rows`
///   records (its first `batch_rows` records, the next, …), one INSERT and
///   one block each (`max_insert_block_size`), rows made from the profile
///   alone. The same chunk is the same block whoever sends it and however
///   often, so a replicated table (TableEngine::kReplicated) drops a
///   repeated one: concurrent pushes store each row once.
/// - Retries: a request whose outcome is unknown (a transport failure,
///   HTTP 502/503/504, or the chunk's INSERT still running) is retried,
///   after a pause, on the next of `urls` (a replica of the same shard),
///   once the server says which of the chunk's rows are stored.
/// - Claims (with `zookeeper`): into a replicated table, a push first
///   claims its runs in ZooKeeper (claims.h), then, holding them, waits for
///   the INSERTs of the table still running on any of `urls` and for the
///   checked replica to have fetched every part committed before, counts,
///   and sends what is missing packed into blocks of up to `batch_rows`
///   rows, sorted by run, section and sequence. No other claiming push
///   sends those runs meanwhile; the push's own retries send byte-identical
///   blocks, which the table drops. The claims end with the round. The
///   first blocks are built while the claims are made and the checks run,
///   for the plan of a fresh push (every run claimed, nothing stored), and
///   sent only when the count's plan is that one, chunk for chunk.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/fleet.h"

namespace passtiming::fleet {

/// Where and how a push stores.
struct PushSettings {
  /// The servers' HTTP interfaces (`http://127.0.0.1:8123`, user
  /// information and parameters allowed): one server, or replicas of one
  /// shard, tried in turn when one is away. At least one.
  std::vector<std::string> urls;
  std::string table = "pass_executions";         ///< NAME or DATABASE.NAME
  bool create = false;                           ///< make the tables when they do not exist
  TableEngine engine = TableEngine::kReplacing;  ///< the engine of the tables `create` makes
  MetaPairs meta;                                ///< `--meta` pairs, as for fleet_runs
  std::size_t batch_rows = 100000;               ///< records per chunk, one INSERT each
  std::size_t connections = 4;                   ///< INSERTs sent at once
  int retries = 5;                               ///< retries of a request whose outcome is unknown
  double timeout_s = 60;                         ///< seconds a request may take
  /// ZooKeeper's `HOST:PORT[,HOST:PORT…][/chroot]`, where the runs are
  /// claimed before they are checked and sent packed (Claims). Empty: no
  /// claims, and a replicated table gets each chunk as a block of its own.
  std::string zookeeper;
  double zookeeper_session_s = 5;  ///< the claims' session timeout, seconds
  /// Receives each progress line (no newline). Never holds a secret of the
  /// URLs. Called from one thread at a time.
  std::function<void(std::string_view)> note;
};

/// The push could not store everything: the server refused a request
/// (credentials, a failing INSERT) or was away past the retries, or, with
/// claims, ZooKeeper was away, a claim stayed another push's too long, or
/// the push's session ended. What was stored stays; pushing again stores
/// the rest. `what()` holds no secret.
class PushStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Something the caller can fix: a malformed profile, a table of another
/// schema, a table that does not exist (without `create`). `what()` holds no
/// secret.
class PushRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A profile to store, and the file it came from (for messages).
struct ProfileToPush {
  std::string path;
  Profile profile;
};

/// One push: settings, connections, and what it stored so far.
class Pusher {
 public:
  /// Throws PushRefused for a table name that is not NAME or DATABASE.NAME
  /// or a URL that is not http:// or https://.
  explicit Pusher(PushSettings settings);
  ~Pusher();
  Pusher(const Pusher&) = delete;
  Pusher& operator=(const Pusher&) = delete;

  /// Makes the tables with `create`, then checks that the table's columns
  /// are row_columns(). Throws PushRefused or PushStopped.
  void prepare();

  /// Stores what of `profiles` is not stored yet: one wait for running
  /// INSERTs and one count for all of them, then their chunks,
  /// `connections` at a time. Throws PushRefused (checked before anything
  /// is sent: check_rows) or PushStopped.
  void push(std::vector<ProfileToPush>& profiles);

  /// Whether the push stored anything or found anything stored.
  bool stored_anything() const;

  /// What the push stored, for the message when it stops: "stored 1 of 3
  /// profiles, 2000 rows; FILE section 0: 1000 of 5000 rows stored".
  std::string progress(std::size_t profiles) const;

  /// `text` without the URLs' secrets (scrubbed()).
  std::string shown(std::string text) const;

  struct State;  ///< the push's connections and progress (push.cc)

 private:
  std::unique_ptr<State> state_;
};

/// Whether `name` is a table name ClickHouse takes unquoted: NAME or
/// DATABASE.NAME.
bool valid_table_name(std::string_view name);

/// What is wrong with a command's servers and table, or "" when nothing:
/// no URL, a URL that is not http:// or https:// (shown redacted), a table
/// that is not NAME or DATABASE.NAME. `command` begins the message
/// ("passtiming push"). Push and pull refuse their settings by it.
std::string server_settings_problem(std::string_view command, const std::vector<std::string>& urls,
                                    std::string_view table);

}  // namespace passtiming::fleet
