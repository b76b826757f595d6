#include "plugin_settings.h"

#include <fmt/format.h>

#include <cctype>

#include "passtiming/engine/errors.h"
#include "passtiming/recorder/outputs.h"

namespace passtiming::llvm_plugin {
namespace {

/// A setting's value and the name to quote in an error about it.
struct Given {
  std::optional<std::string> value;
  std::string source;
};

Given pick(const std::optional<std::string>& option, SettingName name, const Environment& env) {
  if (option) return {option, fmt::format("-{}", name.option)};
  return {env.get(name.environment), std::string(name.environment)};
}

std::string trimmed_lower(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool parse_switch(const Given& given) {
  if (!given.value) return false;
  const std::string word = trimmed_lower(*given.value);
  if (is_truthy(word)) return true;
  if (word.empty() || word == "0" || word == "false" || word == "no" || word == "off") {
    return false;
  }
  throw ConfigError(fmt::format("{} must be one of 1/true/yes/on or 0/false/no/off (got '{}')",
                                given.source, *given.value));
}

}  // namespace

PluginSettings read_plugin_settings(const OptionValues& options, const Environment& env, long pid) {
  PluginSettings settings;

  const Given threshold = pick(options.threshold_ms, kThresholdSetting, env);
  if (threshold.value && !threshold.value->empty()) {
    settings.threshold_ms = parse_threshold_ms(*threshold.value, threshold.source);
  }

  const Given profile = pick(options.profile, kProfileSetting, env);
  if (profile.value) settings.profile_path = expand_path_pattern(*profile.value, pid);

  const Given events = pick(options.events, kEventsSetting, env);
  if (events.value) settings.events_path = expand_path_pattern(*events.value, pid);

  const Given report = pick(options.report, kReportSetting, env);
  if (report.value) {
    const std::string word = trimmed_lower(*report.value);
    if (word.empty() || word == "stderr") {
      settings.report = ReportTarget::standard_error;
    } else if (word == "off") {
      settings.report = ReportTarget::off;
    } else {
      settings.report = ReportTarget::file;
      settings.report_path = expand_path_pattern(*report.value, pid);
    }
  }

  const Given context = pick(options.context, kContextSetting, env);
  if (context.value) settings.context = *context.value;

  settings.record_analyses = parse_switch(pick(options.analyses, kAnalysesSetting, env));

  const Given metrics = pick(options.metrics, kMetricsSetting, env);
  if (metrics.value) settings.metrics = parse_metrics(*metrics.value, metrics.source);
  return settings;
}

}  // namespace passtiming::llvm_plugin
