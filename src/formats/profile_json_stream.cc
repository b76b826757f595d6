#include "profile_json_stream.h"

#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/huge_pages.h"
#include "metric_fields.h"
#include "passtiming/errors.h"
#include "profile_json_reader.h"

namespace passtiming::detail {
namespace {

constexpr std::size_t kReadBytes = std::size_t{1} << 20;
constexpr std::size_t kBatchBytes = std::size_t{1} << 20;
/// No record line is shorter than this ("{"name":"","kernel":"",...}" with
/// every number a single digit), so the bytes left in the file bound the
/// records still to come, which sizes the storage before it is touched.
constexpr std::size_t kMinRecordLineBytes = 100;
/// The writer puts three lines before the sections; a file with many more is
/// laid out otherwise (pretty-printed, say), and is left to the whole-file
/// reader before its text piles up in the skeleton.
constexpr std::size_t kMaxHeaderLines = 16;

/// The file is not in the known layout, or breaks a rule somewhere.
struct NotStreamable {};

/// One records array read from its lines: which section line opened it.
struct StreamedRecords {
  std::size_t section_line = 0;
  std::uint32_t max_thread = 0;
  Section section;  ///< only `records` and `names`
};

/// The layout, line by line (in valid JSON a line never starts inside a
/// string, since JSON strings hold no raw newline):
///
///     {"format":...,"version":1,          header lines, up to
///     "sections":[
///     {"context":...,"records":[          a section line: its records follow,
///     {record},                             one per line,
///     {record}]},                           the last closing the section
///     {"context":...,"records":[]}        or a section with none
///     ]}
///
/// Everything but the record lines forms a small "skeleton" document, parsed
/// by the ordinary reader; the record lines are parsed a batch at a time as
/// JSON arrays and then given to the sections of the skeleton. Each batch
/// is the file's own text between the brackets of its array, cut only after
/// a comma that ends a line: so both parses succeed only when the file is
/// valid, and then give the same records.
class StreamedProfileReader {
 public:
  StreamedProfileReader(int fd, std::uint64_t size) : fd_(fd), size_(size) {}

  Profile run() {
    std::string pending;
    // Uninitialised, and no larger than the file: `summary` reads thousands
    // of small profiles, for which zeroing a megabyte each time would dominate.
    const std::size_t chunk_bytes =
        static_cast<std::size_t>(std::min<std::uint64_t>(kReadBytes, size_ + 1));
    const std::unique_ptr<char[]> chunk(new char[chunk_bytes]);
    for (;;) {
      const ssize_t n = ::read(fd_, chunk.get(), chunk_bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw NotStreamable{};  // the whole-file read reports it
      if (n == 0) break;
      pending.append(chunk.get(), static_cast<std::size_t>(n));
      std::size_t start = 0;
      while (const void* nl = std::memchr(pending.data() + start, '\n', pending.size() - start)) {
        const auto end = static_cast<std::size_t>(static_cast<const char*>(nl) - pending.data());
        on_line(std::string_view(pending).substr(start, end - start));
        start = end + 1;
      }
      pending.erase(0, start);
    }
    if (!pending.empty()) on_line(pending);
    if (state_ != State::kEnd) throw NotStreamable{};
    return finish();
  }

 private:
  enum class State { kHeader, kSections, kRecords, kEnd };

  void on_line(std::string_view line) {
    const std::uint64_t line_offset = offset_;
    offset_ += line.size() + 1;
    switch (state_) {
      case State::kHeader:
        if (++header_lines_ > kMaxHeaderLines) throw NotStreamable{};
        add_to_skeleton(line);
        if (line == "\"sections\":[") state_ = State::kSections;
        return;
      case State::kSections:
        if (line == "]}") {
          add_to_skeleton(line);
          state_ = State::kEnd;
          return;
        }
        if (!line.starts_with("{\"context\":")) throw NotStreamable{};
        add_to_skeleton(line);
        ++section_lines_;
        if (line.ends_with("\"records\":[")) {
          begin_records(line_offset);
          state_ = State::kRecords;
        }
        return;
      case State::kRecords: on_record_line(line); return;
      case State::kEnd:
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) throw NotStreamable{};
        return;
    }
  }

  void on_record_line(std::string_view line) {
    if (line.empty() || line.front() != '{') throw NotStreamable{};
    std::string_view closing;
    if (line.ends_with("]},")) {
      closing = "]},";
    } else if (line.ends_with("]}")) {
      closing = "]}";
    } else if (!line.ends_with(',')) {
      throw NotStreamable{};
    }
    // The batch keeps the file's own bytes, line breaks and commas included:
    // only then is a string that runs past the end of its line (invalid,
    // as a raw newline cannot be in a JSON string) invalid in the batch too.
    batch_ += batch_.empty() ? '[' : '\n';
    batch_.append(line.substr(0, line.size() - closing.size()));
    if (!closing.empty()) {
      flush_batch(/*cut=*/false);
      end_records();
      add_to_skeleton(closing);
      state_ = State::kSections;
    } else if (batch_.size() >= kBatchBytes) {
      flush_batch(/*cut=*/true);
    }
  }

  void add_to_skeleton(std::string_view line) {
    skeleton_.append(line);
    skeleton_ += '\n';
  }

  void begin_records(std::uint64_t line_offset) {
    StreamedRecords& current = streamed_.emplace_back();
    current.section_line = section_lines_ - 1;
    const std::uint64_t left = size_ > line_offset ? size_ - line_offset : 0;
    const auto most = static_cast<std::size_t>(left / kMinRecordLineBytes);
    current.section.records.reserve(most);
    advise_huge_pages(current.section.records.data(), most * sizeof(Record));
  }

  void end_records() {
    std::vector<Record>& records = streamed_.back().section.records;
    // Give back what the estimate reserved beyond need, unless it is small.
    if (records.capacity() - records.size() > records.size() + 1024) records.shrink_to_fit();
  }

  /// Parses the batch. `cut`: the batch ends inside the array, after a line
  /// that ended with a comma, which separates it from the next batch's first
  /// record; at the array's end a comma before the bracket is the file's own
  /// trailing comma, which must fail.
  void flush_batch(bool cut) {
    if (batch_.empty()) return;
    if (cut) batch_.pop_back();
    batch_ += ']';
    const std::size_t length = batch_.size();
    batch_.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::dom::element array;
    if (thread_dom_parser().parse(batch_.data(), length, false).get(array)) throw NotStreamable{};
    StreamedRecords& current = streamed_.back();
    if (!append_records(array, current.section, current.max_thread)) throw NotStreamable{};
    batch_.clear();
  }

  Profile finish() {
    Profile profile;
    try {
      const simdjson::padded_string skeleton(skeleton_);
      profile = parse_profile_padded(skeleton, "<profile>");
    } catch (const InputError&) {
      throw NotStreamable{};
    }
    if (profile.sections.size() != section_lines_) throw NotStreamable{};
    for (StreamedRecords& streamed : streamed_) {
      Section& target = profile.sections[streamed.section_line];
      // A section line that also held records of its own is not the layout.
      if (!target.records.empty()) throw NotStreamable{};
      if (streamed.section.records.empty()) continue;
      // Records need the thread table the writer always puts before them.
      if (streamed.max_thread >= target.threads.size()) throw NotStreamable{};
      target.names = std::move(streamed.section.names);
      target.records = std::move(streamed.section.records);
      target.metrics = std::move(streamed.section.metrics);
      finish_section_metrics(target, profile.metrics.recorded);
    }
    return profile;
  }

  int fd_;
  std::uint64_t size_;
  std::uint64_t offset_ = 0;
  State state_ = State::kHeader;
  std::size_t header_lines_ = 0;
  std::size_t section_lines_ = 0;
  std::string skeleton_;
  std::string batch_;
  std::vector<StreamedRecords> streamed_;
};

}  // namespace

std::optional<Profile> read_profile_streamed(int fd, std::uint64_t size) {
  try {
    return StreamedProfileReader(fd, size).run();
  } catch (const NotStreamable&) {
    return std::nullopt;
  }
}

}  // namespace passtiming::detail
