#include "tsv_rows.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

namespace passtiming::fleet {
namespace {

/// An Array(String) field: `['a','b']`, each element quoted as ClickHouse
/// reads a quoted string (backslash escapes, so no tab or newline is left).
void append_array(std::string& out, const MetaPairs& pairs, bool values) {
  out += '[';
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i) out += ',';
    out += '\'';
    append_tsv_escaped(out, values ? pairs[i].second : pairs[i].first);
    out += '\'';
  }
  out += ']';
}

}  // namespace

void append_tsv_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\0': out += "\\0"; break;
      case '\'': out += "\\'"; break;
      default: out += c;
    }
  }
}

TsvRowWriter::TsvRowWriter(const Profile& profile, const RunIdentity& run) : profile_(profile) {
  // In row_columns() order, as RowWriter writes them.
  head_ = fmt::format("{}\t", kRowSchemaVersion);
  for (const std::string* text : {&run.run_id, &run.host, &run.start_time, &run.command, &run.tool,
                                  &run.commit, &run.build_id}) {
    append_tsv_escaped(head_, *text);
    head_ += '\t';
  }
  append_array(head_, run.meta, false);
  head_ += '\t';
  append_array(head_, run.meta, true);
  head_ += '\t';
}

void TsvRowWriter::append(std::string& out, std::size_t s, std::size_t index,
                          std::uint32_t number) {
  const Section& section = profile_.sections[s];
  if (s != section_ || number != number_) {
    section_ = s;
    number_ = number;
    section_head_ = head_;
    section_head_ += fmt::format("{}\t", number);
    append_tsv_escaped(section_head_, section.context);
    section_head_ += '\t';
    escaped_.assign(section.names.size(), std::string());
    for (std::size_t id = 0; id < escaped_.size(); ++id) {
      append_tsv_escaped(escaped_[id], section.names[static_cast<NameId>(id)]);
    }
  }
  const Record& r = section.records[index];
  // The numbers as decimals with std::to_chars into a buffer, one append
  // each side of the names: the same text as fmt's "{}", without its
  // format parsing and back_inserter buffering, a row at a time for the
  // hundreds of thousands of rows of a push's pack.
  char numbers[6 * 21 + 1];
  char* p = numbers;
  auto put = [&](auto n) {
    // At most 20 digits and a tab; the tab's byte kept out of reach.
    p = std::to_chars(p, numbers + sizeof numbers - 2, n).ptr;
    *p++ = '\t';
  };
  put(r.sequence);
  put(r.parent == kNoParent ? std::int64_t{-1} : std::int64_t{r.parent});
  out += section_head_;
  out.append(numbers, p);
  out += escaped_[r.name];
  out += '\t';
  out += escaped_[r.kernel];
  out += '\t';
  p = numbers;
  put(r.depth);
  put(r.thread < section.threads.size() ? section.threads[r.thread] : std::uint64_t{r.thread});
  put(r.start_ns);
  put(r.inclusive_ns);
  put(r.self_ns);
  *p++ = (r.flags & kRecordFailed) ? '1' : '0';
  *p++ = '\n';
  out.append(numbers, p);
}

}  // namespace passtiming::fleet
