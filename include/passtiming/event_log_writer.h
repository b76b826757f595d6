#pragma once
/// \file
/// Streams the JSON Lines event log (docs/event-log-format.md) to a file while
/// a compile runs, so that a compile that is killed still leaves every pass
/// that completed.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "passtiming/profile.h"
#include "passtiming/timing_state.h"

namespace passtiming {

/// An EventObserver that appends each event to a memory-mapped file.
///
/// Why a mapping: a store into a MAP_SHARED page is in the kernel's page
/// cache the moment it is made, so it reaches the file even when the process
/// dies by SIGKILL or a segfault right after — at the cost of a memcpy, with
/// no system call per event. The file grows in chunks that are allocated up
/// front (posix_fallocate), so a full disk shows up as an error when growing,
/// never as a SIGBUS in the compiler. A killed process leaves the unused rest
/// of the last chunk as NUL bytes, which the reader ignores; close() (and the
/// destructor) truncates the file to what was written.
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
                                              const ProfileMetadata& metadata);

  EventLogWriter(const EventLogWriter&) = delete;
  EventLogWriter& operator=(const EventLogWriter&) = delete;
  ~EventLogWriter() override;

  void on_enter(Nanoseconds t, std::string_view context) noexcept override;
  void on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                 ThreadKey tid) noexcept override;
  void on_after(Nanoseconds t, std::string_view pass, ThreadKey tid) noexcept override;
  void on_skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
               ThreadKey tid) noexcept override;
  void on_exit(Nanoseconds t) noexcept override;

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
  bool reserve(std::size_t bytes) noexcept;
  bool grow(std::size_t min_capacity) noexcept;
  void fail(std::string_view what, int error) noexcept;
  void write_line(std::string_view line) noexcept;
  /// One `before`, `after` or `skip` line: `head` is its text up to the
  /// timestamp; an empty kernel and thread 0 are left out, as the format
  /// allows.
  void write_pass_event(std::string_view head, Nanoseconds t, std::string_view pass,
                        std::string_view kernel, ThreadKey tid) noexcept;
  char* cursor() { return data_ + used_; }

  std::string path_;
  int fd_ = -1;
  char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  bool failed_ = false;
};

}  // namespace passtiming
