#include "plugin_settings.h"

#include <gtest/gtest.h>

#include "passtiming/engine/errors.h"

namespace passtiming::llvm_plugin {
namespace {

MapEnvironment env(std::map<std::string, std::string, std::less<>> vars) {
  return MapEnvironment(std::move(vars));
}

TEST(PluginSettings, DefaultsWhenNothingIsSet) {
  PluginSettings s = read_plugin_settings({}, env({}), 7);
  EXPECT_EQ(s.threshold_ms, 0.0);
  EXPECT_EQ(s.report, ReportTarget::standard_error);
  EXPECT_EQ(s.profile_path, "");
  EXPECT_EQ(s.events_path, "");
  EXPECT_EQ(s.context, "");
  EXPECT_FALSE(s.record_analyses);
}

TEST(PluginSettings, ReadsEveryVariableAndExpandsPid) {
  PluginSettings s = read_plugin_settings({},
                                          env({{"PASSTIMING_THRESHOLD_MS", "2.5"},
                                               {"PASSTIMING_PROFILE", "/tmp/p-%p.json"},
                                               {"PASSTIMING_EVENTS", "e-%p.jsonl"},
                                               {"PASSTIMING_REPORT", "r-%p.txt"},
                                               {"PASSTIMING_CONTEXT", "tu=a.c"},
                                               {"PASSTIMING_ANALYSES", "yes"}}),
                                          42);
  EXPECT_EQ(s.threshold_ms, 2.5);
  EXPECT_EQ(s.profile_path, "/tmp/p-42.json");
  EXPECT_EQ(s.events_path, "e-42.jsonl");
  EXPECT_EQ(s.report, ReportTarget::file);
  EXPECT_EQ(s.report_path, "r-42.txt");
  EXPECT_EQ(s.context, "tu=a.c");
  EXPECT_TRUE(s.record_analyses);
}

TEST(PluginSettings, OptionOverridesVariable) {
  OptionValues options;
  options.threshold_ms = "1";
  options.report = "off";
  PluginSettings s = read_plugin_settings(
      options, env({{"PASSTIMING_THRESHOLD_MS", "9"}, {"PASSTIMING_REPORT", "x.txt"}}), 1);
  EXPECT_EQ(s.threshold_ms, 1.0);
  EXPECT_EQ(s.report, ReportTarget::off);
}

TEST(PluginSettings, ReportKeywords) {
  EXPECT_EQ(read_plugin_settings({}, env({{"PASSTIMING_REPORT", " STDERR "}}), 1).report,
            ReportTarget::standard_error);
  EXPECT_EQ(read_plugin_settings({}, env({{"PASSTIMING_REPORT", "Off"}}), 1).report,
            ReportTarget::off);
  EXPECT_EQ(read_plugin_settings({}, env({{"PASSTIMING_REPORT", ""}}), 1).report,
            ReportTarget::standard_error);
}

TEST(PluginSettings, MalformedThresholdNamesTheVariable) {
  try {
    read_plugin_settings({}, env({{"PASSTIMING_THRESHOLD_MS", "-3"}}), 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_THRESHOLD_MS must be a finite non-negative number (got '-3')");
  }
}

TEST(PluginSettings, MalformedOptionNamesTheOption) {
  OptionValues options;
  options.threshold_ms = "fast";
  try {
    read_plugin_settings(options, env({}), 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-passtiming-threshold-ms must be a finite non-negative number (got 'fast')");
  }
}

TEST(PluginSettings, MalformedSwitchNamesTheVariable) {
  try {
    read_plugin_settings({}, env({{"PASSTIMING_ANALYSES", "maybe"}}), 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_ANALYSES must be one of 1/true/yes/on or 0/false/no/off (got "
                 "'maybe')");
  }
}

TEST(PluginSettings, MetricsComeFromTheVariableOrTheOption) {
  EXPECT_TRUE(read_plugin_settings({}, env({}), 1).metrics.empty());
  MetricSet cpu_ir;
  cpu_ir.insert(Metric::cpu);
  cpu_ir.insert(Metric::ir);
  EXPECT_EQ(read_plugin_settings({}, env({{"PASSTIMING_METRICS", "ir,cpu"}}), 1).metrics, cpu_ir);
  OptionValues options;
  options.metrics = "none";
  EXPECT_TRUE(
      read_plugin_settings(options, env({{"PASSTIMING_METRICS", "cpu"}}), 1).metrics.empty());
}

TEST(PluginSettings, UnknownMetricNamesTheVariableOrTheOption) {
  try {
    read_plugin_settings({}, env({{"PASSTIMING_METRICS", "cpu,cycles"}}), 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_METRICS: unknown metric 'cycles' (known: cpu, rss, ir, instructions, "
                 "all, none)");
  }
  OptionValues options;
  options.metrics = "memory";
  try {
    read_plugin_settings(options, env({}), 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-passtiming-metrics: unknown metric 'memory' (known: cpu, rss, ir, "
                 "instructions, all, none)");
  }
}

}  // namespace
}  // namespace passtiming::llvm_plugin
