#pragma once
/// \file
/// The rows of RowWriter (`export --to rows`) in ClickHouse's TabSeparated
/// format, which the server reads in less than half the time of
/// JSONEachRow: what a push sends. The same values column for column;
/// `tests/fleet` compares what a push stored with `export --to rows`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/fleet.h"

namespace passtiming::fleet {

/// TabSeparated rows of one run of a profile.
class TsvRowWriter {
 public:
  /// `profile` must outlive the writer.
  TsvRowWriter(const Profile& profile, const RunIdentity& run);
  /// Appends the row (a line ending in '\n') of section `section`'s record
  /// `index`, its `section` column `number`.
  void append(std::string& out, std::size_t section, std::size_t index, std::uint32_t number);

 private:
  const Profile& profile_;
  std::string head_;  ///< the run's columns, each followed by a tab
  std::size_t section_ = static_cast<std::size_t>(-1);
  std::uint32_t number_ = 0;
  std::string section_head_;          ///< head_, the section and its context
  std::vector<std::string> escaped_;  ///< the section's names, escaped
};

/// `text` as a TabSeparated field: `\`, tab, newline, carriage return,
/// backspace, form feed, NUL and `'` escaped with a backslash.
void append_tsv_escaped(std::string& out, std::string_view text);

}  // namespace passtiming::fleet
