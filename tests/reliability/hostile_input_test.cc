/// Hostile names and values: control characters, ANSI escapes, quotes,
/// backslashes, invalid UTF-8, `</script>`, a megabyte of length; and
/// malformed environment values for every setting that reads one.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_support.h"
#include "passtiming/engine/clock.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/chrome_trace.h"
#include "passtiming/formats/html_report.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"
#include "passtiming/host/pass.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/path_pattern.h"
#include "passtiming/recorder/settings.h"

namespace passtiming {
namespace {

using testing::named_pass;

const std::vector<std::string>& hostile_names() {
  static const std::vector<std::string> names = {
      "\x1b[2J\x1b[31mred\x1b[0m",  // clear screen, colours
      "\x1b]0;title\x07",           // OSC: set the terminal title
      "tab\tnew\nline\rcr\b\x7f",   // C0 controls and DEL
      "\"quoted\" and \\back\\slash",
      "\xff\xfe\xc3(invalid utf-8\xe2\x82",
      "\xc2\x9b"
      "31m C1 CSI",  // U+009B, the 8-bit CSI
      "</script><script>alert(1)</script>",
      "<img src=x onerror=alert(1)>&amp;",
      std::string(1 << 20, 'M'),  // a megabyte
  };
  return names;
}

/// A session whose pass names, kernel labels and context are all hostile.
Profile hostile_profile() {
  auto clock = std::make_shared<ManualClock>();
  PassTimingTool session(0.0, clock, Settings{});
  for (const auto& name : hostile_names()) {
    PassContext ctx({.instruments = session.instruments_for(name)});
    auto scope = ctx.enter();
    IRModule mod{{"main", name}};
    auto pass = named_pass(name, [&] { clock->advance(1000); });
    mod = (*pass)(std::move(mod), ctx);
  }
  Profile profile = session.profile();
  session.finish();
  return profile;
}

bool has_raw_control(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  }
  return false;
}

TEST(HostileInput, TextReportEscapesEveryControlCharacter) {
  testing::LogCapture log;
  const Profile profile = hostile_profile();
  const std::string report = render_session_report(profile, 0.0);
  EXPECT_FALSE(has_raw_control(report));
  EXPECT_EQ(report.find("\x1b"), std::string::npos);
  EXPECT_EQ(report.find("\xc2\x9b"), std::string::npos);  // no 8-bit CSI either
  EXPECT_NE(report.find("\\x1b[2J"), std::string::npos);
  EXPECT_NE(report.find(std::string(1 << 20, 'M')), std::string::npos);  // never truncated
}

TEST(HostileInput, JsonProfileIsValidJsonAndReadsBack) {
  testing::LogCapture log;
  const Profile profile = hostile_profile();
  const std::string json = profile_to_json(profile);
  const auto doc = nlohmann::json::parse(json);  // throws on invalid JSON or UTF-8
  ASSERT_EQ(doc["sections"].size(), hostile_names().size());
  EXPECT_EQ(doc["sections"][6]["context"], "</script><script>alert(1)</script>");
  EXPECT_EQ(doc["sections"][3]["context"], "\"quoted\" and \\back\\slash");
  const Profile again = parse_profile_json(json, "hostile.json");
  EXPECT_EQ(profile_to_json(again), json);
}

TEST(HostileInput, ChromeTraceIsValidJson) {
  testing::LogCapture log;
  const std::string trace = render_chrome_trace(hostile_profile());
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(trace));
  EXPECT_NE(trace.find("</script>"), std::string::npos);  // text, kept as text
}

TEST(HostileInput, HtmlNeverContainsTheNameAsMarkup) {
  testing::LogCapture log;
  const std::string html = render_html_report(hostile_profile());
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("</script><script>"), std::string::npos);
}

/// Malformed threshold values: each either a defined number or a
/// ConfigError naming the variable.
struct ThresholdCase {
  std::string text;
  std::optional<double> value;  ///< nullopt: a ConfigError
};

const ThresholdCase kThresholds[] = {
    {"", 0.0},         {" ", 0.0},        {"\t\n", 0.0},
    {"0", 0.0},        {"-0", 0.0},       {" 12.5 ", 12.5},
    {"1e3", 1000.0},   {"1e-400", {}},    {"nan", {}},
    {"NaN", {}},       {"inf", {}},       {"-inf", {}},
    {"infinity", {}},  {"1e309", {}},     {"-1", {}},
    {"-1e-9", {}},     {"0x10", {}},      {"5ms", {}},
    {"5 ms", {}},      {"1,5", {}},       {"١٢", {}},
    {"\xc2\xb5s", {}}, {"\xff", {}},      {"+", {}},
    {".", {}},         {"1e", {}},        {"--1", {}},
    {"1 2", {}},       {"\x1b[31m1", {}}, {std::string("1\0", 2), {}},
};

TEST(HostileInput, ThresholdEnvironmentValuesHaveADefinedResult) {
  for (const auto& c : kThresholds) {
    SCOPED_TRACE("value '" + c.text + "'");
    MapEnvironment env{{"TILELANG_PASS_PROFILE", "1"},
                       {"TILELANG_PASS_PROFILE_THRESHOLD_MS", c.text}};
    if (c.value) {
      const auto threshold = pass_timing_threshold(PassConfig{}, env);
      ASSERT_TRUE(threshold.has_value());
      EXPECT_EQ(*threshold, *c.value);
      EXPECT_FALSE(std::signbit(*threshold));
    } else {
      try {
        pass_timing_threshold(PassConfig{}, env);
        ADD_FAILURE() << "accepted";
      } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("TILELANG_PASS_PROFILE_THRESHOLD_MS"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(HostileInput, SwitchValuesAreOnOnlyForTheFourWords) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"1", true},    {"true", true},  {"TRUE", true},    {" yes ", true}, {"On", true},
      {"", false},    {" ", false},    {"0", false},      {"2", false},    {"-1", false},
      {"y", false},   {"tru", false},  {"truee", false},  {"nan", false},  {"inf", false},
      {"0x1", false}, {"\xff", false}, {"ｙｅｓ", false}, {"1\n1", false}, {"yes\x1b", false},
  };
  for (const auto& [text, on] : cases) {
    SCOPED_TRACE("value '" + text + "'");
    EXPECT_EQ(is_truthy(text), on);
    MapEnvironment env{{"TILELANG_PASS_PROFILE", text}};
    EXPECT_EQ(pass_timing_threshold(PassConfig{}, env).has_value(), on);
  }
}

TEST(HostileInput, OutputPathValuesAreTakenVerbatimExceptPercentP) {
  const std::vector<std::pair<std::string, std::optional<std::string>>> cases = {
      {"", std::nullopt},
      {" ", " "},
      {"%p.json", "42.json"},
      {"%%p", "%p"},
      {"%", "%"},
      {"%q%", "%q%"},
      {"a\nb", "a\nb"},
      {"\xff.json", "\xff.json"},
      {"/dev/full", "/dev/full"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE("value '" + text + "'");
    MapEnvironment env{{"PASSTIMING_PROFILE", text}, {"PASSTIMING_EVENTS", text}};
    const Settings outputs = read_file_settings({.environment = &env, .pid = 42});
    if (!expected) {
      EXPECT_FALSE(outputs.profile);
      EXPECT_FALSE(outputs.events);
    } else {
      const std::string want = expand_path_pattern(text, 42);
      EXPECT_EQ(want, *expected);
      ASSERT_TRUE(outputs.profile);
      ASSERT_TRUE(outputs.events);
      EXPECT_EQ(outputs.profile->path, want);
      EXPECT_EQ(outputs.events->path, want);
    }
  }
}

}  // namespace
}  // namespace passtiming
