#pragma once
/// \file
/// The settings of the pass plugin: each one comes from its `-passtiming-…`
/// command-line option when given, else from its PASSTIMING_… environment
/// variable. Free of LLVM headers, so it is tested on its own.

#include <optional>
#include <string>
#include <string_view>

#include "passtiming/engine/metrics.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::llvm_plugin {

/// Where the text report goes.
enum class ReportTarget { standard_error, off, file };

/// The values given as command-line options (nullopt: option not given).
struct OptionValues {
  std::optional<std::string> threshold_ms, profile, events, report, context, analyses, metrics;
};

/// Everything the plugin needs to know, with `%p` already expanded.
struct PluginSettings {
  double threshold_ms = 0.0;
  std::string profile_path;  ///< "" = no JSON profile
  std::string events_path;   ///< "" = no event log
  ReportTarget report = ReportTarget::standard_error;
  std::string report_path;  ///< for ReportTarget::file
  std::string context;
  bool record_analyses = false;
  MetricSet metrics;  ///< recorded per pass besides wall time (metrics.h)
};

/// Reads the settings: an option overrides the variable of the same setting.
/// `pid` replaces `%p` in the three paths. Throws ConfigError whose message
/// names the setting as it was given (`-passtiming-threshold-ms` or
/// `PASSTIMING_THRESHOLD_MS`) and the bad value (for the metrics, the unknown
/// word: "PASSTIMING_METRICS: unknown metric 'cycles' (known: ...)").
///
///     PluginSettings s = read_plugin_settings(options, Environment::process(), getpid());
PluginSettings read_plugin_settings(const OptionValues& options, const Environment& env, long pid);

}  // namespace passtiming::llvm_plugin
