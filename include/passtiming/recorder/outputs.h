#pragma once
/// \file
/// Where a compile's timing goes besides the log: a JSON profile written when
/// the session ends (PASSTIMING_PROFILE) and an event log streamed while it
/// runs (PASSTIMING_EVENTS). Every event source reads the same two settings.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "passtiming/engine/metrics.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {

/// One placeholder of a path pattern: `%LETTER` stands for `value`.
struct Placeholder {
  char letter;
  std::string value;
};

/// `pattern` with every `%LETTER` of `placeholders` replaced by its value
/// and `%%` by `%` (kept as `%%` with `keep_escaped_percent`, for a pattern
/// that is expanded again later). Any other `%` is kept as it is.
std::string expand_placeholders(std::string_view pattern,
                                std::initializer_list<Placeholder> placeholders,
                                bool keep_escaped_percent = false);

/// `pattern` with `%p` replaced by `pid`, `%n` by `compile` (the number of
/// the compile session within the process, from 0, for hosts such as
/// TileLang that compile many kernels in one process) and `%%` by `%`, so
/// that parallel and successive compiles write separate files. Any other `%`
/// is kept as it is.
///
///     expand_path_pattern("/tmp/prof-%p.json", 42);        // "/tmp/prof-42.json"
///     expand_path_pattern("/tmp/prof-%p-%n.json", 42, 3);  // "/tmp/prof-42-3.json"
std::string expand_path_pattern(std::string_view pattern, long pid, unsigned long compile = 0);

/// The number of the next compile session of this process, from 0: what a
/// source that compiles many times in one process (TileLang, the Python
/// instruments) gives `%n`. Thread-safe.
unsigned long next_compile_number() noexcept;

/// What one compile session records besides wall time, and the files it
/// writes; unset (or empty) means none.
///
///     auto outputs = passtiming::OutputSettings::from_environment(Environment::process());
///     if (outputs.profile_path) { ... }
struct OutputSettings {
  std::optional<std::string> profile_path;  ///< JSON profile, written at the end
  std::optional<std::string> events_path;   ///< JSON Lines event log, streamed
  MetricSet metrics;                        ///< recorded per pass (metrics.h)

  /// Reads PASSTIMING_PROFILE and PASSTIMING_EVENTS from `env`, expanding
  /// `%p` to this process's id and `%n` to `compile`, and PASSTIMING_METRICS
  /// (a ConfigError naming it for an unknown metric).
  static OutputSettings from_environment(const Environment& env = Environment::process(),
                                         unsigned long compile = 0);
};

}  // namespace passtiming
