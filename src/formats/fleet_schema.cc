/// \file
/// The ClickHouse table of the fleet's rows (docs/fleet.md): its columns and
/// the one statement that makes it.

#include <fmt/format.h>

#include <array>
#include <string>

#include "passtiming/formats/fleet.h"

namespace passtiming {
namespace {

/// In the order write_rows writes them; a change here is a change of
/// kRowSchemaVersion.
constexpr std::array<RowColumn, 22> kColumns{{
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
    {"section", "UInt32"},
    {"context", "String"},
    {"sequence", "UInt32"},
    {"parent_sequence", "Int64"},
    {"pass", "String"},
    {"kernel", "String"},
    {"depth", "UInt16"},
    {"thread", "UInt64"},
    {"start_ns", "UInt64"},
    {"inclusive_ns", "UInt64"},
    {"self_ns", "UInt64"},
    {"failed", "UInt8"},
}};

/// In the order write_phase_rows writes them; a change here is a change of
/// kPhaseRowSchemaVersion. The run's columns are the pass rows' first ten.
constexpr std::array<RowColumn, 22> kPhaseColumns{{
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
    {"phase", "UInt32"},
    {"parent", "Int64"},
    {"path", "String"},
    {"name", "String"},
    {"detail", "String"},
    {"depth", "UInt16"},
    {"thread", "UInt64"},
    {"start_ns", "Int64"},
    {"duration_ns", "UInt64"},
    {"cpu_ns", "Int64"},
    {"failed", "UInt8"},
    {"section_count", "UInt32"},
}};

std::string column_list(std::span<const RowColumn> columns) {
  std::string out;
  for (const RowColumn& column : columns) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", column.name, column.type);
  }
  return out;
}

}  // namespace

std::span<const RowColumn> phase_row_columns() {
  return kPhaseColumns;
}

std::string phase_table_ddl(std::string_view table) {
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = ReplacingMergeTree "
      "PARTITION BY toYYYYMM(start_time) ORDER BY (path, start_time, run_id, phase)",
      table, column_list(kPhaseColumns));
}

std::string phase_table_name(std::string_view table) {
  return std::string(table) + "_phases";
}

std::span<const RowColumn> row_columns() {
  return kColumns;
}

std::string row_table_ddl(std::string_view table) {
  std::string columns;
  for (const RowColumn& column : kColumns) {
    if (!columns.empty()) columns += ", ";
    columns += fmt::format("{} {}", column.name, column.type);
  }
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = ReplacingMergeTree "
      "PARTITION BY toYYYYMM(start_time) ORDER BY (pass, start_time, run_id, section, sequence)",
      table, columns);
}

}  // namespace passtiming
