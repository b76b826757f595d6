#include "passtiming/engine/logging.h"

#include <unistd.h>

#include <map>
#include <memory>

namespace passtiming {

std::string_view level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::debug: return "DEBUG";
    case LogLevel::info: return "INFO";
    case LogLevel::warning: return "WARNING";
    case LogLevel::error: return "ERROR";
  }
  return "LOG";
}

void write_default_log_line(LogLevel level, std::string_view logger,
                            std::string_view message) noexcept {
  try {
    std::string line;
    line.reserve(logger.size() + message.size() + 16);
    line.append(level_name(level)).append(":").append(logger).append(":").append(message);
    line.push_back('\n');
    // One write(2), so concurrent compiles' lines do not interleave.
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(STDERR_FILENO, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  } catch (...) {
  }
}

void Logger::log(LogLevel level, std::string_view message) const noexcept {
  LogSink sink;
  try {
    std::lock_guard lock(mutex_);
    if (level < level_) return;
    sink = sink_;
  } catch (...) {
    // Copying the sink failed (out of memory): fall back to stderr below.
  }
  if (!sink) {
    write_default_log_line(level, name_, message);
    return;
  }
  try {
    sink(level, name_, message);
  } catch (...) {
    write_default_log_line(LogLevel::error, name_, "log sink threw; message follows");
    write_default_log_line(level, name_, message);
  }
}

void Logger::set_sink(LogSink sink) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
}

void Logger::set_level(LogLevel level) {
  std::lock_guard lock(mutex_);
  level_ = level;
}

LogLevel Logger::level() const {
  std::lock_guard lock(mutex_);
  return level_;
}

std::string_view timing_logger_name(std::string_view source) noexcept {
  return source.empty() ? kTimingLoggerName : kPasstimingLoggerName;
}

Logger& get_logger(std::string_view name) {
  static std::mutex mutex;
  // Loggers are never destroyed, so references stay valid during static
  // destruction (a session reporting from a global's destructor).
  static auto* loggers = new std::map<std::string, std::unique_ptr<Logger>, std::less<>>();
  std::lock_guard lock(mutex);
  auto it = loggers->find(name);
  if (it == loggers->end()) {
    it = loggers->emplace(std::string(name), std::make_unique<Logger>(std::string(name))).first;
  }
  return *it->second;
}

}  // namespace passtiming
