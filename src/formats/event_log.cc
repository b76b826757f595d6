#include "passtiming/formats/event_log.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "metric_fields.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/logging.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming {
namespace {

constexpr std::string_view kFormatName = "passtiming-events";
constexpr std::int64_t kFormatVersion = 1;

/// Reads one event log, line by line, and drives the state machine.
class Replayer {
 public:
  explicit Replayer(std::string_view source) : source_(source) {}

  Profile run(std::istream& in) {
    std::string line;
    line.reserve(4096);
    while (std::getline(in, line)) {
      ++line_number_;
      // A log streamed by a process that was killed ends in the unused,
      // zero-filled rest of the writer's last chunk, and possibly in a line
      // the process did not finish: the NULs are ignored, and so is that
      // cut-off final line (with a warning), so every completed event counts.
      const bool unterminated = in.eof();
      if (unterminated) {
        const std::size_t end = line.find_last_not_of('\0');
        line.resize(end == std::string::npos ? 0 : end + 1);
      }
      if (line.size() > kMaxLineBytes) {
        fail(fmt::format("line is longer than {} bytes", kMaxLineBytes));
      }
      if (line.empty() || (line.size() == 1 && line[0] == '\r')) continue;
      if (unterminated && !is_json(line)) {
        get_logger(kTimingLoggerName)
            .warning(fmt::format("{}:{}: ignoring the cut-off final line of the event log", source_,
                                 line_number_));
        break;
      }
      handle(line);
    }
    if (in.bad()) fail("read error");
    if (in_context_) close_section(last_t_);
    // A phase without its end was cut off with the compile: it failed there.
    while (!open_phases_.empty()) close_phase(open_phases_.front(), last_t_, true);
    if (std::string problem = check_phase_tree(profile_.phases); !problem.empty()) fail(problem);
    return std::move(profile_);
  }

 private:
  /// No event comes near this; a longer line is damage, refused before parsing.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  bool is_json(const std::string& line) {
    simdjson::dom::element doc;
    return parser_.parse(line).get(doc) == simdjson::SUCCESS;
  }

  [[noreturn]] void fail(std::string message) const {
    throw InputError(std::string(source_), line_number_, std::move(message));
  }

  simdjson::dom::element field(simdjson::dom::object object, std::string_view key) const {
    simdjson::dom::element value;
    if (object[key].get(value) != simdjson::SUCCESS) fail(fmt::format("missing field '{}'", key));
    return value;
  }

  std::string_view string_field(simdjson::dom::object object, std::string_view key) const {
    std::string_view value;
    if (field(object, key).get_string().get(value) != simdjson::SUCCESS) {
      fail(fmt::format("field '{}' must be a string", key));
    }
    return value;
  }

  std::int64_t int_field(simdjson::dom::object object, std::string_view key) const {
    std::int64_t value;
    if (field(object, key).get_int64().get(value) != simdjson::SUCCESS) {
      fail(fmt::format("field '{}' must be an integer", key));
    }
    return value;
  }

  std::string_view optional_string(simdjson::dom::object object, std::string_view key) const {
    simdjson::dom::element value;
    if (object[key].get(value) != simdjson::SUCCESS) return {};
    return string_field(object, key);
  }

  ThreadKey optional_tid(simdjson::dom::object object) const {
    simdjson::dom::element value;
    if (object["tid"].get(value) != simdjson::SUCCESS) return 0;
    return static_cast<ThreadKey>(int_field(object, "tid"));
  }

  void handle(std::string& line) {
    simdjson::dom::element doc;
    if (auto error = parser_.parse(line).get(doc); error != simdjson::SUCCESS) {
      fail(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
    }
    simdjson::dom::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) fail("expected a JSON object");
    const std::string_view ev = string_field(object, "ev");
    const bool first = !seen_event_;
    seen_event_ = true;

    if (ev == "meta") {
      if (!first) fail("'meta' may only be the first line");
      check_meta(object);
      return;
    }
    const Nanoseconds t = int_field(object, "t_ns");
    last_t_ = t;
    if (ev == "enter_ctx") {
      if (in_context_) close_section(t);
      open_section(t, optional_string(object, "context"));
    } else if (ev == "before") {
      const std::string_view pass = string_field(object, "pass");
      const std::string_view kernel = optional_string(object, "kernel");
      const ThreadKey tid = optional_tid(object);
      ensure_context(t);
      read_sample(object);
      machine_.begin(t, {pass, kernel, tid});
    } else if (ev == "after") {
      const std::string_view pass = string_field(object, "pass");
      const ThreadKey tid = optional_tid(object);
      ensure_context(t);
      read_sample(object);
      machine_.end(t, {pass, tid});
    } else if (ev == "skip") {
      const std::string_view pass = string_field(object, "pass");
      const std::string_view kernel = optional_string(object, "kernel");
      const ThreadKey tid = optional_tid(object);
      ensure_context(t);
      machine_.skip(t, pass, kernel, tid);
    } else if (ev == "exit_ctx") {
      if (in_context_) close_section(t);
    } else if (ev == "phase_begin") {
      open_phases_.push_back(add_phase(object, t));
    } else if (ev == "phase_end") {
      const PhaseIndex phase = phase_field(object, "phase");
      if (std::find(open_phases_.begin(), open_phases_.end(), phase) == open_phases_.end()) {
        fail(fmt::format("'phase_end' of phase {}, which is not open", int_field(object, "phase")));
      }
      read_phase_end(object, profile_.phases[phase]);
      close_phase(phase, t, false);
    } else if (ev == "phase") {
      const PhaseIndex phase = add_phase(object, t);
      const std::int64_t duration = int_field(object, "duration_ns");
      if (duration < 0) fail("field 'duration_ns' must not be negative");
      profile_.phases[phase].duration_ns = duration;
      read_phase_end(object, profile_.phases[phase]);
    } else {
      fail(fmt::format("unknown event '{}'", ev.substr(0, 64)));
    }
  }

  /// The metric readings of a before- or after-event, handed to the state
  /// machine as its sampler's next values. The first event with readings
  /// in a log whose meta line named no metrics starts recording the metrics
  /// they belong to.
  void read_sample(simdjson::dom::object object) {
    MetricSample sample;
    bool any = false;
    for (const detail::SampleNumberField& f : detail::kSampleNumberFields) {
      simdjson::dom::element value;
      if (object[f.key].get(value) != simdjson::SUCCESS) continue;
      if (value.get_int64().get(sample.*f.member) != simdjson::SUCCESS || sample.*f.member < 0) {
        fail(fmt::format("field '{}' must be an integer from 0 to {}", f.key, INT64_MAX));
      }
      any = true;
    }
    for (const detail::MetricFlagField& f : detail::kMetricFlagFields) {
      simdjson::dom::element value;
      if (object[f.key].get(value) != simdjson::SUCCESS) continue;
      bool yes = false;
      if (value.get_bool().get(yes) != simdjson::SUCCESS) {
        fail(fmt::format("field '{}' must be a boolean", f.key));
      }
      sample.ir_flags |= f.known | (yes ? f.value : 0);
      any = true;
    }
    if (any && machine_.metrics().empty()) {
      MetricSet implied;
      if (sample.cpu_ns != kNotMeasured) implied.insert(Metric::cpu);
      if (sample.rss_bytes != kNotMeasured) implied.insert(Metric::rss);
      if (sample.instructions != kNotMeasured) implied.insert(Metric::instructions);
      if (sample.ir_size != kNotMeasured || sample.ir_flags != 0) implied.insert(Metric::ir);
      profile_.metrics.recorded = implied;
      machine_.set_metrics(&sampler_, implied);
    }
    sampler_.set(sample);
    machine_.note_ir(sample.ir_size, sample.ir_flags);
  }

  /// The profile's index of the phase the log calls by the integer `key`.
  PhaseIndex phase_field(simdjson::dom::object object, std::string_view key) const {
    const std::int64_t number = int_field(object, key);
    const auto found = phase_numbers_.find(number);
    if (found == phase_numbers_.end()) {
      fail(fmt::format("field '{}' names phase {}, which no earlier line began", key, number));
    }
    return found->second;
  }

  /// A `phase_begin` or `phase` line's phase, starting at `t`, added to the
  /// profile under the log's number for it.
  PhaseIndex add_phase(simdjson::dom::object object, Nanoseconds t) {
    const std::int64_t number = int_field(object, "phase");
    Phase phase;
    phase.name = std::string(string_field(object, "name"));
    phase.detail = std::string(optional_string(object, "detail"));
    simdjson::dom::element value;
    if (object["parent"].get(value) == simdjson::SUCCESS) {
      phase.parent = phase_field(object, "parent");
    }
    phase.thread = optional_tid(object);
    phase.start_ns = t;
    const auto index = static_cast<PhaseIndex>(profile_.phases.size());
    if (!phase_numbers_.emplace(number, index).second) {
      fail(fmt::format("phase {} began twice", number));
    }
    profile_.phases.push_back(std::move(phase));
    return index;
  }

  /// A closed phase's optional members: `cpu_ns`, `failed`.
  void read_phase_end(simdjson::dom::object object, Phase& phase) const {
    simdjson::dom::element value;
    if (object["cpu_ns"].get(value) == simdjson::SUCCESS) {
      phase.cpu_ns = int_field(object, "cpu_ns");
      if (phase.cpu_ns < 0) fail("field 'cpu_ns' must not be negative");
    }
    if (object["failed"].get(value) == simdjson::SUCCESS) {
      bool failed = false;
      if (value.get_bool().get(failed) != simdjson::SUCCESS) {
        fail("field 'failed' must be a boolean");
      }
      if (failed) phase.flags |= kPhaseFailed;
    }
  }

  /// Ends the open `index` at `t`, and with it, failed, the phases opened
  /// after it on its thread and still open, as the session does.
  void close_phase(PhaseIndex index, Nanoseconds t, bool failed) {
    const std::uint64_t thread = profile_.phases[index].thread;
    for (auto it = open_phases_.begin(); it != open_phases_.end();) {
      Phase& phase = profile_.phases[*it];
      if (*it == index || (*it > index && phase.thread == thread)) {
        phase.duration_ns = std::max<Nanoseconds>(0, t - phase.start_ns);
        if (failed || *it != index) phase.flags |= kPhaseFailed;
        it = open_phases_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void check_meta(simdjson::dom::object object) {
    // Where the log came from, when the writer said so (optional, any type
    // mismatch is ignored like any other unknown content).
    ProfileMetadata& m = profile_.metadata;
    std::string_view text;
    if (object["tool"].get_string().get(text) == simdjson::SUCCESS) m.tool = std::string(text);
    if (object["command"].get_string().get(text) == simdjson::SUCCESS)
      m.command = std::string(text);
    if (object["host"].get_string().get(text) == simdjson::SUCCESS) m.host = std::string(text);
    if (object["start_time"].get_string().get(text) == simdjson::SUCCESS) {
      m.start_time = std::string(text);
    }
    std::int64_t pid;
    if (object["pid"].get_int64().get(pid) == simdjson::SUCCESS) m.pid = pid;
    if (object["source"].get_string().get(text) == simdjson::SUCCESS) m.source = std::string(text);
    simdjson::dom::element value;
    if (object["format"].get(value) == simdjson::SUCCESS &&
        string_field(object, "format") != kFormatName) {
      fail(fmt::format("'format' must be \"{}\"", kFormatName));
    }
    if (object["metrics"].get(value) == simdjson::SUCCESS) {
      if (!detail::read_metrics_member(value, profile_.metrics)) {
        fail(
            "field 'metrics' must be {\"recorded\":[METRIC,...],\"unavailable\":{METRIC:REASON}}"
            " with the metrics cpu, rss, ir, instructions");
      }
      if (!profile_.metrics.recorded.empty()) {
        machine_.set_metrics(&sampler_, profile_.metrics.recorded);
      }
    }
    if (object["version"].get(value) == simdjson::SUCCESS) {
      const std::int64_t version = int_field(object, "version");
      if (version != kFormatVersion) {
        fail(fmt::format("unsupported event log version {} (this reader knows {})", version,
                         kFormatVersion));
      }
    }
  }

  void open_section(Nanoseconds t, std::string_view context) {
    machine_.enter(t, context);
    in_context_ = true;
    // The log does not say on which thread a context began: its section is
    // in the phase begun last among those open, the one a single-threaded
    // session names.
    section_phase_ = open_phases_.empty() ? kNoPhase : open_phases_.back();
  }

  void ensure_context(Nanoseconds t) {
    if (!in_context_) open_section(t, {});
  }

  void close_section(Nanoseconds t) {
    machine_.exit(t);
    profile_.sections.push_back(machine_.take_section());
    profile_.sections.back().phase = section_phase_;
    in_context_ = false;
  }

  std::string_view source_;
  std::size_t line_number_ = 0;
  simdjson::dom::parser parser_;
  TimingStateMachine machine_;
  /// The readings of the event being replayed.
  ManualMetricSampler sampler_;
  Profile profile_;
  /// The phases begun and not ended, in the order they began.
  std::vector<PhaseIndex> open_phases_;
  /// The log's numbers of the phases -> their index in the profile.
  std::unordered_map<std::int64_t, PhaseIndex> phase_numbers_;
  /// The phase of the section being replayed.
  PhaseIndex section_phase_ = kNoPhase;
  bool in_context_ = false;
  bool seen_event_ = false;
  Nanoseconds last_t_ = 0;
};

}  // namespace

Profile replay_event_log(std::istream& in, std::string_view source) {
  return Replayer(source).run(in);
}

}  // namespace passtiming
