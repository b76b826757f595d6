#include "profile_json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "json_text.h"
#include "metric_fields.h"
#include "passtiming/errors.h"
#include "passtiming/profile_json.h"

namespace passtiming::detail {
namespace {

namespace od = simdjson::ondemand;

/// Names, kernel labels and contexts longer than this are refused: no
/// compiler has such pass names, and a runaway string should fail with a
/// message rather than take the memory of the machine.
constexpr std::size_t kMaxStringBytes = std::size_t{1} << 20;

/// Without a thread table, a record's `thread` is the thread's key: the table
/// is made of the keys in use, in ascending order, and each record gets its
/// key's index (the same numbers when the keys are 0..N). A table of every
/// key up to the largest would let one record with thread 4e9 ask for 32 GB.
void make_thread_table(Section& section) {
  std::vector<std::uint64_t> keys;
  keys.reserve(section.records.size());
  for (const Record& r : section.records) keys.push_back(r.thread);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (Record& r : section.records) {
    r.thread = static_cast<std::uint32_t>(
        std::lower_bound(keys.begin(), keys.end(), std::uint64_t{r.thread}) - keys.begin());
  }
  section.threads = std::move(keys);
}

/// Reads one profile with simdjson's on-demand API, which keeps a pointer
/// into the text for every value, so each error names the line it is on.
class ProfileReader {
 public:
  ProfileReader(simdjson::padded_string_view text, std::string_view source)
      : text_(text), source_(source) {}

  Profile run() {
    od::document doc;
    if (auto error = parser_.iterate(text_).get(doc)) fail_document(error);
    od::object root;
    if (auto error = doc.get_object().get(root)) {
      if (error == simdjson::INCORRECT_TYPE) fail_at(text_.data(), "expected a JSON object");
      fail_json(error, location(doc));
    }
    bool have_format = false, have_version = false, have_sections = false;
    for (auto member : root) {
      if (auto error = member.error()) fail_json(error, location(doc));
      od::field& field = member.value_unsafe();
      const char* at = field.key().raw();
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) fail_json(error, at);
      od::value& value = field.value();
      if (key == "format") {
        have_format = true;
        if (get_string(value, at, "format") != kProfileFormatName) {
          fail_at(at, fmt::format("field 'format' must be \"{}\"", kProfileFormatName));
        }
      } else if (key == "version") {
        have_version = true;
        const std::int64_t version = get_int(value, at, "version", 0, INT64_MAX);
        if (version < 1 || version > kProfileFormatVersion) {
          fail_at(at, fmt::format("unsupported profile version {} (this reader knows 1 to {})",
                                  version, kProfileFormatVersion));
        }
      } else if (key == "metadata") {
        read_metadata(value, at);
      } else if (key == "metrics") {
        read_metrics(value, at);
      } else if (key == "sections") {
        have_sections = true;
        read_sections(value, at);
      }
    }
    const char* end = text_.data() + text_.size();
    if (!have_format) fail_at(end, "not a passtiming profile: missing field 'format'");
    if (!have_version) fail_at(end, "missing field 'version'");
    if (!have_sections) fail_at(end, "missing field 'sections'");
    return std::move(profile_);
  }

 private:
  // ------------------------------------------------------------ errors

  std::size_t line_of(const char* p) const {
    const char* begin = text_.data();
    p = std::clamp(p, begin, begin + text_.size());
    return 1 + static_cast<std::size_t>(std::count(begin, p, '\n'));
  }

  [[noreturn]] void fail_at(const char* where, std::string message) const {
    throw InputError(std::string(source_), line_of(where), std::move(message));
  }

  [[noreturn]] void fail_json(simdjson::error_code error, const char* where) const {
    if (error == simdjson::UTF8_ERROR) fail_utf8();
    if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
      fail_at(text_.data() + text_.size(),
              "unexpected end of input: an object or array is not closed (truncated file?)");
    }
    fail_at(where, fmt::format("invalid JSON: {}", simdjson::error_message(error)));
  }

  [[noreturn]] void fail_utf8() const {
    const std::string_view all(text_.data(), text_.size());
    const std::size_t bad = find_invalid_utf8(all);
    fail_at(text_.data() + (bad == std::string_view::npos ? 0 : bad), "invalid UTF-8");
  }

  /// Errors of the first pass over the whole text, before any value is read.
  [[noreturn]] void fail_document(simdjson::error_code error) const {
    const char* end = text_.data() + text_.size();
    switch (error) {
      case simdjson::EMPTY: fail_at(end, "empty input");
      case simdjson::UTF8_ERROR: fail_utf8();
      case simdjson::UNCLOSED_STRING:
        fail_at(end, "unexpected end of input inside a string (truncated file?)");
      default: fail_json(error, end);
    }
  }

  const char* location(od::document& doc) const {
    const char* p = nullptr;
    if (doc.current_location().get(p)) return text_.data() + text_.size();
    return p;
  }

  // ------------------------------------------------------------ values

  [[noreturn]] void fail_value(simdjson::error_code error, const char* at, std::string_view name,
                               std::string_view expected) const {
    if (error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_OUT_OF_RANGE ||
        error == simdjson::NUMBER_ERROR) {
      fail_at(at, fmt::format("field '{}' must be {}", name, expected));
    }
    fail_json(error, at);
  }

  std::string_view get_string(od::value& value, const char* at, std::string_view name) {
    std::string_view s;
    if (auto error = value.get_string().get(s)) fail_value(error, at, name, "a string");
    if (s.size() > kMaxStringBytes) {
      fail_at(at, fmt::format("field '{}' is longer than {} bytes", name, kMaxStringBytes));
    }
    return s;
  }

  std::int64_t get_int(od::value& value, const char* at, std::string_view name, std::int64_t min,
                       std::int64_t max) {
    std::int64_t n;
    auto expected = [&] { return fmt::format("an integer from {} to {}", min, max); };
    if (auto error = value.get_int64().get(n)) fail_value(error, at, name, expected());
    if (n < min || n > max) fail_at(at, fmt::format("field '{}' must be {}", name, expected()));
    return n;
  }

  std::uint64_t get_uint(od::value& value, const char* at, std::string_view name,
                         std::uint64_t max) {
    std::uint64_t n;
    auto expected = [&] { return fmt::format("an integer from 0 to {}", max); };
    if (auto error = value.get_uint64().get(n)) fail_value(error, at, name, expected());
    if (n > max) fail_at(at, fmt::format("field '{}' must be {}", name, expected()));
    return n;
  }

  od::object get_object(od::value& value, const char* at, std::string_view name) {
    od::object object;
    if (auto error = value.get_object().get(object)) fail_value(error, at, name, "an object");
    return object;
  }

  od::array get_array(od::value& value, const char* at, std::string_view name) {
    od::array array;
    if (auto error = value.get_array().get(array)) fail_value(error, at, name, "an array");
    return array;
  }

  template <typename Fn>
  void for_each_member(od::object object, const char* at, Fn&& fn) {
    for (auto member : object) {
      if (auto error = member.error()) fail_json(error, at);
      od::field& field = member.value_unsafe();
      const char* key_at = field.key().raw();
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) fail_json(error, key_at);
      fn(key, field.value(), key_at);
    }
  }

  // ------------------------------------------------------------ structure

  void read_metadata(od::value& value, const char* at) {
    ProfileMetadata& m = profile_.metadata;
    for_each_member(get_object(value, at, "metadata"), at,
                    [&](std::string_view key, od::value& v, const char* key_at) {
                      if (key == "tool") {
                        m.tool = get_string(v, key_at, "tool");
                      } else if (key == "command") {
                        m.command = get_string(v, key_at, "command");
                      } else if (key == "host") {
                        m.host = get_string(v, key_at, "host");
                      } else if (key == "start_time") {
                        m.start_time = get_string(v, key_at, "start_time");
                      } else if (key == "pid") {
                        m.pid = get_int(v, key_at, "pid", INT64_MIN, INT64_MAX);
                      }
                    });
  }

  void read_metrics(od::value& value, const char* at) {
    ProfileMetrics& metrics = profile_.metrics;
    for_each_member(
        get_object(value, at, "metrics"), at,
        [&](std::string_view key, od::value& v, const char* key_at) {
          if (key == "recorded") {
            for (auto element : get_array(v, key_at, "recorded")) {
              od::value item;
              if (auto error = element.get(item)) fail_json(error, key_at);
              metrics.recorded.insert(get_metric(get_string(item, key_at, "recorded"), key_at));
            }
          } else if (key == "unavailable") {
            for_each_member(get_object(v, key_at, "unavailable"), key_at,
                            [&](std::string_view name, od::value& reason, const char* name_at) {
                              const Metric m = get_metric(name, name_at);
                              metrics.unavailable.push_back(
                                  {m, std::string(get_string(reason, name_at, "unavailable"))});
                            });
          }
        });
  }

  Metric get_metric(std::string_view name, const char* at) const {
    Metric m;
    if (!metric_from_name(name, m)) {
      fail_at(at, fmt::format("unknown metric '{}' (known: cpu, rss, ir, instructions)", name));
    }
    return m;
  }

  void read_sections(od::value& value, const char* at) {
    for (auto element : get_array(value, at, "sections")) {
      od::value item;
      if (auto error = element.get(item)) fail_json(error, at);
      const char* item_at = value_location(item, at);
      Section& section = profile_.sections.emplace_back();
      read_section(item, item_at, section);
    }
  }

  const char* value_location(od::value& value, const char* fallback) const {
    const char* p = nullptr;
    if (value.current_location().get(p)) return fallback;
    return p;
  }

  void read_section(od::value& value, const char* at, Section& section) {
    bool have_records = false, have_threads = false;
    std::uint32_t max_thread = 0;
    const char* max_thread_at = nullptr;
    for_each_member(get_object(value, at, "section"), at,
                    [&](std::string_view key, od::value& v, const char* key_at) {
                      if (key == "context") {
                        section.context = std::string(get_string(v, key_at, "context"));
                      } else if (key == "skipped") {
                        section.skipped = get_uint(v, key_at, "skipped", UINT64_MAX);
                      } else if (key == "threads") {
                        have_threads = true;
                        section.threads.clear();
                        for (auto element : get_array(v, key_at, "threads")) {
                          od::value t;
                          if (auto error = element.get(t)) fail_json(error, key_at);
                          section.threads.push_back(get_uint(t, key_at, "threads", UINT64_MAX));
                        }
                      } else if (key == "records") {
                        have_records = true;
                        for (auto element : get_array(v, key_at, "records")) {
                          od::value item;
                          if (auto error = element.get(item)) fail_json(error, key_at);
                          const char* record_at = value_location(item, key_at);
                          const Record& r = read_record(item, record_at, section);
                          if (!max_thread_at || r.thread > max_thread) {
                            max_thread = r.thread;
                            max_thread_at = record_at;
                          }
                        }
                      }
                    });
    if (!have_records) fail_at(at, "section without field 'records'");
    finish_section_metrics(section, profile_.metrics.recorded);
    if (!max_thread_at) return;
    if (!have_threads) {
      make_thread_table(section);
    } else if (max_thread >= section.threads.size()) {
      fail_at(max_thread_at, fmt::format("field 'thread' is {} but the section has {} thread(s)",
                                         max_thread, section.threads.size()));
    }
  }

  const Record& read_record(od::value& value, const char* at, Section& section) {
    enum : unsigned {
      kName = 1,
      kDepth = 2,
      kSequence = 4,
      kStart = 8,
      kInclusive = 16,
      kSelf = 32
    };
    constexpr unsigned kRequired = kName | kDepth | kSequence | kStart | kInclusive | kSelf;
    unsigned seen = 0;
    Record r;
    RecordMetrics m;
    bool has_metrics = false;
    for_each_member(
        get_object(value, at, "record"), at,
        [&](std::string_view key, od::value& v, const char* key_at) {
          if (key == "name") {
            r.name = section.names.intern(get_string(v, key_at, "name"));
            seen |= kName;
          } else if (key == "kernel") {
            r.kernel = section.names.intern(get_string(v, key_at, "kernel"));
          } else if (key == "depth") {
            r.depth = static_cast<std::uint16_t>(get_uint(v, key_at, "depth", UINT16_MAX));
            seen |= kDepth;
          } else if (key == "sequence") {
            r.sequence = static_cast<std::uint32_t>(get_uint(v, key_at, "sequence", kNoParent - 1));
            seen |= kSequence;
          } else if (key == "parent") {
            bool is_null = false;
            if (auto error = v.is_null().get(is_null)) fail_json(error, key_at);
            r.parent =
                is_null ? kNoParent
                        : static_cast<std::uint32_t>(get_uint(v, key_at, "parent", kNoParent - 1));
          } else if (key == "thread") {
            r.thread = static_cast<std::uint32_t>(get_uint(v, key_at, "thread", UINT32_MAX));
          } else if (key == "start_ns") {
            r.start_ns = get_int(v, key_at, "start_ns", INT64_MIN, INT64_MAX);
            seen |= kStart;
          } else if (key == "inclusive_ns") {
            r.inclusive_ns = get_int(v, key_at, "inclusive_ns", 0, INT64_MAX);
            seen |= kInclusive;
          } else if (key == "self_ns") {
            r.self_ns = get_int(v, key_at, "self_ns", 0, INT64_MAX);
            seen |= kSelf;
          } else if (key == "failed") {
            bool failed = false;
            if (auto error = v.get_bool().get(failed))
              fail_value(error, key_at, "failed", "a boolean");
            if (failed) r.flags |= kRecordFailed;
          } else if (const MetricNumberField* f = find_metric_number(key)) {
            m.*f->member = get_int(v, key_at, f->key, 0, INT64_MAX);
            has_metrics = true;
          } else if (const MetricFlagField* flag = find_metric_flag(key)) {
            bool yes = false;
            if (auto error = v.get_bool().get(yes)) {
              fail_value(error, key_at, flag->key, "a boolean");
            }
            m.ir_flags |= flag->known | (yes ? flag->value : 0);
            has_metrics = true;
          }
        });
    if (seen != kRequired) {
      static constexpr std::pair<unsigned, std::string_view> kNames[] = {
          {kName, "name"},
          {kDepth, "depth"},
          {kSequence, "sequence"},
          {kStart, "start_ns"},
          {kInclusive, "inclusive_ns"},
          {kSelf, "self_ns"}};
      for (const auto& [bit, name] : kNames) {
        if (!(seen & bit)) fail_at(at, fmt::format("record without field '{}'", name));
      }
    }
    section.records.push_back(r);
    if (has_metrics) {
      section.metrics.resize(section.records.size() - 1);
      section.metrics.push_back(m);
    }
    return section.records.back();
  }

  simdjson::padded_string_view text_;
  std::string_view source_;
  od::parser parser_;
  Profile profile_;
};

/// Thrown by the fast reader at the first problem; the located reader then
/// reads the same text again to say where the problem is.
struct Rejected {
  simdjson::error_code syntax = simdjson::SUCCESS;  ///< the parser's error, if it was one
};

/// The fast path: simdjson's DOM parser, which picks the best SIMD kernel of
/// the running CPU at run time (the on-demand API above is compiled for the
/// baseline CPU, and is several times slower). The DOM keeps no positions,
/// so this reader only accepts or rejects, by the same rules as the located
/// reader; a rejected input is read again by that one for the message.
class FastProfileReader {
 public:
  explicit FastProfileReader(simdjson::padded_string_view text) : text_(text) {}
  FastProfileReader(const FastProfileReader&) = delete;
  FastProfileReader& operator=(const FastProfileReader&) = delete;
  ~FastProfileReader() {
    // A parser keeps its buffers (several times the input) for the next
    // file, which makes `summary` over thousands of files cheap; after a
    // large input they are given back rather than held for the thread's life.
    if (parser_.capacity() > kKeepParserCapacity) parser_ = simdjson::dom::parser();
  }

  /// The records of one array appended to `section` (see append_records).
  static void read_records(simdjson::dom::element records, Section& section,
                           std::uint32_t& max_thread) {
    for (simdjson::dom::element r : array(records)) {
      max_thread = std::max(max_thread, read_record(r, section));
    }
  }

  Profile run() {
    simdjson::dom::element root;
    if (auto error = parser_.parse(text_.data(), text_.size(), false).get(root)) {
      throw Rejected{error};
    }
    bool have_format = false, have_version = false, have_sections = false;
    for (auto [key, value] : object(root)) {
      if (key == "format") {
        have_format = true;
        if (string(value) != kProfileFormatName) throw Rejected{};
      } else if (key == "version") {
        have_version = true;
        const std::int64_t version = integer(value, 0, INT64_MAX);
        if (version < 1 || version > kProfileFormatVersion) throw Rejected{};
      } else if (key == "metadata") {
        ProfileMetadata& m = profile_.metadata;
        for (auto [k, v] : object(value)) {
          if (k == "tool")
            m.tool = string(v);
          else if (k == "command")
            m.command = string(v);
          else if (k == "host")
            m.host = string(v);
          else if (k == "start_time")
            m.start_time = string(v);
          else if (k == "pid")
            m.pid = integer(v, INT64_MIN, INT64_MAX);
        }
      } else if (key == "metrics") {
        if (!read_metrics_member(value, profile_.metrics)) throw Rejected{};
      } else if (key == "sections") {
        have_sections = true;
        for (simdjson::dom::element item : array(value)) read_section(item);
      }
    }
    if (!have_format || !have_version || !have_sections) throw Rejected{};
    return std::move(profile_);
  }

 private:
  static simdjson::dom::object object(simdjson::dom::element e) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) throw Rejected{};
    return o;
  }
  static simdjson::dom::array array(simdjson::dom::element e) {
    simdjson::dom::array a;
    if (e.get_array().get(a)) throw Rejected{};
    return a;
  }
  static std::string_view string(simdjson::dom::element e) {
    std::string_view s;
    if (e.get_string().get(s) || s.size() > kMaxStringBytes) throw Rejected{};
    return s;
  }
  static std::int64_t integer(simdjson::dom::element e, std::int64_t min, std::int64_t max) {
    std::int64_t n;
    if (e.get_int64().get(n) || n < min || n > max) throw Rejected{};
    return n;
  }
  static std::uint64_t unsigned_integer(simdjson::dom::element e, std::uint64_t max) {
    std::uint64_t n;
    if (e.get_uint64().get(n) || n > max) throw Rejected{};
    return n;
  }

  void read_section(simdjson::dom::element item) {
    Section& section = profile_.sections.emplace_back();
    bool have_records = false, have_threads = false;
    std::uint32_t max_thread = 0;
    for (auto [key, value] : object(item)) {
      if (key == "context") {
        section.context = std::string(string(value));
      } else if (key == "skipped") {
        section.skipped = unsigned_integer(value, UINT64_MAX);
      } else if (key == "threads") {
        have_threads = true;
        section.threads.clear();
        for (simdjson::dom::element t : array(value)) {
          section.threads.push_back(unsigned_integer(t, UINT64_MAX));
        }
      } else if (key == "records") {
        have_records = true;
        section.records.reserve(section.records.size() + array(value).size());
        read_records(value, section, max_thread);
      }
    }
    if (!have_records) throw Rejected{};
    finish_section_metrics(section, profile_.metrics.recorded);
    if (section.records.empty()) return;
    if (!have_threads) {
      make_thread_table(section);
    } else if (max_thread >= section.threads.size()) {
      throw Rejected{};
    }
  }

  static std::uint32_t read_record(simdjson::dom::element item, Section& section) {
    unsigned seen = 0;
    Record r;
    RecordMetrics m;
    bool has_metrics = false;
    for (auto [key, value] : object(item)) {
      if (key == "name") {
        r.name = section.names.intern(string(value));
        seen |= 1;
      } else if (key == "kernel") {
        r.kernel = section.names.intern(string(value));
      } else if (key == "depth") {
        r.depth = static_cast<std::uint16_t>(unsigned_integer(value, UINT16_MAX));
        seen |= 2;
      } else if (key == "sequence") {
        r.sequence = static_cast<std::uint32_t>(unsigned_integer(value, kNoParent - 1));
        seen |= 4;
      } else if (key == "parent") {
        r.parent = value.is_null()
                       ? kNoParent
                       : static_cast<std::uint32_t>(unsigned_integer(value, kNoParent - 1));
      } else if (key == "thread") {
        r.thread = static_cast<std::uint32_t>(unsigned_integer(value, UINT32_MAX));
      } else if (key == "start_ns") {
        r.start_ns = integer(value, INT64_MIN, INT64_MAX);
        seen |= 8;
      } else if (key == "inclusive_ns") {
        r.inclusive_ns = integer(value, 0, INT64_MAX);
        seen |= 16;
      } else if (key == "self_ns") {
        r.self_ns = integer(value, 0, INT64_MAX);
        seen |= 32;
      } else if (key == "failed") {
        bool failed = false;
        if (value.get_bool().get(failed)) throw Rejected{};
        if (failed) r.flags |= kRecordFailed;
      } else if (const MetricNumberField* f = find_metric_number(key)) {
        m.*f->member = integer(value, 0, INT64_MAX);
        has_metrics = true;
      } else if (const MetricFlagField* flag = find_metric_flag(key)) {
        bool yes = false;
        if (value.get_bool().get(yes)) throw Rejected{};
        m.ir_flags |= flag->known | (yes ? flag->value : 0);
        has_metrics = true;
      }
    }
    if (seen != 63) throw Rejected{};
    section.records.push_back(r);
    if (has_metrics) {
      section.metrics.resize(section.records.size() - 1);
      section.metrics.push_back(m);
    }
    return r.thread;
  }

  static constexpr std::size_t kKeepParserCapacity = std::size_t{16} << 20;

  simdjson::padded_string_view text_;
  simdjson::dom::parser& parser_ = thread_dom_parser();
  Profile profile_;
};

}  // namespace

simdjson::dom::parser& thread_dom_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

bool append_records(simdjson::dom::element records, Section& section, std::uint32_t& max_thread) {
  try {
    FastProfileReader::read_records(records, section, max_thread);
    return true;
  } catch (const Rejected&) {
    return false;
  }
}

/// Above this size a syntax error is reported without a second, located
/// parse (which costs seconds on a file of hundreds of megabytes).
constexpr std::size_t kLocateSyntaxBytes = std::size_t{16} << 20;

Profile parse_profile_padded(simdjson::padded_string_view text, std::string_view source) {
  try {
    return FastProfileReader(text).run();
  } catch (const Rejected& rejected) {
    // Read again, slowly, to name the line and the field; but a large input
    // whose syntax is broken beyond what the located reader can place better
    // is not read twice.
    if (rejected.syntax != simdjson::SUCCESS && text.size() > kLocateSyntaxBytes &&
        rejected.syntax != simdjson::UTF8_ERROR && rejected.syntax != simdjson::UNCLOSED_STRING) {
      throw InputError(std::string(source), 1,
                       fmt::format("invalid JSON: {}", simdjson::error_message(rejected.syntax)));
    }
    ProfileReader(text, source).run();
    throw InputError(std::string(source), 1, "malformed profile");
  }
}

}  // namespace passtiming::detail
