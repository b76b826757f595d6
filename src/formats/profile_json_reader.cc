#include "profile_json_reader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/huge_pages.h"
#include "json_text.h"
#include "metric_fields.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/profile_json.h"
#include "profile_json_fields.h"

namespace passtiming::detail {
namespace {

namespace dom = simdjson::dom;
namespace od = simdjson::ondemand;

/// Names, kernel labels and other strings longer than this are refused: no
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

/// The DOM parser every fast read on this thread shares: its buffers are
/// kept between files, which makes reading thousands of small profiles
/// cheap.
dom::parser& thread_dom_parser() {
  thread_local dom::parser parser;
  return parser;
}

// ==================================================================== walks
//
// The rules below walk the JSON through one of two classes with the same
// members: FastJson (simdjson's DOM) and LocatedJson (its on-demand API).
// Each gives values of a kind or fails; `Where` is what it knows of a
// value's place, and a failure's message is a string or a function making
// one, which only LocatedJson calls.

/// Thrown by FastJson at the first problem, and by the streamed mode when
/// the layout is not the writer's.
struct Rejected {
  simdjson::error_code syntax = simdjson::SUCCESS;  ///< the parser's error, if it was one
};

/// The fast mode's walk: simdjson's DOM parser, which picks the best SIMD
/// kernel of the running CPU at run time (the on-demand API is compiled for
/// the baseline CPU, and is several times slower). The DOM keeps no
/// positions, so every failure is the same Rejected.
class FastJson {
 public:
  using Value = dom::element;
  struct Where {};

  explicit FastJson(simdjson::padded_string_view text = {}) : text_(text) {}

  template <typename Message>
  [[noreturn]] static void fail(Where, Message&&) {
    throw Rejected{};
  }
  static Where end() { return {}; }

  static std::string_view string(Value v, Where, std::string_view) {
    std::string_view s;
    if (v.get_string().get(s) || s.size() > kMaxStringBytes) throw Rejected{};
    return s;
  }
  static std::int64_t signed_number(Value v, Where, std::string_view, std::int64_t min,
                                    std::int64_t max) {
    std::int64_t n;
    if (v.get_int64().get(n) || n < min || n > max) throw Rejected{};
    return n;
  }
  static std::uint64_t unsigned_number(Value v, Where, std::string_view, std::uint64_t max) {
    std::uint64_t n;
    if (v.get_uint64().get(n) || n > max) throw Rejected{};
    return n;
  }
  static bool boolean(Value v, Where, std::string_view) {
    bool b;
    if (v.get_bool().get(b)) throw Rejected{};
    return b;
  }
  static bool is_null(Value v, Where) { return v.is_null(); }

  /// The elements an array value holds (0 for another value), to size the
  /// storage before it is filled.
  static std::size_t element_count(Value v) {
    dom::array a;
    return v.get_array().get(a) ? 0 : a.size();
  }

  /// fn(key, value, where) for each member of an object value.
  template <typename Fn>
  static void for_each_member(Value v, Where, std::string_view, Fn&& fn) {
    dom::object object;
    if (v.get_object().get(object)) throw Rejected{};
    // The pair a range-for would make is kept in memory once its value's
    // address goes to `fn`; the key and the value taken apart are not.
    for (auto it = object.begin(), end = object.end(); it != end; ++it) {
      dom::element value = it.value();
      fn(it.key(), value, Where{});
    }
  }
  /// fn(value, where) for each element of an array value.
  template <typename Fn>
  static void for_each_element(Value v, Where, std::string_view, Fn&& fn) {
    dom::array array;
    if (v.get_array().get(array)) throw Rejected{};
    for (dom::element element : array) fn(element, Where{});
  }
  /// for_each_member over the document's root object.
  template <typename Fn>
  void for_each_root_member(Fn&& fn) {
    dom::element root;
    if (auto error = thread_dom_parser().parse(text_.data(), text_.size(), false).get(root)) {
      throw Rejected{error};
    }
    for_each_member(root, Where{}, "", fn);
  }

 private:
  simdjson::padded_string_view text_;
};

/// The located mode's walk: simdjson's on-demand API, which keeps a pointer
/// into the text for every value, so each failure names its line.
class LocatedJson {
 public:
  using Value = od::value;
  using Where = const char*;

  LocatedJson(simdjson::padded_string_view text, std::string_view source)
      : text_(text), source_(source) {}

  template <typename Message>
  [[noreturn]] void fail(Where at, Message&& message) const {
    if constexpr (std::is_invocable_v<Message>) {
      fail_at(at, std::string(message()));
    } else {
      fail_at(at, std::string(message));
    }
  }
  Where end() const { return text_.data() + text_.size(); }

  std::string_view string(Value& v, Where at, std::string_view name) const {
    std::string_view s;
    if (auto error = v.get_string().get(s)) fail_value(error, at, name, "a string");
    if (s.size() > kMaxStringBytes) {
      fail_at(at, fmt::format("field '{}' is longer than {} bytes", name, kMaxStringBytes));
    }
    return s;
  }
  std::int64_t signed_number(Value& v, Where at, std::string_view name, std::int64_t min,
                             std::int64_t max) const {
    std::int64_t n;
    auto expected = [&] { return fmt::format("an integer from {} to {}", min, max); };
    if (auto error = v.get_int64().get(n)) fail_value(error, at, name, expected());
    if (n < min || n > max) fail_at(at, fmt::format("field '{}' must be {}", name, expected()));
    return n;
  }
  std::uint64_t unsigned_number(Value& v, Where at, std::string_view name,
                                std::uint64_t max) const {
    std::uint64_t n;
    auto expected = [&] { return fmt::format("an integer from 0 to {}", max); };
    if (auto error = v.get_uint64().get(n)) {
      // JSON's -0 is zero, as the fast mode (simdjson's DOM) reads it: the
      // modes agree (a failed getter leaves the value to read again).
      std::int64_t zero = -1;
      if (v.get_int64().get(zero) == simdjson::SUCCESS && zero == 0) return 0;
      fail_value(error, at, name, expected());
    }
    if (n > max) fail_at(at, fmt::format("field '{}' must be {}", name, expected()));
    return n;
  }
  bool boolean(Value& v, Where at, std::string_view name) const {
    bool b = false;
    if (auto error = v.get_bool().get(b)) fail_value(error, at, name, "a boolean");
    return b;
  }
  bool is_null(Value& v, Where at) const {
    bool null = false;
    if (auto error = v.is_null().get(null)) fail_json(error, at);
    return null;
  }

  /// Unknown without a pass of its own over the array: 0.
  static std::size_t element_count(Value&) { return 0; }

  template <typename Fn>
  void for_each_member(Value& v, Where at, std::string_view name, Fn&& fn) const {
    od::object object;
    if (auto error = v.get_object().get(object)) fail_value(error, at, name, "an object");
    for_each_field(object, at, fn);
  }
  template <typename Fn>
  void for_each_element(Value& v, Where at, std::string_view name, Fn&& fn) const {
    od::array array;
    if (auto error = v.get_array().get(array)) fail_value(error, at, name, "an array");
    for (auto element : array) {
      od::value item;
      if (auto error = element.get(item)) fail_json(error, at);
      const char* item_at = nullptr;
      if (item.current_location().get(item_at)) item_at = at;
      fn(item, item_at);
    }
  }
  template <typename Fn>
  void for_each_root_member(Fn&& fn) {
    if (auto error = parser_.iterate(text_).get(document_)) fail_document(error);
    od::object root;
    if (auto error = document_.get_object().get(root)) {
      if (error == simdjson::INCORRECT_TYPE) fail_at(text_.data(), "expected a JSON object");
      fail_json(error, document_location());
    }
    for_each_field(root, nullptr, fn);
  }

 private:
  /// fn(key, value, key's place) for each member of `object`; an error
  /// between members is placed at `at`, or for the root object where the
  /// document's iteration stands.
  template <typename Fn>
  void for_each_field(od::object& object, Where at, Fn& fn) const {
    for (auto member : object) {
      if (auto error = member.error()) fail_json(error, at ? at : document_location());
      od::field& field = member.value_unsafe();
      const char* key_at = field.key().raw();
      std::string_view key;
      if (auto error = field.unescaped_key().get(key)) fail_json(error, key_at);
      fn(key, field.value(), key_at);
    }
  }

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
      fail_at(end(), "unexpected end of input: an object or array is not closed (truncated file?)");
    }
    fail_at(where, fmt::format("invalid JSON: {}", simdjson::error_message(error)));
  }

  [[noreturn]] void fail_utf8() const {
    const std::size_t bad = find_invalid_utf8(std::string_view(text_.data(), text_.size()));
    fail_at(text_.data() + (bad == std::string_view::npos ? 0 : bad), "invalid UTF-8");
  }

  /// Errors of the first pass over the whole text, before any value is read.
  [[noreturn]] void fail_document(simdjson::error_code error) const {
    switch (error) {
      case simdjson::EMPTY: fail_at(end(), "empty input");
      case simdjson::UTF8_ERROR: fail_utf8();
      case simdjson::UNCLOSED_STRING:
        fail_at(end(), "unexpected end of input inside a string (truncated file?)");
      default: fail_json(error, end());
    }
  }

  [[noreturn]] void fail_value(simdjson::error_code error, const char* at, std::string_view name,
                               std::string_view expected) const {
    if (error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_OUT_OF_RANGE ||
        error == simdjson::NUMBER_ERROR) {
      fail_at(at, fmt::format("field '{}' must be {}", name, expected));
    }
    fail_json(error, at);
  }

  const char* document_location() const {
    const char* p = nullptr;
    if (document_.current_location().get(p)) return end();
    return p;
  }

  simdjson::padded_string_view text_;
  std::string_view source_;
  od::parser parser_;
  // Mutable: asking the document where it stands is not const in simdjson.
  mutable od::document document_;
};

// ==================================================================== rules

/// The largest thread index the records of a section use, and the first
/// record that uses it.
template <typename Where>
struct ThreadsUsed {
  std::uint32_t max = 0;
  Where at{};
  bool any = false;
};

/// The bits of the required fields of kRecordFields, by index.
constexpr unsigned required_record_fields() {
  unsigned bits = 0;
  for_each_record_field([&]<std::size_t I>() {
    if constexpr (std::get<I>(kRecordFields).required) bits |= 1u << I;
  });
  return bits;
}
static_assert(kRecordFieldCount <= 32);

/// `Bytes` bytes at `p` as an unsigned integer.
template <std::size_t Bytes>
inline auto load(const char* p) {
  using Word = std::conditional_t<Bytes == 8, std::uint64_t,
                                  std::conditional_t<Bytes == 4, std::uint32_t, std::uint16_t>>;
  Word word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

/// Whether `key` is the key of field I. Compared as a constant: the length
/// first, then two overlapping loads of the key against two words the
/// compiler folds. Spelled out because GCC leaves a memcmp of 6 or 7 bytes,
/// or the string_view operator among eleven fields in one function, a call
/// to the C library, on the fast mode's every member.
template <std::size_t I>
inline bool is_record_key(std::string_view key) {
  constexpr std::string_view expected = std::get<I>(kRecordFields).key;
  constexpr std::size_t n = expected.size();
  static_assert(n >= 2 && n <= 16, "a key of this length needs another comparison");
  if (key.size() != n) return false;
  constexpr std::size_t word = n >= 8 ? 8 : n >= 4 ? 4 : 2;
  return load<word>(key.data()) == load<word>(expected.data()) &&
         load<word>(key.data() + n - word) == load<word>(expected.data() + n - word);
}

/// The rules of the profile, over either walk of the JSON, reading into
/// `profile`.
template <typename Json>
class Rules {
 public:
  using Value = typename Json::Value;
  using Where = typename Json::Where;

  Rules(Json& json, Profile& profile) : json_(json), profile_(profile) {}

  /// The document's profile.
  void read_profile() {
    bool have_format = false, have_version = false, have_sections = false;
    json_.for_each_root_member([&](std::string_view key, Value& value, Where at) {
      if (key == "format") {
        have_format = true;
        if (json_.string(value, at, "format") != kProfileFormatName) {
          json_.fail(
              at, [] { return fmt::format("field 'format' must be \"{}\"", kProfileFormatName); });
        }
      } else if (key == "version") {
        have_version = true;
        const std::int64_t version = json_.signed_number(value, at, "version", 0, INT64_MAX);
        if (version < 1 || version > kProfileFormatVersion) {
          json_.fail(at, [&] {
            return fmt::format("unsupported profile version {} (this reader knows 1 to {})",
                               version, kProfileFormatVersion);
          });
        }
      } else if (key == "metadata") {
        read_metadata(value, at);
      } else if (key == "metrics") {
        read_metrics(value, at);
      } else if (key == "phases") {
        read_phases(value, at);
      } else if (key == "sections") {
        have_sections = true;
        json_.for_each_element(value, at, "sections", [&](Value& item, Where item_at) {
          read_section(item, item_at, profile_.sections.emplace_back());
        });
      }
    });
    if (!have_format) json_.fail(json_.end(), "not a passtiming profile: missing field 'format'");
    if (!have_version) json_.fail(json_.end(), "missing field 'version'");
    if (!have_sections) json_.fail(json_.end(), "missing field 'sections'");
    check_phases();
  }

  /// Appends the records of an array value to `section`, noting the threads
  /// they use in `threads`.
  void read_records(Value& array, Where at, Section& section, ThreadsUsed<Where>& threads) {
    section.records.reserve(section.records.size() + json_.element_count(array));
    json_.for_each_element(array, at, "records", [&](Value& item, Where item_at) {
      const std::uint32_t thread = read_record(item, item_at, section);
      if (thread > threads.max || !threads.any) {
        threads.max = thread;
        threads.at = item_at;
        threads.any = true;
      }
    });
  }

  /// What a section needs once its records are read: its metrics, and its
  /// thread table, made from the keys in use when it had none.
  void finish_section(Section& section, bool have_threads, const ThreadsUsed<Where>& threads) {
    finish_section_metrics(section, profile_.metrics.recorded);
    if (section.records.empty()) return;
    if (!have_threads) {
      make_thread_table(section);
    } else if (threads.max >= section.threads.size()) {
      json_.fail(threads.at, [&] {
        return fmt::format("field 'thread' is {} but the section has {} thread(s)", threads.max,
                           section.threads.size());
      });
    }
  }

 private:
  void read_metadata(Value& value, Where at) {
    read_metadata_members(value, at, "metadata", profile_.metadata, nullptr);
  }

  /// The members of a metadata object (the profile's, or a section's
  /// origin, which has `file` too).
  void read_metadata_members(Value& value, Where at, std::string_view what, ProfileMetadata& m,
                             std::string* file) {
    json_.for_each_member(value, at, what, [&](std::string_view key, Value& v, Where key_at) {
      if (file != nullptr && key == "file") {
        *file = json_.string(v, key_at, "file");
      } else if (key == "tool") {
        m.tool = json_.string(v, key_at, "tool");
      } else if (key == "command") {
        m.command = json_.string(v, key_at, "command");
      } else if (key == "host") {
        m.host = json_.string(v, key_at, "host");
      } else if (key == "start_time") {
        m.start_time = json_.string(v, key_at, "start_time");
      } else if (key == "pid") {
        m.pid = json_.signed_number(v, key_at, "pid", INT64_MIN, INT64_MAX);
      } else if (key == "source") {
        m.source = json_.string(v, key_at, "source");
      }
    });
  }

  void read_metrics(Value& value, Where at) {
    ProfileMetrics& metrics = profile_.metrics;
    json_.for_each_member(value, at, "metrics", [&](std::string_view key, Value& v, Where key_at) {
      if (key == "recorded") {
        json_.for_each_element(v, key_at, "recorded", [&](Value& item, Where) {
          metrics.recorded.insert(metric_named(json_.string(item, key_at, "recorded"), key_at));
        });
      } else if (key == "unavailable") {
        json_.for_each_member(v, key_at, "unavailable",
                              [&](std::string_view name, Value& reason, Where name_at) {
                                const Metric m = metric_named(name, name_at);
                                metrics.unavailable.push_back(
                                    {m, std::string(json_.string(reason, name_at, "unavailable"))});
                              });
      }
    });
  }

  void read_phases(Value& value, Where at) {
    phases_at_ = at;
    profile_.phases.clear();
    json_.for_each_element(value, at, "phases", [&](Value& item, Where item_at) {
      Phase& p = profile_.phases.emplace_back();
      bool have_name = false, have_start = false, have_duration = false;
      json_.for_each_member(
          item, item_at, "phase", [&](std::string_view key, Value& v, Where key_at) {
            if (key == "name") {
              have_name = true;
              p.name = json_.string(v, key_at, "name");
            } else if (key == "detail") {
              p.detail = json_.string(v, key_at, "detail");
            } else if (key == "parent") {
              p.parent = json_.is_null(v, key_at) ? kNoPhase
                                                  : static_cast<PhaseIndex>(json_.unsigned_number(
                                                        v, key_at, "parent", kNoPhase - 1));
            } else if (key == "thread") {
              p.thread = json_.unsigned_number(v, key_at, "thread", UINT64_MAX);
            } else if (key == "start_ns") {
              have_start = true;
              p.start_ns = json_.signed_number(v, key_at, "start_ns", INT64_MIN, INT64_MAX);
            } else if (key == "duration_ns") {
              have_duration = true;
              p.duration_ns = json_.signed_number(v, key_at, "duration_ns", 0, INT64_MAX);
            } else if (key == "cpu_ns") {
              p.cpu_ns = json_.signed_number(v, key_at, "cpu_ns", 0, INT64_MAX);
            } else if (key == "failed") {
              if (json_.boolean(v, key_at, "failed")) p.flags |= kPhaseFailed;
            }
          });
      if (!have_name) json_.fail(item_at, "phase without field 'name'");
      if (!have_start) json_.fail(item_at, "phase without field 'start_ns'");
      if (!have_duration) json_.fail(item_at, "phase without field 'duration_ns'");
    });
  }

  /// The phases form a tree, and every section's phase is one of them.
  void check_phases() {
    const std::string problem = check_phase_tree(profile_.phases);
    if (!problem.empty()) json_.fail(phases_at_, [&] { return problem; });
    for (std::size_t i = 0; i < profile_.sections.size(); ++i) {
      const PhaseIndex phase = profile_.sections[i].phase;
      if (phase != kNoPhase && phase >= profile_.phases.size()) {
        json_.fail(json_.end(), [&] {
          return fmt::format("section {} is in phase {} but the profile has {} phase(s)", i, phase,
                             profile_.phases.size());
        });
      }
    }
  }

  Metric metric_named(std::string_view name, Where at) const {
    Metric m;
    if (!metric_from_name(name, m)) {
      json_.fail(at, [&] {
        return fmt::format("unknown metric '{}' (known: cpu, rss, ir, instructions)", name);
      });
    }
    return m;
  }

  void read_section(Value& value, Where at, Section& section) {
    bool have_records = false, have_threads = false;
    ThreadsUsed<Where> threads;
    json_.for_each_member(value, at, "section", [&](std::string_view key, Value& v, Where key_at) {
      if (key == "context") {
        section.context = std::string(json_.string(v, key_at, "context"));
      } else if (key == "origin") {
        read_metadata_members(v, key_at, "origin", section.origin.metadata, &section.origin.file);
      } else if (key == "phase") {
        section.phase =
            static_cast<PhaseIndex>(json_.unsigned_number(v, key_at, "phase", kNoPhase - 1));
      } else if (key == "skipped") {
        section.skipped = json_.unsigned_number(v, key_at, "skipped", UINT64_MAX);
      } else if (key == "threads") {
        have_threads = true;
        section.threads.clear();
        json_.for_each_element(v, key_at, "threads", [&](Value& t, Where) {
          section.threads.push_back(json_.unsigned_number(t, key_at, "threads", UINT64_MAX));
        });
      } else if (key == "records") {
        have_records = true;
        read_records(v, key_at, section, threads);
      }
    });
    if (!have_records) json_.fail(at, "section without field 'records'");
    finish_section(section, have_threads, threads);
  }

  /// Appends the record to `section`; returns its thread.
  // The fast mode's inner loop, kept a function of its own and flattened:
  // inlined into the loop over the records, or left to GCC's inliner, it
  // grows past the inliner's budget and simdjson's getters (get_int64, three
  // times a record) become calls, about 3% of a large profile's read.
  [[gnu::noinline, gnu::flatten]] std::uint32_t read_record(Value& value, Where at,
                                                            Section& section) {
    Record r;
    RecordMetrics m;
    bool has_metrics = false;
    unsigned seen = 0;
    json_.for_each_member(value, at, "record", [&](std::string_view key, Value& v, Where key_at) {
      const bool known = any_record_field([&]<std::size_t I>() {
        constexpr auto& field = std::get<I>(kRecordFields);
        if constexpr (field.value == RecordValue::metrics) {
          return false;  // below, after the keys of the record's own members
        } else {
          if (!is_record_key<I>(key)) return false;
          read_member<I>(v, key_at, section, r);
          if constexpr (field.required) seen |= 1u << I;
          return true;
        }
      });
      if (!known) has_metrics |= read_metric_member(key, v, key_at, m);
    });
    if (seen != required_record_fields()) {
      for_each_record_field([&]<std::size_t I>() {
        constexpr auto& field = std::get<I>(kRecordFields);
        if (field.required && !(seen & (1u << I))) {
          json_.fail(at, [&] { return fmt::format("record without field '{}'", field.key); });
        }
      });
    }
    section.records.push_back(r);
    if (has_metrics) {
      section.metrics.resize(section.records.size() - 1);
      section.metrics.push_back(m);
    }
    return r.thread;
  }

  /// Reads the value of field I into `r`.
  template <std::size_t I>
  void read_member(Value& v, Where at, Section& section, Record& r) {
    constexpr auto& field = std::get<I>(kRecordFields);
    using Member = std::remove_reference_t<decltype(r.*field.member)>;
    if constexpr (field.value == RecordValue::name) {
      r.*field.member = section.names.intern(json_.string(v, at, field.key));
    } else if constexpr (field.value == RecordValue::unsigned_number) {
      r.*field.member = static_cast<Member>(json_.unsigned_number(v, at, field.key, field.max));
    } else if constexpr (field.value == RecordValue::signed_number) {
      r.*field.member = json_.signed_number(v, at, field.key, field.min, field.max);
    } else if constexpr (field.value == RecordValue::unsigned_or_null) {
      r.*field.member =
          json_.is_null(v, at)
              ? kNoParent
              : static_cast<Member>(json_.unsigned_number(v, at, field.key, field.max));
    } else if constexpr (field.value == RecordValue::flag) {
      if (json_.boolean(v, at, field.key)) r.*field.member |= field.bit;
    }
  }

  /// Reads a metric member (kMetricNumberFields, kMetricFlagFields) into
  /// `m`; false when `key` names none.
  bool read_metric_member(std::string_view key, Value& v, Where at, RecordMetrics& m) {
    if (const MetricNumberField* f = find_metric_number(key)) {
      m.*f->member = json_.signed_number(v, at, f->key, 0, INT64_MAX);
      return true;
    }
    if (const MetricFlagField* flag = find_metric_flag(key)) {
      const bool yes = json_.boolean(v, at, flag->key);
      m.ir_flags |= flag->known | (yes ? flag->value : 0);
      return true;
    }
    return false;
  }

  Json& json_;
  Profile& profile_;
  Where phases_at_{};
};

// ==================================================================== modes

/// The fast mode, throwing Rejected.
Profile read_fast(simdjson::padded_string_view text) {
  // A parser keeps its buffers (several times the input) for the next file,
  // which makes `summary` over thousands of files cheap; after a large input
  // they are given back rather than held for the thread's life.
  constexpr std::size_t kKeepParserCapacity = std::size_t{16} << 20;
  struct Trim {
    ~Trim() {
      dom::parser& parser = thread_dom_parser();
      if (parser.capacity() > kKeepParserCapacity) parser = dom::parser();
    }
  } trim;
  Profile profile;
  FastJson json(text);
  Rules<FastJson>(json, profile).read_profile();
  return profile;
}

constexpr std::size_t kReadBytes = std::size_t{1} << 20;
constexpr std::size_t kBatchBytes = std::size_t{1} << 20;
/// No record line is shorter than this ("{"name":"","kernel":"",...}" with
/// every number a single digit), so the bytes left in the file bound the
/// records still to come, which sizes the storage before it is touched.
constexpr std::size_t kMinRecordLineBytes = 100;
/// The writer puts three lines before the sections; a file with many more is
/// laid out otherwise (pretty-printed, say), and is left to the whole-file
/// read before its text piles up in the skeleton.
constexpr std::size_t kMaxHeaderLines = 16;

/// The streamed mode. The layout, line by line (in valid JSON a line never
/// starts inside a string, since JSON strings hold no raw newline):
///
///     {"format":...,"version":1,          header lines, up to
///     "sections":[
///     {"context":...,"records":[          a section line: its records follow,
///     {record},                             one per line,
///     {record}]},                           the last closing the section
///     {"context":...,"records":[]}        or a section with none
///     ]}
///
/// Everything but the record lines forms a small "skeleton" document, read
/// in the fast mode; the record lines are parsed a batch at a time as JSON
/// arrays, read by the same rules, and then given to the sections of the
/// skeleton. Each batch is the file's own text between the brackets of its
/// array, cut only after a comma that ends a line: so both parses succeed
/// only when the file is valid, and then give the same records. Any other
/// layout, and any problem, throws Rejected.
class StreamedRead {
 public:
  StreamedRead(int fd, std::uint64_t size) : fd_(fd), size_(size) {}

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
      if (n < 0) throw Rejected{};  // the whole-file read reports it
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
    if (state_ != State::kEnd) throw Rejected{};
    return finish();
  }

 private:
  enum class State { kHeader, kSections, kRecords, kEnd };

  /// One records array read from its lines: which section line opened it.
  struct Records {
    std::size_t section_line = 0;
    ThreadsUsed<FastJson::Where> threads;
    Section section;  ///< only `records`, `names` and `metrics`
  };

  void on_line(std::string_view line) {
    const std::uint64_t line_offset = offset_;
    offset_ += line.size() + 1;
    switch (state_) {
      case State::kHeader:
        if (++header_lines_ > kMaxHeaderLines) throw Rejected{};
        add_to_skeleton(line);
        if (line == "\"sections\":[") state_ = State::kSections;
        return;
      case State::kSections:
        if (line == "]}") {
          add_to_skeleton(line);
          state_ = State::kEnd;
          return;
        }
        if (!line.starts_with("{\"context\":")) throw Rejected{};
        add_to_skeleton(line);
        ++section_lines_;
        if (line.ends_with("\"records\":[")) {
          begin_records(line_offset);
          state_ = State::kRecords;
        }
        return;
      case State::kRecords: on_record_line(line); return;
      case State::kEnd:
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) throw Rejected{};
        return;
    }
  }

  void on_record_line(std::string_view line) {
    if (line.empty() || line.front() != '{') throw Rejected{};
    std::string_view closing;
    if (line.ends_with("]},")) {
      closing = "]},";
    } else if (line.ends_with("]}")) {
      closing = "]}";
    } else if (!line.ends_with(',')) {
      throw Rejected{};
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
    Records& current = records_.emplace_back();
    current.section_line = section_lines_ - 1;
    const std::uint64_t left = size_ > line_offset ? size_ - line_offset : 0;
    const auto most = static_cast<std::size_t>(left / kMinRecordLineBytes);
    current.section.records.reserve(most);
    advise_huge_pages(current.section.records.data(), most * sizeof(Record));
  }

  void end_records() {
    std::vector<Record>& records = records_.back().section.records;
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
    dom::element array;
    if (thread_dom_parser().parse(batch_.data(), length, false).get(array)) throw Rejected{};
    Records& current = records_.back();
    FastJson json;
    Rules<FastJson>(json, profile_).read_records(array, {}, current.section, current.threads);
    batch_.clear();
  }

  Profile finish() {
    std::optional<Profile> skeleton = read_profile_json_fast(simdjson::padded_string(skeleton_));
    if (!skeleton || skeleton->sections.size() != section_lines_) throw Rejected{};
    profile_ = std::move(*skeleton);
    FastJson json;
    Rules<FastJson> rules(json, profile_);
    for (Records& streamed : records_) {
      Section& target = profile_.sections[streamed.section_line];
      // A section line that also held records of its own is not the layout.
      if (!target.records.empty()) throw Rejected{};
      if (streamed.section.records.empty()) continue;
      target.names = std::move(streamed.section.names);
      target.records = std::move(streamed.section.records);
      target.metrics = std::move(streamed.section.metrics);
      // Records need the thread table the writer always puts before them.
      rules.finish_section(target, /*have_threads=*/true, streamed.threads);
    }
    return std::move(profile_);
  }

  int fd_;
  std::uint64_t size_;
  std::uint64_t offset_ = 0;
  State state_ = State::kHeader;
  std::size_t header_lines_ = 0;
  std::size_t section_lines_ = 0;
  std::string skeleton_;
  std::string batch_;
  std::vector<Records> records_;
  Profile profile_;  ///< the skeleton's, once read
};

}  // namespace

std::optional<Profile> read_profile_json_fast(simdjson::padded_string_view text) {
  try {
    return read_fast(text);
  } catch (const Rejected&) {
    return std::nullopt;
  }
}

Profile read_profile_json_located(simdjson::padded_string_view text, std::string_view source) {
  Profile profile;
  LocatedJson json(text, source);
  Rules<LocatedJson>(json, profile).read_profile();
  return profile;
}

std::optional<Profile> read_profile_json_streamed(int fd, std::uint64_t size) {
  try {
    return StreamedRead(fd, size).run();
  } catch (const Rejected&) {
    return std::nullopt;
  }
}

/// Above this size a syntax error is reported without a second, located
/// parse (which costs seconds on a file of hundreds of megabytes).
constexpr std::size_t kLocateSyntaxBytes = std::size_t{16} << 20;

Profile read_profile_json(simdjson::padded_string_view text, std::string_view source) {
  try {
    return read_fast(text);
  } catch (const Rejected& rejected) {
    // Read again, slowly, to name the line and the field; but a large input
    // whose syntax is broken beyond what the located mode can place better
    // is not read twice.
    if (rejected.syntax != simdjson::SUCCESS && text.size() > kLocateSyntaxBytes &&
        rejected.syntax != simdjson::UTF8_ERROR && rejected.syntax != simdjson::UNCLOSED_STRING) {
      throw InputError(std::string(source), 1,
                       fmt::format("invalid JSON: {}", simdjson::error_message(rejected.syntax)));
    }
    read_profile_json_located(text, source);
    throw InputError(std::string(source), 1, "malformed profile");
  }
}

}  // namespace passtiming::detail
