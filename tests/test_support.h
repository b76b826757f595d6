#pragma once
/// \file
/// Helpers shared by the core tests: golden files, a log capture, and
/// pipelines of named passes.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "passtiming/engine/logging.h"
#include "passtiming/host/pass.h"

namespace passtiming::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The event log of the spec's first example (docs/event-log-format.md); its
/// report is golden("report/spec_example_context.txt").
inline constexpr const char* kSpecExampleEvents =
    R"({"ev":"meta","format":"passtiming-events","version":1,"tool":"passtiming 0.1"}
{"ev":"enter_ctx","t_ns":1000,"context":"stage=jit-lower, kernel=matmul"}
{"ev":"before","t_ns":1000,"pass":"parent"}
{"ev":"before","t_ns":1000001000,"pass":"child","kernel":"matmul"}
{"ev":"after","t_ns":3000001000,"pass":"child"}
{"ev":"after","t_ns":5000001000,"pass":"parent"}
{"ev":"exit_ctx","t_ns":5000002000}
)";

inline std::string golden(const std::string& name) {
  return read_file(std::string(PASSTIMING_GOLDEN_DIR) + "/" + name);
}

/// Captures what the `tilelang.pass_timing` logger (or another) receives for
/// the capture's lifetime.
class LogCapture {
 public:
  explicit LogCapture(std::string_view name = kTimingLoggerName) : logger_(get_logger(name)) {
    logger_.set_sink([this](LogLevel level, std::string_view, std::string_view message) {
      entries.push_back({level, std::string(message)});
    });
  }
  ~LogCapture() { logger_.set_sink({}); }

  struct Entry {
    LogLevel level;
    std::string message;
  };
  std::vector<Entry> entries;

  std::vector<std::string> messages(LogLevel level) const {
    std::vector<std::string> out;
    for (const auto& e : entries) {
      if (e.level == level) out.push_back(e.message);
    }
    return out;
  }

 private:
  Logger& logger_;
};

/// A module pass that does nothing but call `body` (for timing tests).
inline PassPtr named_pass(std::string name, std::function<void()> body = {}) {
  return make_module_pass(
      [body](IRModule m, PassContext&) {
        if (body) body();
        return m;
      },
      PassInfo{std::move(name), 0, {}});
}

}  // namespace passtiming::testing
