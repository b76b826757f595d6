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

}  // namespace

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
