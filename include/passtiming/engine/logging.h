#pragma once
/// \file
/// Named loggers, as Python's `logging` has them. The seed logs its report
/// and its warnings on the logger `tilelang.pass_timing`, and so do the
/// TileLang and TVM sources; passtiming's other sources (LLVM, MLIR) log on
/// `passtiming` (timing_logger_name()). The application decides where that
/// goes by installing a sink.

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace passtiming {

enum class LogLevel { debug = 10, info = 20, warning = 30, error = 40 };

/// Python's level names: "DEBUG", "INFO", "WARNING", "ERROR".
std::string_view level_name(LogLevel level) noexcept;

/// Receives every message at or above the logger's level.
using LogSink = std::function<void(LogLevel, std::string_view logger, std::string_view message)>;

/// The logger name of the seed: report and warnings go here.
inline constexpr std::string_view kTimingLoggerName = "tilelang.pass_timing";

/// The logger name of passtiming's own sources and tools.
inline constexpr std::string_view kPasstimingLoggerName = "passtiming";

/// The logger a source's messages go to, by its name (Settings::source,
/// ProfileMetadata::source): the seed's, kTimingLoggerName, for the
/// TileLang and TVM sources, which name none (""); kPasstimingLoggerName
/// for a named source ("llvm", "mlir"), whose messages are not TileLang's.
std::string_view timing_logger_name(std::string_view source) noexcept;

/// A named logger. Loggers live for the whole process; `get_logger` returns
/// the same object for the same name.
///
///     auto& log = passtiming::get_logger("tilelang.pass_timing");
///     log.set_sink([](auto level, auto name, auto msg) { ... });
///     log.warning("something odd");
class Logger {
 public:
  explicit Logger(std::string name) : name_(std::move(name)) {}
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  const std::string& name() const { return name_; }

  /// Logs `message`. Never throws: a sink that throws is reported on stderr
  /// together with the message, so nothing is lost and the caller (often a
  /// destructor or a compiler callback) is never disturbed.
  void log(LogLevel level, std::string_view message) const noexcept;
  void info(std::string_view message) const noexcept { log(LogLevel::info, message); }
  void warning(std::string_view message) const noexcept { log(LogLevel::warning, message); }
  void error(std::string_view message) const noexcept { log(LogLevel::error, message); }

  /// Replaces the sink; an empty function restores the default, which writes
  /// `LEVEL:name:message` lines to stderr (Python's `basicConfig` format).
  void set_sink(LogSink sink);
  /// Messages below `level` are dropped. Default: INFO.
  void set_level(LogLevel level);
  LogLevel level() const;

 private:
  std::string name_;
  mutable std::mutex mutex_;
  LogSink sink_;
  LogLevel level_ = LogLevel::info;
};

/// The process-wide logger called `name`.
Logger& get_logger(std::string_view name);

/// Writes `LEVEL:name:message\n` to stderr in one call.
void write_default_log_line(LogLevel level, std::string_view logger,
                            std::string_view message) noexcept;

}  // namespace passtiming
