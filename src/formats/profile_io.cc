#include "passtiming/formats/profile_io.h"

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
#include <optional>
#include <sstream>
#include <stdexcept>

#include "passtiming/engine/errors.h"
#include "passtiming/engine/version.h"
#include "passtiming/formats/event_log.h"
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
  struct stat st{};
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

/// Below this size a file is read whole: one parse of a text this small
/// costs less than the streamed mode's two (skeleton and records).
constexpr std::uint64_t kStreamMinBytes = std::uint64_t{1} << 20;

/// The profile in the regular file `path` read in the reader's streamed mode, or
/// nullopt for a small file, an event log, another kind of file, or another
/// layout.
std::optional<Profile> load_streamed(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // the whole-file read reports why
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (static_cast<std::uint64_t>(st.st_size) < kStreamMinBytes) return std::nullopt;
  // An event log announces itself on its first line, which is short.
  char head[8192];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  if (n < 0 || looks_like_event_log(std::string_view(head, static_cast<std::size_t>(n)))) {
    return std::nullopt;
  }
  return detail::read_profile_json_streamed(fd, static_cast<std::uint64_t>(st.st_size));
}

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
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
  return detail::read_profile_json(padded, source);
}

Profile load_profile(const std::string& path) {
  if (path != "-") {
    if (auto streamed = load_streamed(path)) return std::move(*streamed);
  }
  simdjson::padded_string data = read_input(path);
  const std::string source = display_name(path);
  std::string_view text(data.data(), data.size());
  if (looks_like_event_log(text)) {
    std::istringstream in{std::string(text)};
    return replay_event_log(in, source);
  }
  return detail::read_profile_json(data, source);
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
