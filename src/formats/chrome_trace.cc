#include "passtiming/formats/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>

#include "json_text.h"
#include "metric_fields.h"
#include "passtiming/formats/profile_json.h"

namespace passtiming {
namespace {

/// Microseconds as an exact decimal: the integer part, then up to three
/// digits of nanoseconds with trailing zeros dropped ("12", "12.5",
/// "0.001"). Trace viewers read `ts`/`dur` in µs; passes shorter than a
/// microsecond would vanish if rounded.
void append_micros(std::string& out, Nanoseconds ns) {
  if (ns < 0) {
    out.push_back('-');
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(out), "{}", ns / 1000);
  int frac = static_cast<int>(ns % 1000);
  if (frac == 0) return;
  int digits = 3;
  while (frac % 10 == 0) frac /= 10, --digits;
  fmt::format_to(std::back_inserter(out), ".{:0{}}", frac, digits);
}

std::string section_label(const Section& section, std::size_t index) {
  std::string label = fmt::format("section {}", index + 1);
  if (!section.context.empty()) label += ": " + section.context;
  return label;
}

std::size_t thread_count(const Section& section) {
  std::size_t count = section.threads.size();
  for (const Record& r : section.records) count = std::max<std::size_t>(count, r.thread + 1u);
  return count;
}

class TraceWriter {
 public:
  explicit TraceWriter(const Profile& profile) : profile_(profile) {
    for (const Section& s : profile.sections) {
      for (const Record& r : s.records) origin_ = std::min(origin_, r.start_ns);
    }
    for (const Phase& p : profile.phases) origin_ = std::min(origin_, p.start_ns);
    for (const Phase& p : profile.phases) {
      if (std::find(phase_threads_.begin(), phase_threads_.end(), p.thread) ==
          phase_threads_.end()) {
        phase_threads_.push_back(p.thread);
      }
    }
    if (origin_ == std::numeric_limits<Nanoseconds>::max()) origin_ = 0;
  }

  std::string render() {
    out_ = "{\"traceEvents\":[";
    if (!profile_.phases.empty()) write_phase_metadata();
    for (std::size_t i = 0; i < profile_.sections.size(); ++i) write_metadata(i);
    for (std::size_t i = 0; i < profile_.phases.size(); ++i) {
      write_phase(static_cast<PhaseIndex>(i), phases_pid(), phase_tid(profile_.phases[i].thread));
    }
    for (std::size_t i = 0; i < profile_.sections.size(); ++i) write_records(i);
    out_ += "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
    detail::append_metadata_members(out_, profile_.metadata);
    out_ += "}}\n";
    return std::move(out_);
  }

 private:
  void begin_event() {
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
  }

  void write_name_event(const char* what, std::size_t pid, std::size_t tid, std::string_view name) {
    begin_event();
    fmt::format_to(std::back_inserter(out_),
                   "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"{}\",", pid, tid, what);
    out_ += "\"args\":{\"name\":";
    append_json_string(out_, name);
    out_ += "}}";
  }

  void write_sort_event(const char* what, std::size_t pid, std::size_t tid, std::size_t index) {
    begin_event();
    fmt::format_to(std::back_inserter(out_),
                   "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"{}\","
                   "\"args\":{{\"sort_index\":{}}}}}",
                   pid, tid, what, index);
  }

  void write_metadata(std::size_t index) {
    const Section& section = profile_.sections[index];
    const std::size_t pid = index + 1;
    write_name_event("process_name", pid, 0, section_label(section, index));
    write_sort_event("process_sort_index", pid, 0, index);
    const std::size_t threads = thread_count(section);
    for (std::size_t t = 0; t < threads; ++t) {
      std::string name = fmt::format("thread {}", t);
      if (t < section.threads.size() && section.threads[t] != t) {
        name += fmt::format(" (tid {})", section.threads[t]);
      }
      write_name_event("thread_name", pid, t + 1, name);
      write_sort_event("thread_sort_index", pid, t + 1, t);
    }
  }

  /// The phases' process: after the sections' pids, sorted above them.
  std::size_t phases_pid() const { return profile_.sections.size() + 1; }
  /// A phase's thread track in the phases' process: 1 + the rank of its
  /// thread among the phases' threads in order of first appearance.
  std::size_t phase_tid(std::uint64_t thread) const {
    return 1 + static_cast<std::size_t>(
                   std::find(phase_threads_.begin(), phase_threads_.end(), thread) -
                   phase_threads_.begin());
  }

  void write_phase_metadata() {
    const std::size_t pid = phases_pid();
    write_name_event("process_name", pid, 0, "phases");
    begin_event();
    fmt::format_to(std::back_inserter(out_),
                   "{{\"ph\":\"M\",\"pid\":{},\"tid\":0,\"name\":\"process_sort_index\","
                   "\"args\":{{\"sort_index\":-1}}}}",
                   pid);
    for (std::size_t t = 0; t < phase_threads_.size(); ++t) {
      write_name_event("thread_name", pid, t + 1, fmt::format("thread {}", phase_threads_[t]));
      write_sort_event("thread_sort_index", pid, t + 1, t);
    }
  }

  /// One phase as a complete event of category "phase" on `pid`/`tid`.
  void write_phase(PhaseIndex index, std::size_t pid, std::size_t tid) {
    const Phase& p = profile_.phases[index];
    begin_event();
    fmt::format_to(std::back_inserter(out_), "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", pid,
                   tid);
    append_micros(out_, p.start_ns - origin_);
    out_ += ",\"dur\":";
    append_micros(out_, p.duration_ns);
    out_ += ",\"name\":";
    append_json_string(out_, p.name);
    fmt::format_to(std::back_inserter(out_), ",\"cat\":\"phase\",\"args\":{{\"phase\":{}", index);
    if (!p.detail.empty()) {
      out_ += ",\"detail\":";
      append_json_string(out_, p.detail);
    }
    if (p.parent != kNoPhase) fmt::format_to(std::back_inserter(out_), ",\"parent\":{}", p.parent);
    if (p.cpu_ns >= 0) {
      out_ += ",\"cpu_us\":";
      append_micros(out_, p.cpu_ns);
    }
    if (p.failed()) out_ += ",\"failed\":true";
    out_ += "}}";
  }

  void write_records(std::size_t index) {
    const Section& section = profile_.sections[index];
    // The section's phase and its ancestors, outermost first, on the
    // section's first thread: its passes nest below them in the viewer.
    std::vector<PhaseIndex> chain;
    for (PhaseIndex p = section.phase;
         p < profile_.phases.size() && chain.size() < profile_.phases.size();
         p = profile_.phases[p].parent) {
      chain.push_back(p);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) write_phase(*it, index + 1, 1);
    for (std::uint32_t i : section.order_by_sequence()) {
      const Record& r = section.records[i];
      begin_event();
      fmt::format_to(std::back_inserter(out_),
                     "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", index + 1, r.thread + 1u);
      append_micros(out_, r.start_ns - origin_);
      out_ += ",\"dur\":";
      append_micros(out_, r.inclusive_ns);
      out_ += ",\"name\":";
      append_json_string(out_, section.name_of(r));
      out_ += ",\"cat\":\"pass\",\"args\":{\"kernel\":";
      append_json_string(out_, section.kernel_of(r));
      fmt::format_to(std::back_inserter(out_), ",\"depth\":{},\"self_us\":", r.depth);
      append_micros(out_, r.self_ns);
      fmt::format_to(std::back_inserter(out_), ",\"sequence\":{}", r.sequence);
      if (r.parent != kNoParent)
        fmt::format_to(std::back_inserter(out_), ",\"parent\":{}", r.parent);
      out_ += ",\"context\":";
      append_json_string(out_, section.context);
      if (r.flags & kRecordFailed) out_ += ",\"failed\":true";
      if (section.metrics.size() == section.records.size()) {
        detail::append_record_metrics(out_, section.metrics[i]);
      }
      out_ += "}}";
    }
    write_memory_counter(index);
  }

  /// With the rss metric, the process's resident memory as a counter track
  /// of the section: its value at each pass's start and end, in MiB.
  void write_memory_counter(std::size_t index) {
    const Section& section = profile_.sections[index];
    if (section.metrics.size() != section.records.size()) return;
    std::vector<std::pair<Nanoseconds, std::int64_t>> points;
    for (std::size_t i = 0; i < section.records.size(); ++i) {
      const Record& r = section.records[i];
      const RecordMetrics& m = section.metrics[i];
      if (m.rss_start_bytes != kNotMeasured) points.emplace_back(r.start_ns, m.rss_start_bytes);
      if (m.rss_end_bytes != kNotMeasured) {
        points.emplace_back(r.start_ns + r.inclusive_ns, m.rss_end_bytes);
      }
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [t, bytes] : points) {
      begin_event();
      fmt::format_to(std::back_inserter(out_),
                     "{{\"ph\":\"C\",\"pid\":{},\"name\":\"rss\",\"ts\":", index + 1);
      append_micros(out_, t - origin_);
      fmt::format_to(std::back_inserter(out_), ",\"args\":{{\"MiB\":{:.3f}}}}}",
                     static_cast<double>(bytes) / (1024.0 * 1024.0));
    }
  }

  const Profile& profile_;
  Nanoseconds origin_ = std::numeric_limits<Nanoseconds>::max();
  /// The phases' thread keys, in order of first appearance.
  std::vector<std::uint64_t> phase_threads_;
  std::string out_;
  bool first_ = true;
};

}  // namespace

std::string render_chrome_trace(const Profile& profile) {
  return TraceWriter(profile).render();
}

}  // namespace passtiming
