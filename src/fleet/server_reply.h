#pragma once
/// \file
/// Reading ClickHouse's replies: TabSeparated lines and numbers, and the
/// error code of an error reply.

#include <cstdint>
#include <string_view>
#include <vector>

#include "passtiming/fleet/clickhouse_http.h"

namespace passtiming::fleet {

/// The lines of a TabSeparated reply, each split at tabs.
std::vector<std::vector<std::string_view>> tsv_rows(std::string_view text);

/// A number of a TabSeparated reply; throws PushStopped naming `what` (the
/// statement) when `field` is none.
std::uint64_t tsv_number(std::string_view field, std::string_view what);

/// A ClickHouse error reply of the code `code` (`Code: 60, …` in 18.x,
/// `Code: 60. …` later).
bool has_error_code(const HttpReply& reply, int code);

}  // namespace passtiming::fleet
