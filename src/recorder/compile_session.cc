#include "passtiming/recorder/compile_session.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/logging.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/output_file.h"
#include "passtiming/formats/phase_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace passtiming {
namespace {

/// Hands events to the session's log one at a time: sections on different
/// threads share one EventLogWriter, which is not thread-safe. Only sessions
/// with an event log pay for the lock.
class SerializedObserver final : public EventObserver {
 public:
  explicit SerializedObserver(EventObserver& target) : target_(target) {}
  void on_event(const ObservedEvent& event) noexcept override {
    std::lock_guard lock(mutex_);
    target_.on_event(event);
  }
  /// Runs `write` (a phase's lines) between the events, under their lock.
  template <typename Write>
  void locked(const Write& write) noexcept {
    std::lock_guard lock(mutex_);
    write();
  }

 private:
  std::mutex mutex_;
  EventObserver& target_;
};

/// Writes a phase's lines into the session's log, when it has one, between
/// the sections' events.
template <typename Write>
void log_phase(const std::unique_ptr<EventObserver>& serialized, const Write& write) noexcept {
  if (serialized) static_cast<SerializedObserver&>(*serialized).locked(write);
}

/// The sessions finish_at_exit() registered and that have not finished.
struct ExitRegistry {
  std::mutex mutex;
  std::vector<CompileSession*> sessions;
  bool hook_installed = false;
};

ExitRegistry& exit_registry() {
  // Never destroyed: the exit hook may run after static destructors.
  static ExitRegistry* registry = new ExitRegistry();
  return *registry;
}

void unregister_at_exit(CompileSession* session) noexcept {
  ExitRegistry& registry = exit_registry();
  std::lock_guard lock(registry.mutex);
  std::erase(registry.sessions, session);
}

/// Appends one status line (`STATE<TAB>PATH[<TAB>MESSAGE]`) to the status
/// file, by one O_APPEND write; any failure is ignored.
void append_status(const std::optional<OutputPath>& status, std::string_view state,
                   std::string_view path, std::string_view message) noexcept {
  if (!status) return;
  try {
    auto clean = [](std::string_view text, std::size_t limit) {
      std::string out(text.substr(0, limit));
      for (char& c : out) {
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
      }
      return out;
    };
    // Well under PIPE_BUF, so that even a pipe would take the line whole.
    std::string line = fmt::format("{}\t{}", state, clean(path, 1024));
    if (!message.empty()) line += "\t" + clean(message, 2048);
    line += '\n';
    const int fd = ::open(status->path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t written = 0;
    do {
      written = ::write(fd, line.data(), line.size());
    } while (written < 0 && errno == EINTR);
    ::close(fd);
  } catch (...) {
  }
}

/// The calling thread's key in phases: its kernel thread id, which the
/// Chrome trace and a debugger show too.
std::uint64_t this_thread_key() noexcept {
  return static_cast<std::uint64_t>(::gettid());
}

/// The calling thread's CPU time, or -1 when the system cannot say.
Nanoseconds thread_cpu_ns() noexcept {
  timespec now;
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return -1;
  return static_cast<Nanoseconds>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void write_to_stderr(const std::string& text) noexcept {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

CompileSession::CompileSession(Settings settings, std::shared_ptr<const Clock> clock,
                               std::shared_ptr<MetricSampler> sampler)
    : settings_(std::move(settings)), clock_(clock ? std::move(clock) : steady_clock()) {
  if (!settings_.metrics.empty()) {
    if (sampler) {
      sampler_ = std::move(sampler);
      given_sampler_ = sampler_;
      metrics_.recorded = settings_.metrics;
    } else {
      // The process's sampler for the set, held for the session's life, so
      // that the files and every section agree on what is unavailable.
      std::shared_ptr<SystemMetricSampler> system =
          shared_metric_sampler(settings_.metrics, timing_logger_name(settings_.source));
      metrics_ = system->metrics();
      sampler_ = std::move(system);
    }
  }
  metadata_ = current_process_metadata();
  metadata_.source = settings_.source;
  if (settings_.events) {
    try {
      events_ = EventLogWriter::open(settings_.events->path, metadata_, metrics_);
    } catch (const std::exception& e) {
      std::string message = fmt::format("{}: {}", settings_.events->setting, e.what());
      append_status(settings_.status, "failed", settings_.events->path, message);
      throw ConfigError(std::move(message));
    }
    serialized_events_ = std::make_unique<SerializedObserver>(*events_);
  }
  finish_at_exit();
}

CompileSession::~CompileSession() {
  finish();
  unregister_at_exit(this);
}

std::shared_ptr<Recorder> CompileSession::new_section(std::string context) {
  Settings recording = settings_;
  recording.context = std::move(context);
  // Without a sampler of its own the recorder takes the process's for the
  // set, the one this session holds: both say the same about the metrics.
  auto section = std::make_shared<Recorder>(recording, clock_, given_sampler_);
  std::lock_guard lock(mutex_);
  if (!finished_) {
    if (serialized_events_) section->set_observer(serialized_events_.get());
    if (settings_.write_each_section) {
      section->set_close_listener([this](const Recorder& closed) { section_closed(closed); });
    }
  }
  sections_.push_back(section);
  section_phases_.push_back(current_phase_locked());
  return section;
}

PhaseIndex CompileSession::begin_phase(std::string name, std::string detail) {
  Phase phase;
  phase.name = std::move(name);
  phase.detail = std::move(detail);
  phase.thread = this_thread_key();
  const Nanoseconds cpu = thread_cpu_ns();
  std::lock_guard lock(mutex_);
  phase.parent = current_phase_locked();
  phase.start_ns = clock_->now_ns();
  const auto index = static_cast<PhaseIndex>(phases_.size());
  phases_.push_back(std::move(phase));
  phase_cpu_start_.push_back(cpu);
  open_phases_.push_back(index);
  log_phase(serialized_events_, [&] { events_->on_phase_begin(index, phases_[index]); });
  return index;
}

void CompileSession::end_phase(PhaseIndex index, bool failed) {
  std::lock_guard lock(mutex_);
  end_phase_locked(index, failed, this_thread_key(), thread_cpu_ns());
}

void CompileSession::end_phase_locked(PhaseIndex index, bool failed, std::uint64_t thread,
                                      Nanoseconds cpu) {
  if (std::find(open_phases_.begin(), open_phases_.end(), index) == open_phases_.end()) return;
  const Nanoseconds now = clock_->now_ns();
  // Phases opened inside this one on its thread and still open end with
  // it: the error that ended it ended them. They are closed, and logged,
  // innermost first, as the replay reads them.
  std::vector<PhaseIndex> closed;
  const std::uint64_t owner = phases_[index].thread;
  for (auto it = open_phases_.end(); it != open_phases_.begin();) {
    --it;
    Phase& phase = phases_[*it];
    if (*it == index) break;
    if (phase.thread != owner || *it < index) continue;
    phase.duration_ns = now - phase.start_ns;
    phase.flags |= kPhaseFailed;
    closed.push_back(*it);
    it = open_phases_.erase(it);
  }
  Phase& phase = phases_[index];
  phase.duration_ns = now - phase.start_ns;
  if (failed) phase.flags |= kPhaseFailed;
  if (thread == owner && cpu >= 0 && phase_cpu_start_[index] >= 0) {
    phase.cpu_ns = cpu - phase_cpu_start_[index];
  }
  closed.push_back(index);
  open_phases_.erase(std::find(open_phases_.begin(), open_phases_.end(), index));
  log_phase(serialized_events_, [&] {
    for (PhaseIndex i : closed) events_->on_phase_end(i, phases_[i]);
  });
}

PhaseIndex CompileSession::add_phase(Phase phase) {
  std::lock_guard lock(mutex_);
  const auto index = static_cast<PhaseIndex>(phases_.size());
  if (phase.parent != kNoPhase && phase.parent >= index) phase.parent = kNoPhase;
  phases_.push_back(std::move(phase));
  phase_cpu_start_.push_back(-1);
  log_phase(serialized_events_, [&] { events_->on_phase(index, phases_[index]); });
  return index;
}

void CompileSession::add_section(Section section) {
  std::lock_guard lock(mutex_);
  added_sections_.push_back(std::move(section));
}

void CompileSession::place_sections_by_time() {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < sections_.size(); ++i) {
    const std::vector<Record>& records = sections_[i]->section().records;
    if (section_phases_[i] != kNoPhase || records.empty()) continue;
    Nanoseconds first = records.front().start_ns;
    for (const Record& r : records) first = std::min(first, r.start_ns);
    for (PhaseIndex root = 0; root < phases_.size(); ++root) {
      if (phases_[root].parent != kNoPhase) continue;
      const PhaseIndex inner = innermost_phase(phases_, root, first);
      if (inner != kNoPhase) {
        section_phases_[i] = inner;
        break;
      }
    }
  }
}

PhaseIndex CompileSession::current_phase() const {
  std::lock_guard lock(mutex_);
  return current_phase_locked();
}

std::vector<Phase> CompileSession::phases() const {
  std::lock_guard lock(mutex_);
  return phases_;
}

PhaseIndex CompileSession::current_phase_locked() const {
  // Every new section asks: without phases, no system call for the thread.
  if (open_phases_.empty()) return kNoPhase;
  const std::uint64_t thread = this_thread_key();
  for (auto it = open_phases_.rbegin(); it != open_phases_.rend(); ++it) {
    if (phases_[*it].thread == thread) return *it;
  }
  return kNoPhase;
}

std::size_t CompileSession::section_count() const {
  std::lock_guard lock(mutex_);
  return sections_.size();
}

Profile CompileSession::profile() const {
  std::lock_guard lock(mutex_);
  Profile profile;
  profile.metadata = metadata_;
  profile.metrics = metrics_;
  profile.sections.reserve(sections_.size() + added_sections_.size());
  for (std::size_t i = 0; i < sections_.size(); ++i) {
    profile.sections.push_back(sections_[i]->section());
    profile.sections.back().context = sections_[i]->context_label();
    profile.sections.back().phase = section_phases_[i];
  }
  profile.sections.insert(profile.sections.end(), added_sections_.begin(), added_sections_.end());
  profile.phases = phases_;
  return profile;
}

std::string CompileSession::report() const {
  return render_session_report(profile(), settings_.threshold_ms);
}

void CompileSession::section_closed(const Recorder& section) noexcept {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  try {
    // Rendered only when it goes somewhere: it sorts every record.
    if (settings_.report != ReportTarget::off) {
      write_section_report(section.section(), section.context_label());
    }
  } catch (const std::exception& e) {
    complain(fmt::format("cannot write the pass timing report: {}", e.what()));
  }
  write_profile();
}

bool CompileSession::finish() noexcept {
  return end(/*with_report=*/true);
}

bool CompileSession::close_outputs() noexcept {
  return end(/*with_report=*/false);
}

void CompileSession::before_finish(std::function<void(CompileSession&)> hook) {
  std::lock_guard lock(mutex_);
  finish_hooks_.push_back(std::move(hook));
}

bool CompileSession::end(bool with_report) noexcept {
  std::unique_lock lock(mutex_);
  if (finished_) return true;
  bool ok = true;
  // Taken out first: a hook that finishes the session again finds none.
  std::vector<std::function<void(CompileSession&)>> hooks;
  hooks.swap(finish_hooks_);
  for (auto& hook : hooks) {
    try {
      hook(*this);
    } catch (const std::exception& e) {
      complain(fmt::format("cannot complete the session: {}", e.what()));
      ok = false;
    } catch (...) {
      complain("cannot complete the session");
      ok = false;
    }
  }
  try {
    // Contexts still open close now; with write_each_section each writes
    // its report and the profile as it closes.
    for (const auto& section : sections_) {
      if (section->in_context()) section->finish_context();
    }
  } catch (const std::exception& e) {
    complain(fmt::format("cannot close the pass timing sections: {}", e.what()));
    ok = false;
  }
  // Phases still open did not end: the compile stopped in them.
  while (!open_phases_.empty()) {
    const PhaseIndex first = open_phases_.front();
    end_phase_locked(first, /*failed=*/true, phases_[first].thread, -1);
  }
  finished_ = true;
  for (const auto& section : sections_) {
    // Sections may outlive the session inside a host's context: they stop
    // reporting to it and to the log before those go away.
    section->set_close_listener(nullptr);
    section->set_observer(nullptr);
  }
  if (!settings_.write_each_section) {
    if (with_report && settings_.report != ReportTarget::off) {
      try {
        ok = write_report(report()) && ok;
      } catch (const std::exception& e) {
        complain(fmt::format("cannot build the pass timing report: {}", e.what()));
        ok = false;
      }
    }
    ok = write_profile() && ok;
  } else if (!phases_.empty() || !added_sections_.empty()) {
    // The sections wrote the profile and their reports as they closed; what
    // came after them (phases, sections added whole) is written now.
    if (with_report && settings_.report != ReportTarget::off) {
      for (const Section& added : added_sections_) {
        try {
          ok = write_section_report(added, added.context) && ok;
        } catch (const std::exception& e) {
          complain(fmt::format("cannot write the pass timing report: {}", e.what()));
          ok = false;
        }
      }
    }
    ok = write_profile() && ok;
  }
  if (with_report && settings_.report != ReportTarget::off && !phases_.empty()) {
    // Beside the passes' report, never inside it: that one stays the seed's.
    try {
      ok = write_report(render_phase_table(phases_)) && ok;
    } catch (const std::exception& e) {
      complain(fmt::format("cannot build the phase table: {}", e.what()));
      ok = false;
    }
  }
  if (events_ && !events_->close()) ok = false;
  lock.unlock();
  unregister_at_exit(this);
  return ok;
}

bool CompileSession::write_section_report(const Section& section, const std::string& label) {
  std::optional<std::string_view> context;
  if (!label.empty()) context = label;
  return write_report(
      render_report(section, settings_.threshold_ms, context, report_style(settings_.source)));
}

bool CompileSession::write_report(const std::string& report) noexcept {
  try {
    switch (settings_.report) {
      case ReportTarget::log:
        get_logger(timing_logger_name(settings_.source)).info("\n" + report);
        break;
      case ReportTarget::standard_error: write_to_stderr(report + "\n"); break;
      case ReportTarget::file:
        if (!settings_.report_file) break;
        if (!report_file_text_.empty()) report_file_text_ += "\n\n";
        report_file_text_ += report;
        try {
          write_file_atomically(settings_.report_file->path, report_file_text_ + "\n");
        } catch (const std::exception& e) {
          complain(fmt::format("{}: {}", settings_.report_file->setting, e.what()));
          return false;
        }
        break;
      case ReportTarget::off: break;
    }
  } catch (...) {
    return false;
  }
  return true;
}

bool CompileSession::write_profile() noexcept {
  if (!settings_.profile) return true;
  try {
    // The sections are written where their recorders hold them: a copy
    // would cost a compiler process with a long pipeline a copy of every
    // record each time a section closes.
    std::lock_guard lock(mutex_);
    std::vector<const Section*> sections;
    sections.reserve(sections_.size() + added_sections_.size());
    for (const auto& section : sections_) sections.push_back(&section->section());
    for (const Section& section : added_sections_) sections.push_back(&section);
    std::vector<PhaseIndex> section_phases = section_phases_;
    for (const Section& section : added_sections_) section_phases.push_back(section.phase);
    write_profile_file(metadata_, metrics_, phases_, sections, section_phases,
                       settings_.profile->path);
    record_profile_status(true, {});
    return true;
  } catch (const std::exception& e) {
    const std::string message = fmt::format("{}: {}", settings_.profile->setting, e.what());
    complain(message);
    record_profile_status(false, message);
  } catch (...) {
    complain(fmt::format("{}: cannot write the profile", settings_.profile->setting));
    record_profile_status(false, fmt::format("{}: {}: cannot write the profile",
                                             settings_.profile->setting, settings_.profile->path));
  }
  return false;
}

void CompileSession::record_profile_status(bool written, const std::string& message) noexcept {
  std::lock_guard lock(mutex_);
  const ProfileStatus now = written ? ProfileStatus::written : ProfileStatus::failed;
  if (!settings_.status || !settings_.profile || profile_status_ == now) return;
  profile_status_ = now;
  append_status(settings_.status, written ? "written" : "failed", settings_.profile->path, message);
}

void CompileSession::complain(const std::string& message) const noexcept {
  try {
    // A command-line host (its report on stderr or in a file) says it on
    // stderr; a host that reports on the log, or renders the report itself,
    // says it on the log, where its user looks.
    if (settings_.report == ReportTarget::standard_error ||
        settings_.report == ReportTarget::file) {
      write_to_stderr(fmt::format("passtiming: {}\n", message));
    } else {
      get_logger(timing_logger_name(settings_.source)).error(message);
    }
  } catch (...) {
  }
}

void CompileSession::finish_at_exit() noexcept {
  try {
    ExitRegistry& registry = exit_registry();
    std::lock_guard lock(registry.mutex);
    if (!registry.hook_installed) {
      // What the hook uses is constructed first, so it is still alive when
      // the hook runs (exit handlers run in reverse order of registration).
      get_logger(kTimingLoggerName);
      get_logger(kPasstimingLoggerName);
      steady_clock();
      if (std::atexit([] { CompileSession::finish_all(); }) != 0) return;
      registry.hook_installed = true;
    }
    registry.sessions.push_back(this);
  } catch (...) {
    // No hook (out of memory, or the C library's table of exit handlers is
    // full): the session still finishes when its owner finishes it.
  }
}

void CompileSession::finish_all() noexcept {
  std::vector<CompileSession*> sessions;
  {
    ExitRegistry& registry = exit_registry();
    std::lock_guard lock(registry.mutex);
    sessions = registry.sessions;
  }
  for (CompileSession* session : sessions) session->finish();
}

}  // namespace passtiming
