#include "passtiming/formats/event_log_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "file_mapping.h"
#include "json_text.h"
#include "metric_fields.h"
#include "passtiming/engine/logging.h"
#include "text_writing.h"

// Why a mapping: a store into a MAP_SHARED page is in the kernel's page
// cache the moment it is made, so it reaches the file even when the process
// dies by SIGKILL or a segfault right after — at the cost of a memcpy, with
// no system call per event.
//
// Why a helper thread: the first store to each page of a new file makes the
// kernel find it memory, which costs far more than writing the event
// (several microseconds a page on a virtual machine), and that cost would
// land inside whichever pass happened to cross the page. A helper thread
// therefore keeps the file allocated (posix_fallocate, so a full disk is an
// error when growing, never a SIGBUS), mapped and populated a few megabytes
// ahead of the writer, which only formats and copies. The mapping sits in an
// address range reserved once, so it grows without moving. Without the
// thread (it could not be started) the writer grows the file itself.

namespace passtiming {

using detail::put;
using detail::put_int;

namespace {

/// The mapping grows by whole chunks; the helper keeps kAhead bytes ready
/// beyond the writer and is asked for more after every chunk written. A
/// chunk is one huge page, at an address and a file offset aligned to it,
/// so the kernel can map it with one page-table entry: the first store to
/// each 4 KiB of a freshly mapped file page otherwise costs a fault, which
/// on a virtual machine is microseconds, about 100 ns per pass pair.
constexpr std::size_t kChunk = detail::kHugePageBytes;
constexpr std::size_t kAhead = std::size_t{8} << 20;
/// Address space reserved for the mapping, tried from the largest down.
/// Reserving costs no memory; it only bounds the size of one log.
constexpr std::size_t kReserveMax = std::size_t{64} << 30;
constexpr std::size_t kReserveMin = std::size_t{64} << 20;
/// Room for an event's fixed text and its integers.
constexpr std::size_t kEventOverhead = 96;
/// Room for a phase line's fixed text and its five integers, strings apart.
constexpr std::size_t kPhaseOverhead = 192;
/// Room for an event's metric readings.
constexpr std::size_t kSampleOverhead = detail::kMetricMembersBytes;

}  // namespace

std::unique_ptr<EventLogWriter> EventLogWriter::open(const std::string& path,
                                                     const ProfileMetadata& metadata,
                                                     const ProfileMetrics& metrics) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot create the event log {}: {}", path, std::strerror(errno)));
  }
  std::unique_ptr<EventLogWriter> writer(new EventLogWriter(path, fd));
  const detail::ReservedRange range =
      detail::reserve_aligned_range(kReserveMax, kReserveMin, kChunk);
  writer->base_ = range.base;
  writer->reserved_ = range.size;
  if (writer->base_ == nullptr) {
    throw std::runtime_error(fmt::format("cannot reserve address space for the event log {}: {}",
                                         path, std::strerror(errno)));
  }
  if (int error = writer->extend_mapping(kChunk)) {
    throw std::runtime_error(
        fmt::format("cannot map the event log {}: {}", path, std::strerror(error)));
  }
  writer->limit_ = writer->ready_.load();
  writer->logger_ = timing_logger_name(metadata.source);
  std::string meta = "{\"ev\":\"meta\",\"format\":\"passtiming-events\",\"version\":1,";
  detail::append_metadata_members(meta, metadata);
  if (!metrics.empty()) {
    meta += ',';
    detail::append_metrics_member(meta, metrics);
  }
  meta += "}\n";
  writer->write_line(meta);
  if (!writer->ok()) throw std::runtime_error(fmt::format("cannot write the event log {}", path));
  // The helper starts on the first stretch at once.
  writer->next_request_ = kChunk;
  writer->wanted_.store(kAhead);
  try {
    writer->prefaulter_ = std::thread([w = writer.get()] { w->run_prefaulter(); });
  } catch (const std::system_error&) {
    // No thread to spare: the writer grows the file itself, as it must
    // anyway once it catches up with the helper.
  }
  return writer;
}

EventLogWriter::EventLogWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

EventLogWriter::~EventLogWriter() {
  close();
}

void EventLogWriter::fail(std::string_view what, int error) noexcept {
  if (failed_) return;
  failed_ = true;
  get_logger(logger_.empty() ? kTimingLoggerName : logger_)
      .error(fmt::format("event log {}: {}: {}; later events are not written", path_, what,
                         std::strerror(error)));
}

int EventLogWriter::extend_mapping(std::size_t bytes) noexcept {
  // The lock is taken per chunk, so a writer that caught up with the helper
  // waits for one chunk at most, never for the helper's whole stretch.
  for (;;) {
    std::lock_guard<std::mutex> lock(map_mutex_);
    if (mapped_ >= bytes) return 0;
    if (reserved_ - mapped_ < kChunk) return EFBIG;
    // Allocating the blocks now (not just extending the size) is what turns
    // a full disk into this error instead of a SIGBUS on a later store.
    if (int error = detail::map_file_populated(fd_, base_ + mapped_, mapped_, kChunk)) {
      return error;
    }
    mapped_ += kChunk;
    ready_.store(mapped_, std::memory_order_release);
  }
}

void EventLogWriter::run_prefaulter() noexcept {
  while (!stopping_.load(std::memory_order_acquire)) {
    const std::size_t wanted = wanted_.load(std::memory_order_acquire);
    if (ready_.load(std::memory_order_acquire) < wanted) {
      // On failure the writer meets the same error when it grows the file
      // itself, and reports it on its own thread.
      if (extend_mapping(wanted) != 0) return;
      continue;
    }
    wanted_.wait(wanted, std::memory_order_acquire);
  }
}

void EventLogWriter::stop_prefaulter() noexcept {
  if (!prefaulter_.joinable()) return;
  stopping_.store(true, std::memory_order_release);
  wanted_.fetch_add(1, std::memory_order_release);
  wanted_.notify_one();
  try {
    prefaulter_.join();
  } catch (const std::system_error&) {
    prefaulter_.detach();
  }
}

bool EventLogWriter::reserve_slow(std::size_t bytes) noexcept {
  if (failed_ || fd_ < 0) return false;
  if (used_ >= next_request_) {
    next_request_ = used_ + kChunk;
    if (prefaulter_.joinable()) {
      wanted_.store(used_ + kAhead, std::memory_order_release);
      wanted_.notify_one();
    }
  }
  std::size_t ready = ready_.load(std::memory_order_acquire);
  if (ready - used_ < bytes) {
    // Caught up with the helper (or there is none): grow here.
    if (int error = extend_mapping(used_ + bytes)) {
      fail("cannot grow the file", error);
      return false;
    }
    ready = ready_.load(std::memory_order_acquire);
  }
  limit_ = std::min(ready, next_request_);
  return true;
}

void EventLogWriter::write_line(std::string_view line) noexcept {
  if (!reserve(line.size())) return;
  std::memcpy(cursor(), line.data(), line.size());
  used_ += line.size();
}

void EventLogWriter::write_enter(Nanoseconds t, std::string_view context) noexcept {
  if (!reserve(kEventOverhead + detail::json_string_max_size(context))) return;
  char* p = put(cursor(), "{\"ev\":\"enter_ctx\",\"t_ns\":");
  p = put_int(p, t);
  if (!context.empty()) {
    p = put(p, ",\"context\":");
    p = detail::write_json_string(p, context);
  }
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - base_);
}

void EventLogWriter::write_pass_event(std::string_view head, Nanoseconds t, std::string_view pass,
                                      std::string_view kernel, ThreadKey tid,
                                      const MetricSample* sample) noexcept {
  if (!reserve(kEventOverhead + (sample != nullptr ? kSampleOverhead : 0) +
               detail::json_string_max_size(pass) + detail::json_string_max_size(kernel))) {
    return;
  }
  char* p = put(cursor(), head);
  p = put_int(p, t);
  p = put(p, ",\"pass\":");
  p = detail::write_json_string(p, pass);
  if (!kernel.empty()) {
    p = put(p, ",\"kernel\":");
    p = detail::write_json_string(p, kernel);
  }
  if (tid != 0) {
    p = put(p, ",\"tid\":");
    p = put_int(p, tid);
  }
  if (sample != nullptr) {
    p = detail::put_metric_members(p, *sample, detail::kSampleNumberFields, sample->ir_flags);
  }
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - base_);
}

void EventLogWriter::on_event(const ObservedEvent& e) noexcept {
  switch (e.kind) {
    case ObservedEvent::Kind::enter: write_enter(e.t, e.context); break;
    case ObservedEvent::Kind::before:
      write_pass_event("{\"ev\":\"before\",\"t_ns\":", e.t, e.pass, e.kernel, e.thread, e.sample);
      break;
    case ObservedEvent::Kind::after:
      write_pass_event("{\"ev\":\"after\",\"t_ns\":", e.t, e.pass, {}, e.thread, e.sample);
      break;
    case ObservedEvent::Kind::skip:
      write_pass_event("{\"ev\":\"skip\",\"t_ns\":", e.t, e.pass, e.kernel, e.thread);
      break;
    case ObservedEvent::Kind::exit: write_exit(e.t); break;
  }
}

void EventLogWriter::write_exit(Nanoseconds t) noexcept {
  if (!reserve(kEventOverhead)) return;
  char* p = put(cursor(), "{\"ev\":\"exit_ctx\",\"t_ns\":");
  p = put_int(p, t);
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - base_);
}

char* EventLogWriter::put_phase_head(char* p, std::string_view head, Nanoseconds t,
                                     PhaseIndex index, const Phase& phase) noexcept {
  p = put(p, head);
  p = put_int(p, t);
  p = put(p, ",\"phase\":");
  p = put_int(p, index);
  p = put(p, ",\"name\":");
  p = detail::write_json_string(p, phase.name);
  if (!phase.detail.empty()) {
    p = put(p, ",\"detail\":");
    p = detail::write_json_string(p, phase.detail);
  }
  if (phase.parent != kNoPhase) {
    p = put(p, ",\"parent\":");
    p = put_int(p, phase.parent);
  }
  if (phase.thread != 0) {
    p = put(p, ",\"tid\":");
    p = put_int(p, phase.thread);
  }
  return p;
}

void EventLogWriter::on_phase_begin(PhaseIndex index, const Phase& phase) noexcept {
  if (!reserve(kPhaseOverhead + detail::json_string_max_size(phase.name) +
               detail::json_string_max_size(phase.detail))) {
    return;
  }
  char* p =
      put_phase_head(cursor(), "{\"ev\":\"phase_begin\",\"t_ns\":", phase.start_ns, index, phase);
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - base_);
}

namespace {

/// A closed phase's last members: its CPU time when measured, its failure.
char* put_phase_end_members(char* p, const Phase& phase) noexcept {
  if (phase.cpu_ns >= 0) {
    p = put(p, ",\"cpu_ns\":");
    p = put_int(p, phase.cpu_ns);
  }
  if (phase.failed()) p = put(p, ",\"failed\":true");
  return put(p, "}\n");
}

}  // namespace

void EventLogWriter::on_phase_end(PhaseIndex index, const Phase& phase) noexcept {
  if (!reserve(kEventOverhead)) return;
  char* p = put(cursor(), "{\"ev\":\"phase_end\",\"t_ns\":");
  p = put_int(p, phase.end_ns());
  p = put(p, ",\"phase\":");
  p = put_int(p, index);
  p = put_phase_end_members(p, phase);
  used_ = static_cast<std::size_t>(p - base_);
}

void EventLogWriter::on_phase(PhaseIndex index, const Phase& phase) noexcept {
  if (!reserve(kPhaseOverhead + kEventOverhead + detail::json_string_max_size(phase.name) +
               detail::json_string_max_size(phase.detail))) {
    return;
  }
  char* p = put_phase_head(cursor(), "{\"ev\":\"phase\",\"t_ns\":", phase.start_ns, index, phase);
  p = put(p, ",\"duration_ns\":");
  p = put_int(p, phase.duration_ns);
  p = put_phase_end_members(p, phase);
  used_ = static_cast<std::size_t>(p - base_);
}

bool EventLogWriter::close() noexcept {
  stop_prefaulter();
  if (fd_ < 0) return !failed_;
  bool ok = !failed_;
  if (base_ != nullptr && ::munmap(base_, reserved_) != 0) {
    fail("cannot unmap the file", errno);
    ok = false;
  }
  base_ = nullptr;
  reserved_ = mapped_ = limit_ = 0;
  // Cut the unused, preallocated tail so the file ends with the last event.
  if (::ftruncate(fd_, static_cast<off_t>(used_)) != 0) {
    fail("cannot truncate the file", errno);
    ok = false;
  }
  if (::close(fd_) != 0) {
    fail("cannot close the file", errno);
    ok = false;
  }
  fd_ = -1;
  return ok;
}

}  // namespace passtiming
