#pragma once
/// \file
/// Streams the JSON Lines event log (docs/event-log-format.md) to a file while
/// a compile runs, so that a compile that is killed still leaves every pass
/// that completed.

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "passtiming/engine/profile.h"
#include "passtiming/engine/timing_state.h"

namespace passtiming {

/// An EventObserver that appends each event to a file as it happens. Each
/// event is in the file as soon as its callback returns, even when the
/// process dies by SIGKILL or a segfault right after; a full disk is an
/// error naming the file, never a crash. The file is grown ahead of the
/// writer by a helper thread (or, when none can be started, by the writer),
/// so that growing it is not part of any pass's time (how: event_log_writer.cc).
///
/// A killed process leaves the unused rest of the file as NUL bytes, which
/// the reader ignores; close() (and the destructor) truncates the file to
/// what was written.
///
/// Not thread-safe: callers serialise the calls, as they do for the state
/// machine. Never throws from the observer callbacks: an I/O error is logged
/// once on `tilelang.pass_timing` and later events are dropped.
///
///     auto log = passtiming::EventLogWriter::open("events.jsonl", current_process_metadata());
///     timing.set_observer(log.get());
///     ...   // compile; log->close() or the destructor finishes the file
class EventLogWriter final : public EventObserver {
 public:
  /// Creates (or replaces) `path` and writes the `meta` line. Throws
  /// std::runtime_error naming the path when the file cannot be created.
  static std::unique_ptr<EventLogWriter> open(const std::string& path,
                                              const ProfileMetadata& metadata,
                                              const ProfileMetrics& metrics = {});

  EventLogWriter(const EventLogWriter&) = delete;
  EventLogWriter& operator=(const EventLogWriter&) = delete;
  ~EventLogWriter() override;

  /// Appends the event's line (docs/event-log-format.md), with its metric
  /// readings when it carries them.
  void on_event(const ObservedEvent& event) noexcept override;

  /// Appends a phase's line (docs/event-log-format.md#phases):
  /// `phase_begin` when `phase` (at `index` in the session's phases) opens,
  /// `phase_end` when it closes (its duration, CPU time and failure then
  /// set), `phase` for one recorded whole elsewhere. Not thread-safe, like
  /// on_event(): callers serialise these with the events.
  void on_phase_begin(PhaseIndex index, const Phase& phase) noexcept;
  void on_phase_end(PhaseIndex index, const Phase& phase) noexcept;
  void on_phase(PhaseIndex index, const Phase& phase) noexcept;

  /// Unmaps and truncates the file to the bytes written. Idempotent; later
  /// events are dropped. Returns false (after logging) on an I/O error.
  bool close() noexcept;

  const std::string& path() const { return path_; }
  /// Bytes of events written so far.
  std::size_t bytes_written() const { return used_; }
  /// False once an I/O error stopped the log.
  bool ok() const { return !failed_; }

 private:
  EventLogWriter(std::string path, int fd);
  /// Room for `bytes` more bytes at the write position; false on failure.
  bool reserve(std::size_t bytes) noexcept {
    if (used_ + bytes <= limit_) return true;
    return reserve_slow(bytes);
  }
  bool reserve_slow(std::size_t bytes) noexcept;
  /// Maps and populates the file up to at least `bytes`, under map_mutex_;
  /// returns 0 or the errno of the step that failed.
  int extend_mapping(std::size_t bytes) noexcept;
  void run_prefaulter() noexcept;
  void stop_prefaulter() noexcept;
  void fail(std::string_view what, int error) noexcept;
  void write_line(std::string_view line) noexcept;
  /// One `before`, `after` or `skip` line: `head` is its text up to the
  /// timestamp; an empty kernel and thread 0 are left out, as the format
  /// allows.
  void write_enter(Nanoseconds t, std::string_view context) noexcept;
  void write_exit(Nanoseconds t) noexcept;
  void write_pass_event(std::string_view head, Nanoseconds t, std::string_view pass,
                        std::string_view kernel, ThreadKey tid,
                        const MetricSample* sample = nullptr) noexcept;
  /// A phase line up to its last members: `head`, its time, index, name,
  /// detail, parent and thread; the caller adds the rest and the end.
  char* put_phase_head(char* p, std::string_view head, Nanoseconds t, PhaseIndex index,
                       const Phase& phase) noexcept;
  char* cursor() { return base_ + used_; }

  std::string path_;
  int fd_ = -1;
  bool failed_ = false;
  /// The logger of its one failure message: the recording source's
  /// (timing_logger_name() of the metadata's source).
  std::string_view logger_;

  /// The address range reserved for the mapping, and how much of it maps
  /// the file (changed under map_mutex_ only).
  char* base_ = nullptr;
  std::size_t reserved_ = 0;
  std::size_t mapped_ = 0;
  std::mutex map_mutex_;

  /// Bytes mapped and populated, published by whoever extended the mapping.
  std::atomic<std::size_t> ready_{0};
  /// How far the writer may go before it next looks at ready_ and asks the
  /// helper for more: the hot path is one comparison.
  std::size_t limit_ = 0;
  /// The writer's position.
  std::size_t used_ = 0;
  /// Where the helper should have the mapping ready up to; the writer raises
  /// it (and wakes the helper) each time it crosses `next_request_`.
  std::atomic<std::size_t> wanted_{0};
  std::size_t next_request_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread prefaulter_;
};

}  // namespace passtiming
