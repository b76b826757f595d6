#include "passtiming/event_log_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "json_text.h"
#include "passtiming/logging.h"

namespace passtiming {
namespace {

/// The first chunk; each later one doubles the file, up to kMaxChunk at a
/// time, so a long compile grows the mapping only a few times.
constexpr std::size_t kFirstChunk = std::size_t{1} << 20;
constexpr std::size_t kMaxChunk = std::size_t{64} << 20;
/// Room for an event's fixed text and its integers.
constexpr std::size_t kEventOverhead = 96;

char* put(char* out, std::string_view text) noexcept {
  std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

template <typename Int>
char* put_int(char* out, Int value) noexcept {
  return std::to_chars(out, out + 24, value).ptr;
}

}  // namespace

std::unique_ptr<EventLogWriter> EventLogWriter::open(const std::string& path,
                                                     const ProfileMetadata& metadata) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot create the event log {}: {}", path, std::strerror(errno)));
  }
  std::unique_ptr<EventLogWriter> writer(new EventLogWriter(path, fd));
  if (!writer->grow(kFirstChunk)) {
    throw std::runtime_error(fmt::format("cannot map the event log {}", path));
  }
  std::string meta = "{\"ev\":\"meta\",\"format\":\"passtiming-events\",\"version\":1,\"tool\":";
  detail::append_json_string(meta, metadata.tool);
  meta += ",\"command\":";
  detail::append_json_string(meta, metadata.command);
  meta += ",\"host\":";
  detail::append_json_string(meta, metadata.host);
  meta += ",\"start_time\":";
  detail::append_json_string(meta, metadata.start_time);
  meta += fmt::format(",\"pid\":{}}}\n", metadata.pid);
  writer->write_line(meta);
  if (!writer->ok()) throw std::runtime_error(fmt::format("cannot write the event log {}", path));
  return writer;
}

EventLogWriter::EventLogWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

EventLogWriter::~EventLogWriter() {
  close();
}

void EventLogWriter::fail(std::string_view what, int error) noexcept {
  if (failed_) return;
  failed_ = true;
  get_logger(kTimingLoggerName)
      .error(fmt::format("event log {}: {}: {}; later events are not written", path_, what,
                         std::strerror(error)));
}

bool EventLogWriter::grow(std::size_t min_capacity) noexcept {
  std::size_t step = std::clamp(capacity_, kFirstChunk, kMaxChunk);
  std::size_t capacity = capacity_ + step;
  while (capacity < min_capacity) capacity += step;
  // Allocating the blocks now (not just extending the size) is what turns a
  // full disk into this error instead of a SIGBUS on a later store.
  if (int error = ::posix_fallocate(fd_, static_cast<off_t>(capacity_),
                                    static_cast<off_t>(capacity - capacity_))) {
    fail("cannot grow the file", error);
    return false;
  }
  void* mapped = data_ == nullptr
                     ? ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0)
                     : ::mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
  if (mapped == MAP_FAILED) {
    fail("cannot map the file", errno);
    return false;
  }
  data_ = static_cast<char*>(mapped);
#ifdef MADV_POPULATE_WRITE
  // Fault the new chunk in with one call: the first store to each page would
  // otherwise trap into the kernel once per 4 KiB, inside the compile's pass
  // time. Only a hint: older kernels refuse it and the pages fault lazily.
  ::madvise(data_ + capacity_, capacity - capacity_, MADV_POPULATE_WRITE);
#endif
  capacity_ = capacity;
  return true;
}

bool EventLogWriter::reserve(std::size_t bytes) noexcept {
  if (failed_ || fd_ < 0) return false;
  if (capacity_ - used_ >= bytes) return true;
  return grow(used_ + bytes);
}

void EventLogWriter::write_line(std::string_view line) noexcept {
  if (!reserve(line.size())) return;
  std::memcpy(cursor(), line.data(), line.size());
  used_ += line.size();
}

void EventLogWriter::on_enter(Nanoseconds t, std::string_view context) noexcept {
  if (!reserve(kEventOverhead + detail::json_string_max_size(context))) return;
  char* p = put(cursor(), "{\"ev\":\"enter_ctx\",\"t_ns\":");
  p = put_int(p, t);
  if (!context.empty()) {
    p = put(p, ",\"context\":");
    p = detail::write_json_string(p, context);
  }
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - data_);
}

void EventLogWriter::write_pass_event(std::string_view head, Nanoseconds t, std::string_view pass,
                                      std::string_view kernel, ThreadKey tid) noexcept {
  if (!reserve(kEventOverhead + detail::json_string_max_size(pass) +
               detail::json_string_max_size(kernel))) {
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
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - data_);
}

void EventLogWriter::on_before(Nanoseconds t, std::string_view pass, std::string_view kernel,
                               ThreadKey tid) noexcept {
  write_pass_event("{\"ev\":\"before\",\"t_ns\":", t, pass, kernel, tid);
}

void EventLogWriter::on_after(Nanoseconds t, std::string_view pass, ThreadKey tid) noexcept {
  write_pass_event("{\"ev\":\"after\",\"t_ns\":", t, pass, {}, tid);
}

void EventLogWriter::on_skip(Nanoseconds t, std::string_view pass, std::string_view kernel,
                             ThreadKey tid) noexcept {
  write_pass_event("{\"ev\":\"skip\",\"t_ns\":", t, pass, kernel, tid);
}

void EventLogWriter::on_exit(Nanoseconds t) noexcept {
  if (!reserve(kEventOverhead)) return;
  char* p = put(cursor(), "{\"ev\":\"exit_ctx\",\"t_ns\":");
  p = put_int(p, t);
  p = put(p, "}\n");
  used_ = static_cast<std::size_t>(p - data_);
}

bool EventLogWriter::close() noexcept {
  if (fd_ < 0) return !failed_;
  bool ok = !failed_;
  if (data_ != nullptr && ::munmap(data_, capacity_) != 0) {
    fail("cannot unmap the file", errno);
    ok = false;
  }
  data_ = nullptr;
  capacity_ = 0;
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
