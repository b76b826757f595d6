#include "passtiming/recorder/settings.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "passtiming/recorder/path_pattern.h"

namespace passtiming {
namespace {

std::string_view trim(std::string_view text) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

/// Whether `text` is a plain decimal literal: digits with an optional
/// fraction and exponent. std::from_chars would also take "inf", "nan" and
/// hexadecimal forms; those are rejected here by shape.
bool is_decimal_literal(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

std::string_view source_text(std::string_view text) {
  // Long or binary garbage is cut for the message; the source name is what
  // tells the user where to look.
  return text.substr(0, 64);
}

/// A setting's value and the name to quote in a message about it.
struct Given {
  std::optional<std::string> value;
  std::string setting;
};

/// The option when given, else the environment variable.
Given pick(const std::optional<std::string>& option, SettingName name,
           const SettingSources& sources) {
  if (option) return {option, fmt::format("{}{}", sources.option_prefix, name.option)};
  return {sources.environment->get(name.environment), std::string(name.environment)};
}

/// A file setting: unset or empty means none.
std::optional<OutputPath> output_path(const Given& given, const SettingSources& sources) {
  if (!given.value || given.value->empty()) return std::nullopt;
  const long pid = sources.pid >= 0 ? sources.pid : static_cast<long>(::getpid());
  return OutputPath{expand_path_pattern(*given.value, pid, sources.compile), given.setting};
}

std::string lower_trimmed(std::string_view text) {
  std::string out(trim(text));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The settings every source reads, TileLang's included: the two files, the
/// status file and the metrics.
void read_outputs(const SettingSources& sources, Settings& settings) {
  const GivenOptions& options = sources.options;
  const Given profile = pick(options.profile, kProfileSetting, sources);
  if (profile.value) settings.profile = output_path(profile, sources);
  const Given events = pick(options.events, kEventsSetting, sources);
  if (events.value) settings.events = output_path(events, sources);
  const Given status = pick(std::nullopt, kStatusSetting, sources);
  if (status.value) settings.status = output_path(status, sources);
  const Given metrics = pick(options.metrics, kMetricsSetting, sources);
  if (metrics.value) settings.metrics = parse_metrics(*metrics.value, metrics.setting);
}

}  // namespace

Settings read_settings(const SettingSources& sources, Settings defaults) {
  Settings settings = std::move(defaults);
  const GivenOptions& options = sources.options;

  const Given threshold = pick(options.threshold_ms, kThresholdSetting, sources);
  if (threshold.value && !trim(*threshold.value).empty()) {
    settings.threshold_ms = parse_threshold_ms(*threshold.value, threshold.setting);
  }
  read_outputs(sources, settings);

  const Given report = pick(options.report, kReportSetting, sources);
  if (report.value) {
    const std::string word = lower_trimmed(*report.value);
    if (word.empty() || word == "stderr") {
      settings.report = ReportTarget::standard_error;
    } else if (word == "off") {
      settings.report = ReportTarget::off;
    } else if (word == "log") {
      settings.report = ReportTarget::log;
    } else {
      settings.report = ReportTarget::file;
      settings.report_file = output_path(report, sources);
    }
  }

  const Given context = pick(options.context, kContextSetting, sources);
  if (context.value) settings.context = *context.value;
  const Given analyses = pick(options.analyses, kAnalysesSetting, sources);
  if (analyses.value) settings.record_analyses = parse_switch(*analyses.value, analyses.setting);
  return settings;
}

Settings read_file_settings(const SettingSources& sources, Settings defaults) {
  Settings settings = std::move(defaults);
  read_outputs(sources, settings);
  return settings;
}

bool settings_ask_for_timing(const SettingSources& sources) {
  const GivenOptions& o = sources.options;
  if (o.threshold_ms || o.profile || o.events || o.report || o.context || o.analyses || o.metrics) {
    return true;
  }
  for (SettingName name : {kProfileSetting, kEventsSetting}) {
    std::optional<std::string> value = sources.environment->get(name.environment);
    if (value && !value->empty()) return true;
  }
  return false;
}

bool parse_switch(std::string_view text, std::string_view setting) {
  const std::string word = lower_trimmed(text);
  if (is_truthy(word)) return true;
  if (word.empty() || word == "0" || word == "false" || word == "no" || word == "off") {
    return false;
  }
  throw ConfigError(fmt::format("{} must be one of 1/true/yes/on or 0/false/no/off (got '{}')",
                                setting, source_text(text)));
}

bool is_truthy(std::string_view text) noexcept {
  // Longer than any truthy word: refused before a copy is made.
  if (trim(text).size() > 5) return false;
  const std::string lower = lower_trimmed(text);
  return lower == "1" || lower == "true" || lower == "yes" || lower == "on";
}

std::string environment_assignment(SettingName setting, std::string_view value) {
  std::string out(setting.environment);
  out += '=';
  out += value;
  return out;
}

double check_threshold_ms(double value, std::string_view setting) {
  if (!std::isfinite(value) || value < 0) {
    throw ConfigError(
        fmt::format("{} must be a finite non-negative number (got {})", setting, value));
  }
  return value == 0.0 ? 0.0 : value;
}

double parse_threshold_ms(std::string_view text, std::string_view source) {
  std::string_view body = trim(text);
  bool negative = false;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  double value = 0.0;
  bool ok = is_decimal_literal(body);
  if (ok) {
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    ok = ec == std::errc() && end == body.data() + body.size() && std::isfinite(value) &&
         (!negative || value == 0.0);
  }
  if (!ok) {
    throw ConfigError(fmt::format("{} must be a finite non-negative number (got '{}')", source,
                                  source_text(text)));
  }
  return value;  // "-0" reads as +0
}

std::optional<Settings> tilelang_settings(const PassConfig& config, const Environment& env,
                                          unsigned long compile) {
  std::optional<double> threshold = pass_timing_threshold(config, env);
  if (!threshold) return std::nullopt;
  // The files and metrics every source reads; the threshold is TileLang's
  // own, and the Python host handles the report's settings itself.
  return read_file_settings({.environment = &env, .compile = compile},
                            Settings{.threshold_ms = *threshold});
}

std::optional<double> pass_timing_threshold(const PassConfig& config, const Environment& env) {
  bool enabled = config_bool(config, kPassProfileKey).value_or(false);
  if (!enabled) {
    auto flag = env.get(kPassProfileEnv);
    enabled = flag && is_truthy(*flag);
  }
  if (!enabled) return std::nullopt;

  if (auto threshold = config_number(config, kPassProfileThresholdKey)) {
    return check_threshold_ms(*threshold, kPassProfileThresholdKey);
  }
  auto text = env.get(kPassProfileThresholdEnv);
  if (!text || trim(*text).empty()) return 0.0;
  return parse_threshold_ms(*text, kPassProfileThresholdEnv);
}

}  // namespace passtiming
