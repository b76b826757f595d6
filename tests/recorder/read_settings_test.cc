// The one settings reader (read_settings): every setting from its option,
// else its environment variable, else the host's default, with messages that
// name the setting as it was given.

#include <gtest/gtest.h>

#include "passtiming/engine/errors.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {
namespace {

/// The LLVM plugin's defaults: the report on stderr.
const Settings kPluginDefaults{.report = ReportTarget::standard_error};

/// read_settings() over `options` and `vars`, with `%p` = `pid`.
Settings read(const GivenOptions& options, std::map<std::string, std::string, std::less<>> vars,
              long pid) {
  const MapEnvironment env(std::move(vars));
  return read_settings({.options = options, .environment = &env, .pid = pid}, kPluginDefaults);
}

TEST(ReadSettings, DefaultsWhenNothingIsSet) {
  Settings s = read({}, {}, 7);
  EXPECT_EQ(s.threshold_ms, 0.0);
  EXPECT_EQ(s.report, ReportTarget::standard_error);
  EXPECT_FALSE(s.profile);
  EXPECT_FALSE(s.events);
  EXPECT_EQ(s.context, "");
  EXPECT_FALSE(s.record_analyses);
}

TEST(ReadSettings, ReadsEveryVariableAndExpandsPid) {
  Settings s = read({},
                    {{"PASSTIMING_THRESHOLD_MS", "2.5"},
                     {"PASSTIMING_PROFILE", "/tmp/p-%p.json"},
                     {"PASSTIMING_EVENTS", "e-%p.jsonl"},
                     {"PASSTIMING_REPORT", "r-%p.txt"},
                     {"PASSTIMING_CONTEXT", "tu=a.c"},
                     {"PASSTIMING_ANALYSES", "yes"}},
                    42);
  EXPECT_EQ(s.threshold_ms, 2.5);
  EXPECT_EQ(s.profile, (OutputPath{"/tmp/p-42.json", "PASSTIMING_PROFILE"}));
  EXPECT_EQ(s.events, (OutputPath{"e-42.jsonl", "PASSTIMING_EVENTS"}));
  EXPECT_EQ(s.report, ReportTarget::file);
  EXPECT_EQ(s.report_file, (OutputPath{"r-42.txt", "PASSTIMING_REPORT"}));
  EXPECT_EQ(s.context, "tu=a.c");
  EXPECT_TRUE(s.record_analyses);
}

TEST(ReadSettings, OptionOverridesVariable) {
  GivenOptions options;
  options.threshold_ms = "1";
  options.report = "off";
  Settings s = read(options, {{"PASSTIMING_THRESHOLD_MS", "9"}, {"PASSTIMING_REPORT", "x.txt"}}, 1);
  EXPECT_EQ(s.threshold_ms, 1.0);
  EXPECT_EQ(s.report, ReportTarget::off);
}

TEST(ReadSettings, ReportKeywords) {
  EXPECT_EQ(read({}, {{"PASSTIMING_REPORT", " STDERR "}}, 1).report, ReportTarget::standard_error);
  EXPECT_EQ(read({}, {{"PASSTIMING_REPORT", "Off"}}, 1).report, ReportTarget::off);
  EXPECT_EQ(read({}, {{"PASSTIMING_REPORT", ""}}, 1).report, ReportTarget::standard_error);
}

TEST(ReadSettings, MalformedThresholdNamesTheVariable) {
  try {
    read({}, {{"PASSTIMING_THRESHOLD_MS", "-3"}}, 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_THRESHOLD_MS must be a finite non-negative number (got '-3')");
  }
}

TEST(ReadSettings, MalformedOptionNamesTheOption) {
  GivenOptions options;
  options.threshold_ms = "fast";
  try {
    read(options, {}, 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-passtiming-threshold-ms must be a finite non-negative number (got 'fast')");
  }
}

TEST(ReadSettings, MalformedSwitchNamesTheVariable) {
  try {
    read({}, {{"PASSTIMING_ANALYSES", "maybe"}}, 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_ANALYSES must be one of 1/true/yes/on or 0/false/no/off (got "
                 "'maybe')");
  }
}

TEST(ReadSettings, MetricsComeFromTheVariableOrTheOption) {
  EXPECT_TRUE(read({}, {}, 1).metrics.empty());
  MetricSet cpu_ir;
  cpu_ir.insert(Metric::cpu);
  cpu_ir.insert(Metric::ir);
  EXPECT_EQ(read({}, {{"PASSTIMING_METRICS", "ir,cpu"}}, 1).metrics, cpu_ir);
  GivenOptions options;
  options.metrics = "none";
  EXPECT_TRUE(read(options, {{"PASSTIMING_METRICS", "cpu"}}, 1).metrics.empty());
}

TEST(ReadSettings, UnknownMetricNamesTheVariableOrTheOption) {
  try {
    read({}, {{"PASSTIMING_METRICS", "cpu,cycles"}}, 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "PASSTIMING_METRICS: unknown metric 'cycles' (known: cpu, rss, ir, instructions, "
                 "all, none)");
  }
  GivenOptions options;
  options.metrics = "memory";
  try {
    read(options, {}, 1);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-passtiming-metrics: unknown metric 'memory' (known: cpu, rss, ir, "
                 "instructions, all, none)");
  }
}

}  // namespace
}  // namespace passtiming

namespace passtiming {
namespace {

TEST(ReadSettings, AnOptionIsNamedWithTheHostsPrefix) {
  const MapEnvironment env;
  GivenOptions options;
  options.profile = "out-%n.json";
  Settings s = read_settings(
      {.options = options, .option_prefix = "--", .environment = &env, .pid = 3, .compile = 4});
  EXPECT_EQ(s.profile, (OutputPath{"out-4.json", "--passtiming-profile"}));
  EXPECT_EQ(s.report, ReportTarget::log);
}

TEST(ReadSettings, FileSettingsReadOnlyTheFilesAndTheMetrics) {
  const MapEnvironment env({{"PASSTIMING_THRESHOLD_MS", "bad"},
                            {"PASSTIMING_ANALYSES", "maybe"},
                            {"PASSTIMING_REPORT", "off"},
                            {"PASSTIMING_PROFILE", "p.json"}});
  Settings s = read_file_settings({.environment = &env});
  EXPECT_EQ(s.profile, (OutputPath{"p.json", "PASSTIMING_PROFILE"}));
  EXPECT_EQ(s.report, ReportTarget::log);
  EXPECT_EQ(s.threshold_ms, 0.0);
}

TEST(ReadSettings, TimingIsAskedForByAnOptionOrAFile) {
  const MapEnvironment none;
  EXPECT_FALSE(settings_ask_for_timing({.environment = &none}));
  const MapEnvironment empty({{"PASSTIMING_PROFILE", ""}});
  EXPECT_FALSE(settings_ask_for_timing({.environment = &empty}));
  const MapEnvironment events({{"PASSTIMING_EVENTS", "e.jsonl"}});
  EXPECT_TRUE(settings_ask_for_timing({.environment = &events}));
  GivenOptions options;
  options.threshold_ms = "1";
  EXPECT_TRUE(settings_ask_for_timing({.options = options, .environment = &none}));
}

TEST(ReadSettings, TileLangsSwitchGivesItsThresholdAndTheFiles) {
  const MapEnvironment off({{"PASSTIMING_PROFILE", "p.json"}});
  EXPECT_FALSE(tilelang_settings({}, off));
  const MapEnvironment on({{"TILELANG_PASS_PROFILE", "1"},
                           {"TILELANG_PASS_PROFILE_THRESHOLD_MS", "2"},
                           {"PASSTIMING_PROFILE", "p-%n.json"},
                           {"PASSTIMING_METRICS", "cpu"}});
  std::optional<Settings> s = tilelang_settings({}, on, 7);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->threshold_ms, 2.0);
  EXPECT_EQ(s->profile, (OutputPath{"p-7.json", "PASSTIMING_PROFILE"}));
  EXPECT_TRUE(s->metrics.contains(Metric::cpu));
}

}  // namespace
}  // namespace passtiming
