#include "passtiming/profile_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "passtiming/errors.h"
#include "passtiming/event_log.h"
#include "passtiming/version.h"
#include "profile_json_reader.h"

namespace passtiming {
namespace {

[[noreturn]] void throw_io(std::string_view what, const std::string& path, int error) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path, what, std::strerror(error)));
}

/// The whole of `path` (or stdin for "-") in simdjson's padded storage.
simdjson::padded_string read_input(const std::string& path) {
  if (path == "-") {
    std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (std::cin.bad()) throw std::runtime_error("<stdin>: read error");
    return simdjson::padded_string(data);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_io("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const int error = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    throw_io("cannot read", path, error);
  }
  simdjson::padded_string data(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw_io("cannot read", path, error);
    }
    if (n == 0) break;  // the file shrank while being read
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done < data.size()) return simdjson::padded_string(data.data(), done);
  return data;
}

/// Whether the text is an event log: its first non-blank line is an event.
bool looks_like_event_log(std::string_view text) {
  std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  std::string_view line = text.substr(start);
  line = line.substr(0, line.find('\n'));
  if (line.substr(0, 5) == "{\"ev\"") return true;
  if (line.size() > 4096) return false;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(line);
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return false;
  simdjson::dom::object object;
  if (doc.get_object().get(object) != simdjson::SUCCESS) return false;
  simdjson::dom::element ev;
  return object["ev"].get(ev) == simdjson::SUCCESS;
}

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

/// The process's umask, read without changing it (umask(2) would, for a
/// moment, for every thread).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  return 022;
}

std::string shell_quote(std::string_view arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`;&|<>()*?[]{}!#~") == std::string_view::npos) {
    return std::string(arg);
  }
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace

Profile parse_profile_text(std::string_view text, std::string_view source) {
  if (looks_like_event_log(text)) {
    std::istringstream in{std::string(text)};
    return replay_event_log(in, source);
  }
  simdjson::padded_string padded(text);
  return detail::parse_profile_padded(padded, source);
}

Profile load_profile(const std::string& path) {
  simdjson::padded_string data = read_input(path);
  const std::string source = display_name(path);
  std::string_view text(data.data(), data.size());
  if (looks_like_event_log(text)) {
    std::istringstream in{std::string(text)};
    return replay_event_log(in, source);
  }
  return detail::parse_profile_padded(data, source);
}

void write_file_atomically(const std::string& path, std::string_view data) {
  if (path == "-") {
    if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size() ||
        std::fflush(stdout) != 0) {
      throw_io("cannot write", "<stdout>", errno);
    }
    return;
  }
  // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place:
  // renaming a temporary file over it would replace the device node itself
  // (as root) or fail to create the temporary file in /dev (as anyone else).
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw_io("cannot open", path, errno);
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        ::close(fd);
        throw_io("cannot write", path, error);
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw_io("cannot write", path, errno);
    return;
  }
  // The temporary file sits next to the target, so the rename stays within
  // one file system and is atomic.
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw_io("cannot create a temporary file next to it", path, errno);
  auto fail = [&](std::string_view what, int error) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw_io(what, path, error);
  };
  if (::fchmod(fd, 0666 & ~current_umask()) != 0) fail("cannot set permissions", errno);
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw_io("cannot write", path, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw_io("cannot replace", path, error);
  }
}

ProfileMetadata current_process_metadata() {
  ProfileMetadata m;
  m.tool = fmt::format("passtiming {}", kVersion);
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(cmdline, arg, '\0')) {
    if (!m.command.empty()) m.command += ' ';
    m.command += shell_quote(arg);
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) m.host = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  char stamp[32] = {};
  if (::gmtime_r(&now, &utc) && std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc)) {
    m.start_time = stamp;
  }
  m.pid = ::getpid();
  return m;
}

}  // namespace passtiming
