// Where a compile's files go: the placeholders of their paths, and the
// files and metrics read from the environment. What a compile session
// writes there is tested in tests/host/session_outputs_test.cc.

#include "passtiming/recorder/path_pattern.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "passtiming/engine/environment.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/recorder/settings.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::set_of;

TEST(PathPatternTest, ExpandPathPattern) {
  EXPECT_EQ(expand_path_pattern("/tmp/prof-%p.json", 42), "/tmp/prof-42.json");
  EXPECT_EQ(expand_path_pattern("%p-%p", 7), "7-7");
  EXPECT_EQ(expand_path_pattern("100%%-%p", 3), "100%-3");
  EXPECT_EQ(expand_path_pattern("odd%x%", 3), "odd%x%");
  EXPECT_EQ(expand_path_pattern("", 3), "");
  EXPECT_EQ(expand_path_pattern("tl-%p-%n.json", 42, 3), "tl-42-3.json");
  EXPECT_EQ(expand_path_pattern("tl-%n.json", 42), "tl-0.json");
  EXPECT_EQ(expand_path_pattern("%%n", 42, 3), "%n");
}

/// The files and metrics of `env`, as every host reads them.
Settings file_settings(const Environment& env) {
  return read_file_settings({.environment = &env});
}

TEST(FileSettingsTest, FromEnvironment) {
  const Settings none = file_settings(MapEnvironment());
  EXPECT_FALSE(none.profile);
  EXPECT_FALSE(none.events);
  const Settings empty = file_settings(MapEnvironment({{"PASSTIMING_PROFILE", ""}}));
  EXPECT_FALSE(empty.profile);
  const Settings both = file_settings(MapEnvironment(
      {{"PASSTIMING_PROFILE", "/out/p-%p.json"}, {"PASSTIMING_EVENTS", "/out/e.jsonl"}}));
  ASSERT_TRUE(both.profile && both.events);
  EXPECT_EQ(both.profile->path, "/out/p-" + std::to_string(::getpid()) + ".json");
  EXPECT_EQ(both.events->path, "/out/e.jsonl");
}

TEST(MetricsSettingTest, OutputSettingsReadTheEnvironment) {
  MapEnvironment env({{"PASSTIMING_METRICS", "rss,cpu"}});
  EXPECT_EQ(file_settings(env).metrics, set_of({Metric::cpu, Metric::rss}));
  MapEnvironment bad({{"PASSTIMING_METRICS", "cycles"}});
  EXPECT_THROW(file_settings(bad), ConfigError);
}

}  // namespace
}  // namespace passtiming
