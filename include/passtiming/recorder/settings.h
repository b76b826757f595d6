#pragma once
/// \file
/// Turning TileLang's switches into "no timing" or a threshold: the config
/// key `tl.pass_profile` or the environment variable TILELANG_PASS_PROFILE,
/// and a threshold from `tl.pass_profile_threshold_ms` or
/// TILELANG_PASS_PROFILE_THRESHOLD_MS.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "passtiming/engine/environment.h"
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

/// `NAME=value` for the environment of a child process.
std::string environment_assignment(SettingName setting, std::string_view value);

/// True for 1/true/yes/on in any case, surrounding white space ignored.
bool is_truthy(std::string_view text) noexcept;

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

}  // namespace passtiming
