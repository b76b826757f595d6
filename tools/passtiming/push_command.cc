// `passtiming push FILE... --clickhouse URL [--table T] [--create] [--meta KEY=VALUE]...
// [--batch-rows N] [--retries N] [--timeout-s S]`: stores the rows of
// `export --to rows` in a ClickHouse table over HTTP, idempotently: each
// pass execution is stored once, however often a push is repeated or cut.
//
// How: per profile, the server is asked how many rows of each section of the
// run id it holds. A complete section is skipped, an empty one sent whole,
// and of a partial one (a push cut off earlier) only the missing sequences.
// Rows go in batches of at most --batch-rows, one INSERT each, which
// ClickHouse stores atomically. When a batch's outcome is unknown (the
// connection failed, or 502/503/504), the push waits, asks again which of
// its rows are stored and sends the others.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "clickhouse_client.h"
#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/fleet.h"
#include "passtiming/formats/profile_io.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string url;
  std::string table = "pass_executions";
  bool create = false;
  bool print_schema = false;
  bool print_phase_schema = false;
  std::vector<std::string> meta;
  std::size_t batch_rows = 100000;
  int retries = 5;
  std::string timeout_s = "60";
};

/// The push cannot go on: retries exhausted, or the server refused a
/// request. Exit status 3.
struct Stopped {
  std::string reason;
};

/// A usage, input or schema error found while pushing. Exit status 2.
struct Refused {
  std::string message;
};

/// One row to send: a record of a section.
struct Item {
  std::uint32_t section;
  std::uint32_t index;
};

/// The lines of a TabSeparated reply, each split at tabs.
std::vector<std::vector<std::string_view>> tsv_rows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    std::vector<std::string_view>& fields = rows.emplace_back();
    while (true) {
      const std::size_t tab = line.find('\t');
      fields.push_back(line.substr(0, tab));
      if (tab == std::string_view::npos) break;
      line.remove_prefix(tab + 1);
    }
  }
  return rows;
}

std::uint64_t tsv_number(std::string_view field, std::string_view what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) {
    throw Stopped{fmt::format("unexpected reply to {}: '{}'", what, field)};
  }
  return value;
}

std::string plural(std::uint64_t n, std::string_view word) {
  if (n == 1) return fmt::format("1 {}", word);
  if (word.ends_with('y')) return fmt::format("{} {}ies", n, word.substr(0, word.size() - 1));
  return fmt::format("{} {}s", n, word);
}

/// A ClickHouse error reply of the code `code` (`Code: 60, …` in 18.x,
/// `Code: 60. …` later).
bool has_error_code(const HttpReply& reply, int code) {
  const std::string prefix = fmt::format("Code: {}", code);
  std::string_view body(reply.body);
  while (!body.empty() && (body.front() == '\n' || body.front() == ' ')) body.remove_prefix(1);
  return body.starts_with(prefix) && body.size() > prefix.size() &&
         !std::isdigit(static_cast<unsigned char>(body[prefix.size()]));
}

/// Checks a profile before any of it is sent: the table's key names a pass
/// execution by (run_id, section, sequence), so two records of a section
/// with one sequence would be one row; and `start_ns` is a UInt64 column.
void check_profile(const std::string& path, const Profile& profile) {
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    std::vector<std::uint32_t> sequences;
    sequences.reserve(profile.sections[s].records.size());
    for (const Record& r : profile.sections[s].records) {
      if (r.start_ns < 0) {
        throw Refused{fmt::format(
            "{}: section {}: the record with sequence {} starts at {} ns (start_ns is unsigned "
            "in the table)",
            path, s, r.sequence, r.start_ns)};
      }
      sequences.push_back(r.sequence);
    }
    std::sort(sequences.begin(), sequences.end());
    const auto twice = std::adjacent_find(sequences.begin(), sequences.end());
    if (twice != sequences.end()) {
      throw Refused{fmt::format(
          "{}: section {}: two records with sequence {} (a row is stored by run_id, section "
          "and sequence)",
          path, s, *twice)};
    }
  }
}

class Pusher {
 public:
  Pusher(const Options& options, MetaPairs meta, double timeout_s)
      : options_(options),
        meta_(std::move(meta)),
        http_(options.url, timeout_s),
        insert_(fmt::format("INSERT INTO {} FORMAT JSONEachRow", options.table)),
        phase_table_(phase_table_name(options.table)) {}

  /// `--create`: the table and its phase table, when they do not exist.
  void create_table() {
    for (const auto& [table, ddl] : {std::pair{options_.table, row_table_ddl(options_.table)},
                                     std::pair{phase_table_, phase_table_ddl(phase_table_)}}) {
      int retries = 0;
      const HttpReply reply = exchange({}, ddl, retries, /*strict=*/false);
      if (!reply.ok()) {
        throw Refused{
            fmt::format("passtiming push: cannot create table {}: {}", table, reply.message())};
      }
    }
  }

  /// The table's columns are the rows' columns, names and types in order.
  void check_schema() { check_schema(options_.table, row_columns()); }

  /// `table`'s columns are `expected`, names and types in order. A table
  /// that does not exist is refused, or, given `missing`, sets it.
  void check_schema(const std::string& table, std::span<const RowColumn> expected,
                    bool* missing = nullptr) {
    int retries = 0;
    const HttpReply reply =
        exchange({}, fmt::format("DESCRIBE TABLE {} FORMAT TabSeparated", table), retries,
                 /*strict=*/false);
    if (!reply.ok()) {
      if (has_error_code(reply, 60) || has_error_code(reply, 81)) {
        if (missing != nullptr) {
          *missing = true;
          return;
        }
        throw Refused{
            fmt::format("passtiming push: table {} does not exist at {} (--create makes it): {}",
                        table, http_.url(), reply.message())};
      }
      throw Stopped{server_refused("DESCRIBE TABLE", reply)};
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
        throw Refused{fmt::format(
            "passtiming push: table {} has another schema: column {} is '{}', expected '{}' "
            "(passtiming push --print-schema prints the table this version stores)",
            table, i + 1, found, want)};
      }
    }
  }

  /// Stores what of `profile` is not stored yet.
  void push_profile(const std::string& path, const Profile& profile) {
    const RunIdentity run = run_identity(profile.metadata, meta_);
    current_ = Current{path, -1, 0, 0, 0};
    const std::string run_literal = sql_string(run.run_id);
    const std::string count_sql = fmt::format(
        "SELECT section, count() FROM {} WHERE run_id = {} GROUP BY section FORMAT TabSeparated",
        options_.table, run_literal);
    int retries = 0;
    std::vector<std::uint64_t> known = stored_counts(count_sql, profile, retries);

    std::vector<Item> pending;
    std::uint64_t inserted = 0;
    for (std::size_t s = 0; s < profile.sections.size(); ++s) {
      const std::vector<Record>& records = profile.sections[s].records;
      if (records.empty()) continue;
      if (known[s] >= records.size()) {
        std::fprintf(stderr, "%s: section %zu already stored (%s)\n", path.c_str(), s,
                     plural(known[s], "row").c_str());
        continue;
      }
      std::unordered_set<std::uint32_t> stored;
      if (known[s] > 0) {
        stored = stored_sequences(run_literal, static_cast<std::uint32_t>(s), 0,
                                  static_cast<std::uint32_t>(-1), retries);
      }
      for (std::size_t i = 0; i < records.size(); ++i) {
        if (!stored.contains(records[i].sequence)) {
          pending.push_back({static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(i)});
        }
      }
    }

    // The rows of the next batch are made on a second thread while the
    // server stores the current one, so the push waits on the server, not
    // on itself. Each thread has its own writer; `writer` makes the bodies
    // of batches sent again.
    RowWriter writer(profile, run);
    RowWriter ahead(profile, run);
    auto batch_of = [&](std::size_t first) {
      const std::size_t last = std::min(pending.size(), first + options_.batch_rows);
      return std::vector<Item>(pending.begin() + static_cast<std::ptrdiff_t>(first),
                               pending.begin() + static_cast<std::ptrdiff_t>(last));
    };
    auto body_of = [&ahead](const std::vector<Item>& items) {
      std::string body;
      for (const Item& item : items) ahead.append(body, item.section, item.index);
      return body;
    };
    std::future<std::string> next_body;
    if (!pending.empty()) next_body = std::async(std::launch::async, body_of, batch_of(0));
    for (std::size_t first = 0; first < pending.size(); first += options_.batch_rows) {
      std::vector<Item> items = batch_of(first);
      std::string body = next_body.get();
      if (first + options_.batch_rows < pending.size()) {
        next_body = std::async(std::launch::async, body_of, batch_of(first + options_.batch_rows));
      }
      inserted += insert_batch(writer, profile, run_literal, count_sql, std::move(items), known,
                               std::move(body));
    }
    if (inserted > 0) {
      std::fprintf(stderr, "%s: %s stored in %s (run_id %s)\n", path.c_str(),
                   plural(inserted, "row").c_str(), options_.table.c_str(), run.run_id.c_str());
    }
    push_phases(path, profile, run);
    ++profiles_stored_;
    current_.reset();
  }

  /// Stores the phases of `profile` not stored yet in the phase table, in
  /// one INSERT (a compile has tens of phases, not millions). The phase
  /// table is checked at the first profile with phases, so that pushing
  /// profiles without phases needs none.
  void push_phases(const std::string& path, const Profile& profile, const RunIdentity& run) {
    if (profile.phases.empty() || no_phase_table_) return;
    if (!phase_schema_checked_) {
      check_schema(phase_table_, phase_row_columns(), &no_phase_table_);
      phase_schema_checked_ = true;
      if (no_phase_table_) {
        // The passes are what the table was made for: they are stored
        // without the phases rather than refused.
        std::fprintf(stderr,
                     "passtiming push: warning: table %s does not exist (--create makes it, "
                     "--print-phase-schema prints it): the phases are not stored\n",
                     phase_table_.c_str());
        return;
      }
    }
    int retries = 0;
    const HttpReply stored_reply =
        exchange({},
                 fmt::format("SELECT DISTINCT phase FROM {} WHERE run_id = {} FORMAT TabSeparated",
                             phase_table_, sql_string(run.run_id)),
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
    // A retried INSERT that had been stored leaves a row twice, one after
    // the table's next merge (ReplacingMergeTree on run_id and phase).
    exchange(fmt::format("INSERT INTO {} FORMAT JSONEachRow", phase_table_), body, retries);
    std::fprintf(stderr, "%s: %s stored in %s\n", path.c_str(), plural(count, "phase").c_str(),
                 phase_table_.c_str());
  }

  /// Whether the push stored anything or found anything stored.
  bool stored_anything() const { return profiles_stored_ > 0 || rows_inserted_ > 0; }

  /// What the push stored before it stopped, for the final message.
  std::string progress(std::size_t profiles) const {
    std::string text = fmt::format("stored {} of {}, {}", profiles_stored_,
                                   plural(profiles, "profile"), plural(rows_inserted_, "row"));
    if (current_) {
      if (current_->section < 0) {
        text += fmt::format("; {} not checked", current_->path);
      } else {
        text += fmt::format("; {} section {}: {} of {} rows stored", current_->path,
                            current_->section, current_->stored, current_->total);
        if (current_->unknown > 0) {
          text += fmt::format(" ({} more sent without an answer)", current_->unknown);
        }
      }
    }
    return text;
  }

 private:
  /// The section being stored, for the message when the push stops.
  struct Current {
    std::string path;
    long long section = -1;  ///< -1 before the profile was checked
    std::uint64_t stored = 0;
    std::uint64_t total = 0;
    std::uint64_t unknown = 0;  ///< rows of a batch whose outcome is unknown
  };

  /// Pauses before retry number `retries` (0.2 s doubling, at most 5 s), or
  /// stops when --retries are used up.
  void pause(int& retries, const std::string& error) {
    if (retries >= options_.retries) {
      throw Stopped{
          fmt::format("gave up after {}: {} ({})", plural(retries, "retry"), error, http_.url())};
    }
    const auto wait = std::chrono::milliseconds(std::min(5000, 200 << std::min(retries, 5)));
    ++retries;
    std::fprintf(stderr, "passtiming push: %s; retry %d of %d in %.1f s\n", error.c_str(), retries,
                 options_.retries, static_cast<double>(wait.count()) / 1000.0);
    std::this_thread::sleep_for(wait);
  }

  /// Sends a request until a reply comes that is not transient, pausing
  /// between attempts. With `strict`, any reply but 200 stops the push.
  HttpReply exchange(std::string_view query, std::string_view body, int& retries,
                     bool strict = true) {
    while (true) {
      HttpReply reply = http_.post(query, body);
      if (reply.ok() || !reply.transient()) {
        if (!reply.ok() && strict)
          throw Stopped{server_refused(query.empty() ? body : query, reply)};
        return reply;
      }
      pause(retries, reply.message());
    }
  }

  std::string server_refused(std::string_view statement, const HttpReply& reply) const {
    std::string_view what = statement.substr(0, statement.find_first_of(" \n"));
    return fmt::format("the server answered {} with HTTP {}: {}", what, reply.status,
                       reply.message());
  }

  /// Waits while the query `query_id` runs on the server.
  void wait_until_done(const std::string& query_id, int& retries) {
    const std::string sql =
        fmt::format("SELECT count() FROM system.processes WHERE query_id = {} FORMAT TabSeparated",
                    sql_string(query_id));
    while (true) {
      const HttpReply reply = exchange({}, sql, retries);
      const auto rows = tsv_rows(reply.body);
      if (rows.size() != 1 || rows[0].size() != 1) {
        throw Stopped{"unexpected reply to SELECT FROM system.processes: " + reply.message()};
      }
      if (tsv_number(rows[0][0], "SELECT FROM system.processes") == 0) return;
      pause(retries, "the INSERT sent before still runs");
    }
  }

  /// Rows stored per section of the run (`count_sql`).
  std::vector<std::uint64_t> stored_counts(const std::string& count_sql, const Profile& profile,
                                           int& retries) {
    const HttpReply reply = exchange({}, count_sql, retries);
    std::vector<std::uint64_t> counts(profile.sections.size(), 0);
    for (const auto& row : tsv_rows(reply.body)) {
      if (row.size() != 2) throw Stopped{"unexpected reply to SELECT count(): " + reply.message()};
      const std::uint64_t section = tsv_number(row[0], "SELECT count()");
      if (section < counts.size()) counts[section] = tsv_number(row[1], "SELECT count()");
    }
    return counts;
  }

  /// The stored sequences of section `section` of the run from `lo` to `hi`.
  std::unordered_set<std::uint32_t> stored_sequences(const std::string& run_literal,
                                                     std::uint32_t section, std::uint32_t lo,
                                                     std::uint32_t hi, int& retries) {
    const HttpReply reply = exchange(
        {},
        fmt::format("SELECT sequence FROM {} WHERE run_id = {} AND section = {} AND sequence >= "
                    "{} AND sequence <= {} FORMAT TabSeparated",
                    options_.table, run_literal, section, lo, hi),
        retries);
    std::unordered_set<std::uint32_t> sequences;
    for (const auto& row : tsv_rows(reply.body)) {
      sequences.insert(static_cast<std::uint32_t>(tsv_number(row[0], "SELECT sequence")));
    }
    return sequences;
  }

  /// Of `items`, sent in an INSERT whose outcome is unknown, those not
  /// stored, given the rows now stored per section (`now`) and those known
  /// stored before (`known`, brought up to `now`); the stored ones are
  /// counted in `inserted`.
  std::vector<Item> unstored_items(const Profile& profile, const std::string& run_literal,
                                   const std::vector<Item>& items,
                                   const std::vector<std::uint64_t>& now,
                                   std::vector<std::uint64_t>& known, std::uint64_t& inserted,
                                   int& retries) {
    std::map<std::uint32_t, std::uint64_t> in_batch;                         // rows per section
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> range;  // of sequences
    for (const Item& item : items) {
      const std::uint32_t seq = profile.sections[item.section].records[item.index].sequence;
      auto [it, fresh] = range.try_emplace(item.section, seq, seq);
      it->second.first = std::min(it->second.first, seq);
      it->second.second = std::max(it->second.second, seq);
      ++in_batch[item.section];
    }
    std::vector<Item> rest;
    for (const auto& [s, count] : in_batch) {
      // Nothing of the batch stored, all of it (an INSERT of one block is
      // atomic), or, should some other push have run meanwhile, look.
      const bool none = now[s] == known[s];
      const bool all = now[s] == known[s] + count;
      std::unordered_set<std::uint32_t> landed;
      if (!none && !all) {
        landed = stored_sequences(run_literal, s, range[s].first, range[s].second, retries);
      }
      for (const Item& item : items) {
        if (item.section != s) continue;
        const std::uint32_t seq = profile.sections[s].records[item.index].sequence;
        if (all || (!none && landed.contains(seq))) {
          ++inserted;
          ++rows_inserted_;
        } else {
          rest.push_back(item);
        }
      }
      known[s] = now[s];
    }
    return rest;
  }

  /// Sends `items` as one INSERT; when its outcome is unknown, waits, asks
  /// which of them are stored and sends the others. Returns the rows stored.
  /// `body` holds the rows of `items` when made ahead (else it is empty).
  std::uint64_t insert_batch(RowWriter& writer, const Profile& profile,
                             const std::string& run_literal, const std::string& count_sql,
                             std::vector<Item> items, std::vector<std::uint64_t>& known,
                             std::string body) {
    std::uint64_t inserted = 0;
    int retries = 0;
    bool made_ahead = !body.empty();
    // Every INSERT of the batch goes under one id, so that the server runs
    // at most one of them at a time and the push can see one still running.
    const std::string query_id =
        fmt::format("passtiming-push-{}-{}-{}", ::getpid(),
                    std::chrono::system_clock::now().time_since_epoch().count(), ++batches_);
    while (!items.empty()) {
      if (!made_ahead) {
        body.clear();
        for (const Item& item : items) writer.append(body, item.section, item.index);
      }
      made_ahead = false;  // a batch sent again has only the rows not stored
      const std::uint32_t section = items.front().section;
      const auto in_section = static_cast<std::uint64_t>(std::count_if(
          items.begin(), items.end(), [&](const Item& i) { return i.section == section; }));
      current_->section = section;
      current_->stored = known[section];
      current_->total = profile.sections[section].records.size();
      current_->unknown = in_section;

      const HttpReply reply = http_.post(insert_, body, query_id);
      if (reply.ok()) {
        for (const Item& item : items) ++known[item.section];
        inserted += items.size();
        rows_inserted_ += items.size();
        current_->stored = known[section];
        current_->unknown = 0;
        return inserted;
      }
      // 216: the INSERT sent before under this id still runs.
      if (!reply.transient() && !has_error_code(reply, 216)) {
        current_->unknown = 0;  // refused: a batch is one block, stored whole or not at all
        throw Stopped{server_refused(insert_, reply)};
      }

      // The outcome is unknown: wait until no INSERT of the batch runs any
      // more (one cut off by a timeout may still be storing its rows), then
      // see which rows of the batch are stored.
      pause(retries, reply.message());
      wait_until_done(query_id, retries);
      const std::vector<std::uint64_t> now = stored_counts(count_sql, profile, retries);
      items = unstored_items(profile, run_literal, items, now, known, inserted, retries);
    }
    current_->unknown = 0;
    return inserted;
  }

  const Options& options_;
  MetaPairs meta_;
  ClickHouseHttp http_;
  std::string insert_;
  /// The phase table beside options_.table, and whether its schema was
  /// checked.
  std::string phase_table_;
  bool phase_schema_checked_ = false;
  bool no_phase_table_ = false;
  std::uint64_t batches_ = 0;
  std::size_t profiles_stored_ = 0;
  std::uint64_t rows_inserted_ = 0;
  std::optional<Current> current_;
};

/// A table name ClickHouse takes unquoted: NAME or DATABASE.NAME.
bool valid_table_name(const std::string& name) {
  static const std::regex pattern("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");
  return std::regex_match(name, pattern);
}

int push(const Options& options) {
  if (!valid_table_name(options.table)) {
    return input_failure(fmt::format(
        "passtiming push: --table '{}': expected NAME or DATABASE.NAME (letters, digits, _)",
        options.table));
  }
  if (options.print_phase_schema) {
    std::printf("%s\n", phase_table_ddl(phase_table_name(options.table)).c_str());
    return kExitOk;
  }
  if (options.print_schema) {
    std::printf("%s\n", row_table_ddl(options.table).c_str());
    return kExitOk;
  }
  if (options.inputs.empty()) return input_failure("passtiming push: no FILE given");
  if (options.url.empty()) return input_failure("passtiming push: --clickhouse URL is required");
  if (!options.url.starts_with("http://") && !options.url.starts_with("https://")) {
    return input_failure(
        fmt::format("passtiming push: --clickhouse '{}': expected an http:// or https:// URL",
                    redacted_url(options.url)));
  }
  double timeout_s = 0;
  if (!parse_number_option(options.timeout_s, "--timeout-s", timeout_s)) return kExitUsage;
  if (timeout_s <= 0) {
    return input_failure(
        fmt::format("passtiming: --timeout-s must be more than 0 (got '{}')", options.timeout_s));
  }
  MetaPairs meta;
  try {
    meta = parse_meta_pairs(options.meta);
  } catch (const ConfigError& e) {
    return input_failure(fmt::format("passtiming push: {}", e.what()));
  }
  const bool one_run_id =
      std::any_of(meta.begin(), meta.end(), [](const auto& kv) { return kv.first == "run_id"; });
  if (one_run_id && options.inputs.size() > 1) {
    return input_failure(
        "passtiming push: --meta run_id=… names one run, but several FILEs were given: each "
        "profile needs a run id of its own (push them one at a time)");
  }

  Pusher pusher(options, std::move(meta), timeout_s);
  const std::size_t total = options.inputs.size();
  try {
    if (options.create) pusher.create_table();
    pusher.check_schema();
    for (const std::string& path : options.inputs) {
      Profile profile;
      try {
        profile = load_profile(path);
        check_profile(path, profile);
      } catch (const Refused&) {
        throw;
      } catch (const std::exception& e) {
        throw Refused{e.what()};
      }
      pusher.push_profile(path, profile);
    }
  } catch (const Refused& e) {
    std::fprintf(stderr, "%s\n", e.message.c_str());
    if (pusher.stored_anything()) {
      std::fprintf(stderr, "passtiming push: %s before this error\n",
                   pusher.progress(total).c_str());
    }
    return kExitUsage;
  } catch (const Stopped& e) {
    std::fprintf(stderr, "passtiming push: %s; %s\n", pusher.progress(total).c_str(),
                 e.reason.c_str());
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
      "export --to rows), idempotently: a repeated or resumed push stores nothing twice");
  sub->add_option("FILE", options->inputs, "JSON profiles or JSONL event logs ('-' reads stdin)");
  sub->add_option("--clickhouse", options->url,
                  "the server's HTTP interface, e.g. http://127.0.0.1:8123");
  sub->add_option("--table", options->table, "table (NAME or DATABASE.NAME)")
      ->default_str("pass_executions");
  sub->add_flag("--create", options->create,
                "create the table, and its phase table TABLE_phases, when they do not exist");
  sub->add_flag("--print-phase-schema", options->print_phase_schema,
                "print the CREATE TABLE statement of the phase table, TABLE_phases, and exit");
  sub->add_flag("--print-schema", options->print_schema,
                "print the table's CREATE TABLE statement and exit");
  sub->add_option("--meta", options->meta, "KEY=VALUE for every row (repeatable), as for export");
  sub->add_option("--batch-rows", options->batch_rows, "rows per INSERT")
      ->default_str("100000")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000000}));
  sub->add_option("--retries", options->retries,
                  "retries of a request after a connection failure, a timeout or HTTP 502/503/504")
      ->default_str("5")
      ->check(CLI::Range(0, 100));
  sub->add_option("--timeout-s", options->timeout_s, "seconds a request may take")
      ->type_name("SECONDS")
      ->check(non_negative_number())
      ->default_str("60");
  return [options]() -> int { return push(*options); };
}

}  // namespace passtiming::cli
