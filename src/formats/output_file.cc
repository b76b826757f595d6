#include "passtiming/formats/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace passtiming {
namespace {

/// The process's umask, read without changing it (umask(2) would, for a
/// moment, for every thread).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    }
  }
  return 022;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    kind_ = Kind::kStdout;
    return;
  }
  struct stat existing{};
  if (::stat(path_.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    kind_ = Kind::kInPlace;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open", errno);
    return;
  }
  // Next to the target, so the rename stays within one file system and is
  // atomic.
  temp_ = path_ + ".tmp.XXXXXX";
  fd_ = ::mkstemp(temp_.data());
  if (fd_ < 0) {
    temp_.clear();
    fail("cannot create a temporary file next to it", errno);
  }
  if (::fchmod(fd_, 0666 & ~current_umask()) != 0) fail("cannot set permissions", errno);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::fail(std::string_view what, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  throw std::runtime_error(
      fmt::format("{}: {}: {}", path_ == "-" ? "<stdout>" : path_, what, std::strerror(error)));
}

void OutputFile::write(std::string_view data) {
  if (kind_ == Kind::kStdout) {
    if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size())
      fail("cannot write", errno);
    return;
  }
  if (fd_ < 0) throw std::logic_error("OutputFile::write after commit");
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  if (kind_ == Kind::kStdout) {
    if (std::fflush(stdout) != 0) fail("cannot write", errno);
    return;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write", errno);
  if (kind_ == Kind::kTemporary) {
    if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("cannot replace", errno);
    temp_.clear();
  }
}

void write_file_atomically(const std::string& path, std::string_view data) {
  OutputFile out(path);
  out.write(data);
  out.commit();
}

}  // namespace passtiming
