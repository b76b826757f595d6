#pragma once
/// \file
/// A compile session: the home of one timed compile's outputs. It is made
/// from one Settings (settings.h) and owns what every source used to set up
/// by hand: the metric sampler, the event log, the sections (one Recorder
/// each) and the files, written once by finish(), also at process exit.
/// A source keeps only the translation of its framework's callbacks
/// (docs/architecture.md).
///
///     passtiming::CompileSession session(passtiming::read_settings({}));
///     std::shared_ptr<passtiming::Recorder> lower = session.new_section("stage=lower");
///     lower->enter_pass_ctx(); ... lower->exit_pass_ctx();
///     session.finish();  // the report, the JSON profile, the event log closed

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "passtiming/engine/clock.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/engine/profile.h"
#include "passtiming/recorder/recorder.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {

class EventLogWriter;

/// Times one compile into sections and writes what its Settings ask for:
///
/// - the report: on `tilelang.pass_timing` (ReportTarget::log), on stderr,
///   into a file holding every section's report, or nowhere;
/// - the JSON profile of every section;
/// - the event log, opened now and streamed by every section.
///
/// By default everything is written by finish(), which the destructor and
/// the process's exit call too when the host did not. With
/// Settings::write_each_section, each section's report is written when its
/// context closes, and the profile is rewritten with every section so far;
/// finish() then closes what is still open and the event log.
///
/// A file that cannot be written never throws out of finish() and never
/// stops the compile: it is one message naming the file and its setting,
/// and finish() returns false. The message goes on stderr ("passtiming:
/// SETTING: …") when the report goes to stderr or a file (a command-line
/// host), else on the source's logger (timing_logger_name():
/// `tilelang.pass_timing` for TileLang and TVM).
///
/// With Settings::status, the session appends to that file one line each
/// time the profile's outcome changes (first written, first failed, and any
/// change after), and one when the event log cannot be created:
/// `written<TAB>PATH` or `failed<TAB>PATH<TAB>MESSAGE` (the message above;
/// tabs and line breaks in it become spaces), each by one O_APPEND write,
/// so that the compilers of a parallel build do not interleave. A status
/// file that cannot be written is ignored: it never fails the compile.
class CompileSession {
 public:
  /// Opens the event log when `settings.events` names one. `sampler` reads
  /// the metrics (null: the system's, shared_metric_sampler()). Throws
  /// ConfigError naming the events setting and the file when the log cannot
  /// be created: the host decides whether the compile goes on untimed.
  explicit CompileSession(Settings settings, std::shared_ptr<const Clock> clock = steady_clock(),
                          std::shared_ptr<MetricSampler> sampler = nullptr);
  CompileSession(const CompileSession&) = delete;
  CompileSession& operator=(const CompileSession&) = delete;
  /// finish(), unless it already ran. Never throws.
  ~CompileSession();

  /// A new section for the next context, labelled `context`: a recorder
  /// with the session's threshold, clock, metrics and event log. Sections
  /// are kept in creation order. Thread-safe: threads compiling at once each
  /// take their own section, and each must drive only its own.
  std::shared_ptr<Recorder> new_section(std::string context);
  /// new_section() labelled with Settings::context.
  std::shared_ptr<Recorder> new_section() { return new_section(settings_.context); }

  // --- Phases (phase.h) -------------------------------------------------------

  /// Opens a phase on the calling thread, now, inside the phase that thread
  /// has open (a root when none). Sections made on this thread while it is
  /// open run in it. Returns its index, for end_phase(). Thread-safe.
  PhaseIndex begin_phase(std::string name, std::string detail = {});
  /// Closes `phase` now, with its thread's CPU time when it is the calling
  /// thread's; `failed` marks the compile's error in it. Phases opened
  /// inside it and still open close with it, failed. An index that is not
  /// open is ignored. Thread-safe.
  void end_phase(PhaseIndex phase, bool failed = false);
  /// Adds a phase recorded elsewhere (clang's time trace), with its times
  /// on this session's clock; its parent must be an earlier index or
  /// kNoPhase. Returns its index.
  PhaseIndex add_phase(Phase phase);
  /// Adds a section recorded elsewhere, as it is (its `phase` included).
  void add_section(Section section);
  /// The phase the calling thread has open, or kNoPhase.
  PhaseIndex current_phase() const;
  /// The phases so far (an open one with the duration it had when it last
  /// changed: 0 until it ends), a parent before its children.
  std::vector<Phase> phases() const;
  /// Each section recorded so far outside every phase is placed in the
  /// innermost phase that holds the start of its first pass: for a source
  /// that learns its compile's phases after its passes (the LLVM plugin,
  /// from clang's time trace).
  void place_sections_by_time();
  /// Runs `hook` with this session once, when it finishes (by finish(),
  /// close_outputs() or at exit), before anything is written: where a
  /// source adds what it learns only at the end (the LLVM plugin reads
  /// clang's time trace). A hook that throws is reported and skipped.
  void before_finish(std::function<void(CompileSession&)> hook);

  const Settings& settings() const { return settings_; }
  double threshold_ms() const { return settings_.threshold_ms; }
  /// What the sections record besides wall time: the metrics recorded and
  /// those the machine cannot give, with the reason.
  const ProfileMetrics& metrics() const { return metrics_; }
  /// The number of sections so far.
  std::size_t section_count() const;

  /// Every section so far, with the process's metadata taken when the
  /// session started. Not to be read while a section records on another
  /// thread.
  Profile profile() const;
  /// Every section's report, in the order the contexts ran, joined by an
  /// empty line.
  std::string report() const;

  /// Ends the session, once: closes the contexts still open (their running
  /// passes are discarded with a warning), writes the report (unless each
  /// section already wrote its own) and the profile, and closes the event
  /// log; the sections stop reporting to the log and the session. Later
  /// calls do nothing and return true. Returns false when a file could not
  /// be written. Never throws.
  bool finish() noexcept;
  /// finish() without the report, for a host that renders and logs the
  /// report itself (Python's TileLang tool).
  bool close_outputs() noexcept;
  /// Finishes every session that has not finished: the process-exit hook
  /// (every session registers itself when it is made, and leaves when it
  /// finishes or is destroyed), and the crash hook of hosts that see fatal
  /// signals (the LLVM plugin). A compile that stops half-way, by exit() or
  /// a fatal error, so still writes what completed. Never throws.
  static void finish_all() noexcept;

 private:
  /// Registers the session with the process-exit hook, installed once.
  void finish_at_exit() noexcept;
  /// A section's context closed: with write_each_section, its report and
  /// the profile so far are written.
  void section_closed(const Recorder& section) noexcept;
  bool end(bool with_report) noexcept;
  /// Writes the report of `section`, with a `Context:` line of `label` when
  /// it is not empty; false on failure. Throws what rendering throws.
  bool write_section_report(const Section& section, const std::string& label);
  /// Writes `report` where the settings send it; false on failure.
  bool write_report(const std::string& report) noexcept;
  bool write_profile() noexcept;
  /// Appends the profile's outcome to the status file when it differs from
  /// the last one appended. Never fails.
  void record_profile_status(bool written, const std::string& message) noexcept;
  /// end_phase() under the lock, the event log told; `cpu` is `thread`'s
  /// CPU time now (-1: none).
  void end_phase_locked(PhaseIndex phase, bool failed, std::uint64_t thread, Nanoseconds cpu);
  PhaseIndex current_phase_locked() const;
  /// One message about a file of the session, on the report's channel.
  void complain(const std::string& message) const noexcept;

  Settings settings_;
  std::shared_ptr<const Clock> clock_;
  /// The sampler the sections read: the one given, else the process's,
  /// held for the session's life.
  std::shared_ptr<MetricSampler> sampler_;
  /// The sampler given to the constructor, handed to every section (null:
  /// the sections take the process's too).
  std::shared_ptr<MetricSampler> given_sampler_;
  ProfileMetrics metrics_;
  ProfileMetadata metadata_;
  std::unique_ptr<EventLogWriter> events_;
  /// Serialises the sections' events into `events_`: sections on different
  /// threads share one log, which is not thread-safe.
  std::unique_ptr<EventObserver> serialized_events_;
  std::vector<std::shared_ptr<Recorder>> sections_;
  /// The phase each section of `sections_` began in.
  std::vector<PhaseIndex> section_phases_;
  /// Sections added whole (add_section()), after the recorded ones.
  std::vector<Section> added_sections_;
  std::vector<Phase> phases_;
  std::vector<std::function<void(CompileSession&)>> finish_hooks_;
  /// The phases not yet ended, innermost last per thread.
  std::vector<PhaseIndex> open_phases_;
  /// CPU time of each open phase's thread at its start (phase index -> ns).
  std::vector<Nanoseconds> phase_cpu_start_;
  /// Every report written to Settings::report_file so far.
  std::string report_file_text_;
  bool finished_ = false;
  /// The profile's outcome last appended to the status file.
  enum class ProfileStatus : std::uint8_t { none, written, failed };
  ProfileStatus profile_status_ = ProfileStatus::none;
  /// Guards the sections, the report file's text and `finished_`. Recursive:
  /// a section closed by finish() reports back under it.
  mutable std::recursive_mutex mutex_;
};

}  // namespace passtiming
