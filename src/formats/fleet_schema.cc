/// \file
/// The ClickHouse table of the fleet's rows (docs/fleet.md): its columns and
/// the one statement that makes it.

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <string>

#include "passtiming/formats/fleet.h"

namespace passtiming {
namespace {

/// The run's columns, the first of every row of both tables: who ran which
/// compile, where and when. A change here is a change of both
/// kRowSchemaVersion and kPhaseRowSchemaVersion.
constexpr RowColumn kRunColumns[] = {
    {"schema_version", "UInt8"},
    {"run_id", "String"},
    {"host", "String"},
    {"start_time", "DateTime"},
    {"command", "String"},
    {"tool", "String"},
    {"commit", "String"},
    {"build_id", "String"},
    {"meta_keys", "Array(String)"},
    {"meta_values", "Array(String)"},
};

/// kRunColumns, then a table's own columns.
template <std::size_t N>
constexpr std::array<RowColumn, std::size(kRunColumns) + N> after_run_columns(
    const RowColumn (&own)[N]) {
  std::array<RowColumn, std::size(kRunColumns) + N> all{};
  std::size_t i = 0;
  for (const RowColumn& column : kRunColumns) all[i++] = column;
  for (const RowColumn& column : own) all[i++] = column;
  return all;
}

/// In the order write_rows writes them; a change here is a change of
/// kRowSchemaVersion.
constexpr RowColumn kPassColumns[] = {
    {"section", "UInt32"},        {"context", "String"}, {"sequence", "UInt32"},
    {"parent_sequence", "Int64"}, {"pass", "String"},    {"kernel", "String"},
    {"depth", "UInt16"},          {"thread", "UInt64"},  {"start_ns", "UInt64"},
    {"inclusive_ns", "UInt64"},   {"self_ns", "UInt64"}, {"failed", "UInt8"},
};
constexpr auto kColumns = after_run_columns(kPassColumns);

/// In the order write_phase_rows writes them; a change here is a change of
/// kPhaseRowSchemaVersion.
constexpr RowColumn kPhaseOwnColumns[] = {
    {"phase", "UInt32"},  {"parent", "Int64"},   {"path", "String"},
    {"name", "String"},   {"detail", "String"},  {"depth", "UInt16"},
    {"thread", "UInt64"}, {"start_ns", "Int64"}, {"duration_ns", "UInt64"},
    {"cpu_ns", "Int64"},  {"failed", "UInt8"},   {"section_count", "UInt32"},
};
constexpr auto kPhaseColumns = after_run_columns(kPhaseOwnColumns);

std::string column_list(std::span<const RowColumn> columns) {
  std::string out;
  for (const RowColumn& column : columns) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", column.name, column.type);
  }
  return out;
}

/// The ENGINE clause of `table`. A replicated table's ZooKeeper path names
/// the shard by macro and the table as given; its replicas share it. The
/// server keeps the checksums of the last 1000 blocks stored (100 by
/// default) to drop a repeated one: enough for every INSERT of many pushes
/// running at the same moment.
std::string engine_clause(std::string_view table, TableEngine engine) {
  if (engine == TableEngine::kReplicated) {
    return fmt::format(
        "ReplicatedReplacingMergeTree('/clickhouse/tables/{{shard}}/{}', '{{replica}}')", table);
  }
  return "ReplacingMergeTree";
}

std::string engine_settings(TableEngine engine) {
  return engine == TableEngine::kReplicated ? " SETTINGS replicated_deduplication_window = 1000"
                                            : "";
}

}  // namespace

std::span<const RowColumn> phase_row_columns() {
  return kPhaseColumns;
}

std::string phase_table_ddl(std::string_view table, TableEngine engine) {
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = {} "
      "PARTITION BY toYYYYMM(start_time) ORDER BY (run_id, phase){}",
      table, column_list(kPhaseColumns), engine_clause(table, engine), engine_settings(engine));
}

std::string phase_table_name(std::string_view table) {
  return std::string(table) + "_phases";
}

std::span<const RowColumn> row_columns() {
  return kColumns;
}

std::string row_table_ddl(std::string_view table, TableEngine engine) {
  // The check of a push reads `WHERE run_id IN (…)` and counts sequences
  // per section: the key's leading columns, a few granules of a table of
  // any size.
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = {} "
      "PARTITION BY toYYYYMM(start_time) ORDER BY (run_id, section, sequence){}",
      table, column_list(kColumns), engine_clause(table, engine), engine_settings(engine));
}

}  // namespace passtiming
