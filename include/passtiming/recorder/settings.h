#pragma once
/// \file
/// The settings of a timed compile, read once: the table of their names, and
/// the one reader that turns a host's options, the environment and
/// TileLang's pass configuration into a Settings (threshold, context,
/// metrics, the files and where the report goes). Every source reads its
/// settings here; a CompileSession (compile_session.h) carries them out.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "passtiming/engine/environment.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/recorder/config.h"

namespace passtiming {

inline constexpr std::string_view kPassProfileEnv = "TILELANG_PASS_PROFILE";
inline constexpr std::string_view kPassProfileThresholdEnv = "TILELANG_PASS_PROFILE_THRESHOLD_MS";

/// One setting of a timed compile, by its two names: the option of the LLVM
/// plugin (`-mllvm -passtiming-threshold-ms=…`) and the environment variable
/// that carries it into any process, which is how `passtiming run` hands its
/// options to the compile it runs. This table is the whole contract between
/// the command-line tool and the sources (docs/cli.md, docs/llvm.md).
struct SettingName {
  std::string_view option;       ///< e.g. "passtiming-threshold-ms"
  std::string_view environment;  ///< e.g. "PASSTIMING_THRESHOLD_MS"
};

inline constexpr SettingName kThresholdSetting{"passtiming-threshold-ms",
                                               "PASSTIMING_THRESHOLD_MS"};
inline constexpr SettingName kProfileSetting{"passtiming-profile", "PASSTIMING_PROFILE"};
inline constexpr SettingName kEventsSetting{"passtiming-events", "PASSTIMING_EVENTS"};
inline constexpr SettingName kReportSetting{"passtiming-report", "PASSTIMING_REPORT"};
inline constexpr SettingName kContextSetting{"passtiming-context", "PASSTIMING_CONTEXT"};
inline constexpr SettingName kAnalysesSetting{"passtiming-analyses", "PASSTIMING_ANALYSES"};
inline constexpr SettingName kMetricsSetting{"passtiming-metrics", "PASSTIMING_METRICS"};
/// The status file of `passtiming run`: every compile session appends one
/// line per file it writes or fails to write (CompileSession), so that run
/// can count them across a build's compiler processes. Read from the
/// environment only; the plugin has no option for it.
inline constexpr SettingName kStatusSetting{"passtiming-status", "PASSTIMING_STATUS"};

/// `NAME=value` for the environment of a child process.
std::string environment_assignment(SettingName setting, std::string_view value);

/// Where the text report goes.
enum class ReportTarget : std::uint8_t {
  log,             ///< INFO on the logger `tilelang.pass_timing` (TileLang, TVM, Python)
  standard_error,  ///< the process's stderr (the LLVM plugin, passtiming-mlir-opt)
  file,            ///< Settings::report_file, every section of the process
  off,
};

/// A file a setting names: the path, `%p` and `%n` expanded, and the
/// setting as it was given (`-passtiming-profile`, `PASSTIMING_PROFILE`), which
/// every message about the file quotes.
struct OutputPath {
  std::string path;
  std::string setting;
  bool operator==(const OutputPath&) const = default;
};

/// Everything a timed compile is told: how the recorder records and what
/// the compile session writes. One struct for every source; a source reads
/// the members that apply to it (record_analyses is LLVM's).
///
///     passtiming::Settings settings{.threshold_ms = 1.0, .metrics = parse_metrics("cpu", "x")};
struct Settings {
  /// Passes under this inclusive time are hidden from the report.
  double threshold_ms = 0.0;
  /// The sections' context label ("" for none).
  std::string context;
  /// LLVM: analyses run inside passes are records too.
  bool record_analyses = false;
  /// Recorded per pass besides wall time (metrics.h).
  MetricSet metrics;
  /// The JSON profile, written when the session finishes (or after each
  /// section, for a session that writes as it goes).
  std::optional<OutputPath> profile;
  /// The JSON Lines event log, streamed while the compile runs.
  std::optional<OutputPath> events;
  ReportTarget report = ReportTarget::log;
  /// The report's file, for ReportTarget::file.
  std::optional<OutputPath> report_file;
  /// The status file (kStatusSetting): one line appended per profile
  /// written or not, and per event log that could not be created. Writing
  /// it never fails the compile.
  std::optional<OutputPath> status;
  /// Write the report and the files each time a section closes, not only at
  /// the end: a compiler process may run several pipelines and may die
  /// between them (the LLVM plugin), and an instrument used on its own
  /// rewrites its profile after each context.
  bool write_each_section = false;
  /// Which compiler records (ProfileMetadata::source): set by the host,
  /// never read from a setting.
  std::string source;
};

/// The values a host was given as options, by setting (nullopt: not given);
/// an option wins over the environment variable of the same setting.
struct GivenOptions {
  std::optional<std::string> threshold_ms, profile, events, report, context, analyses, metrics;
};

/// Where one read of the settings looks.
struct SettingSources {
  GivenOptions options;
  /// How an option is quoted in messages: "-" for LLVM's `-passtiming-…`,
  /// "--" for passtiming-mlir-opt's `--passtiming-…`.
  std::string_view option_prefix = "-";
  const Environment* environment = &Environment::process();
  /// `%p` in a path; -1: this process's id.
  long pid = -1;
  /// `%n` in a path: the compile's number in its process.
  unsigned long compile = 0;
};

/// The one settings reader. Each setting comes from its option when given,
/// else from its PASSTIMING_… variable, else from `defaults`; the report
/// setting reads "stderr", "off", "log" or a path. Throws ConfigError whose
/// message names the setting as it was given and the bad value.
///
///     Settings s = read_settings({.options = given, .pid = getpid()});
Settings read_settings(const SettingSources& sources, Settings defaults = {});

/// The part of read_settings() every host reads, TileLang's and Python's
/// included, whose threshold and report are their own: the profile, the
/// event log, the status file (PASSTIMING_STATUS, environment only) and the
/// metrics.
Settings read_file_settings(const SettingSources& sources, Settings defaults = {});

/// Whether any setting that asks for timing is present in `sources`: an
/// option, or PASSTIMING_PROFILE or PASSTIMING_EVENTS non-empty.
bool settings_ask_for_timing(const SettingSources& sources);

/// True for 1/true/yes/on in any case, surrounding white space ignored.
bool is_truthy(std::string_view text) noexcept;

/// A switch's value: true for 1/true/yes/on, false for 0/false/no/off or an
/// empty value (any case, white space ignored); anything else is a
/// ConfigError "SETTING must be one of 1/true/yes/on or 0/false/no/off (got
/// 'TEXT')".
bool parse_switch(std::string_view text, std::string_view setting);

/// `value` when it is a finite, non-negative threshold in milliseconds (-0
/// gives 0); anything else is a ConfigError "SETTING must be a finite
/// non-negative number (got VALUE)". Every source that promises such a
/// threshold checks it here.
double check_threshold_ms(double value, std::string_view setting);

/// Parses a threshold in milliseconds: a decimal number (optional sign,
/// digits, fraction, exponent), surrounding white space ignored, that is
/// finite and not negative (-0 reads as 0). Anything else is a ConfigError
/// "SOURCE must be a finite non-negative number (got 'TEXT')".
double parse_threshold_ms(std::string_view text, std::string_view source);

/// The pass-timing setting of a compile: nullopt when timing is off, else the
/// threshold in milliseconds. On when `tl.pass_profile` is true or
/// TILELANG_PASS_PROFILE is truthy. The threshold comes from
/// `tl.pass_profile_threshold_ms` when set, else from
/// TILELANG_PASS_PROFILE_THRESHOLD_MS (unset or empty means 0); it is only
/// read when timing is on. Throws ConfigError naming the source of a bad
/// threshold.
///
///     if (auto threshold = passtiming::pass_timing_threshold(config)) { ... }
std::optional<double> pass_timing_threshold(const PassConfig& config,
                                            const Environment& env = Environment::process());

/// The settings of a TileLang compile: nullopt when timing is off for
/// `config` and `env` (pass_timing_threshold()), else its threshold with the
/// files and metrics of PASSTIMING_PROFILE, PASSTIMING_EVENTS and
/// PASSTIMING_METRICS (read_settings(), `%n` = `compile`).
std::optional<Settings> tilelang_settings(const PassConfig& config,
                                          const Environment& env = Environment::process(),
                                          unsigned long compile = 0);

}  // namespace passtiming
