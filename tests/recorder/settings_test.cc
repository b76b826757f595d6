#include "passtiming/recorder/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace passtiming {
namespace {

TEST(IsTruthyTest, AcceptsTheSeedsSpellings) {
  for (const char* yes :
       {"1", "true", "TRUE", "True", "yes", "YES", "on", "On", "  on  ", "\ttrue\n"}) {
    EXPECT_TRUE(is_truthy(yes)) << yes;
  }
  for (const char* no : {"", "0", "false", "no", "off", "2", "enable", "y", "t", "on1", "o n"}) {
    EXPECT_FALSE(is_truthy(no)) << no;
  }
}

TEST(ParseThresholdTest, AcceptsFiniteNonNegativeDecimals) {
  EXPECT_EQ(parse_threshold_ms("10", "X"), 10.0);
  EXPECT_EQ(parse_threshold_ms(" 2.5 ", "X"), 2.5);
  EXPECT_EQ(parse_threshold_ms("+3", "X"), 3.0);
  EXPECT_EQ(parse_threshold_ms("1e3", "X"), 1000.0);
  EXPECT_EQ(parse_threshold_ms(".5", "X"), 0.5);
  EXPECT_EQ(parse_threshold_ms("5.", "X"), 5.0);
  EXPECT_EQ(parse_threshold_ms("0", "X"), 0.0);
  const double negative_zero = parse_threshold_ms("-0", "X");
  EXPECT_EQ(negative_zero, 0.0);
  EXPECT_FALSE(std::signbit(negative_zero));
}

TEST(ParseThresholdTest, RejectsEverythingElseNamingTheSource) {
  // clang-format off
  for (const char* bad : {"", " ", "-1", "-0.5", "nan", "NaN", "inf", "-inf", "infinity", "1e309",
                          "0x10", "5ms", "1,5", "1_000", "e5", ".", "+", "--1", "1e", "1e+",
                          "\xC2\xB5", "\xEF\xBC\x95" /* fullwidth 5 */, "5 5", "0b1"}) {
    // clang-format on
    try {
      parse_threshold_ms(bad, "TILELANG_PASS_PROFILE_THRESHOLD_MS");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(
                    "TILELANG_PASS_PROFILE_THRESHOLD_MS must be a finite non-negative number", 0),
                0u)
          << e.what();
    }
  }
}

TEST(PassTimingThresholdTest, OffByDefault) {
  EXPECT_EQ(pass_timing_threshold({}, MapEnvironment()), std::nullopt);
  EXPECT_EQ(pass_timing_threshold({}, MapEnvironment({{"TILELANG_PASS_PROFILE", "0"}})),
            std::nullopt);
  EXPECT_EQ(pass_timing_threshold({{"tl.pass_profile", false}}, MapEnvironment()), std::nullopt);
}

TEST(PassTimingThresholdTest, EnvironmentTurnsItOn) {
  EXPECT_EQ(pass_timing_threshold({}, MapEnvironment({{"TILELANG_PASS_PROFILE", " Yes "}})), 0.0);
  EXPECT_EQ(
      pass_timing_threshold({}, MapEnvironment({{"TILELANG_PASS_PROFILE", "1"},
                                                {"TILELANG_PASS_PROFILE_THRESHOLD_MS", "2.5"}})),
      2.5);
  EXPECT_EQ(pass_timing_threshold({}, MapEnvironment({{"TILELANG_PASS_PROFILE", "1"},
                                                      {"TILELANG_PASS_PROFILE_THRESHOLD_MS", ""}})),
            0.0);
}

TEST(PassTimingThresholdTest, ConfigTurnsItOnAndItsThresholdWins) {
  MapEnvironment env({{"TILELANG_PASS_PROFILE_THRESHOLD_MS", "99"}});
  EXPECT_EQ(pass_timing_threshold({{"tl.pass_profile", true}}, env), 99.0);
  EXPECT_EQ(
      pass_timing_threshold(
          {{"tl.pass_profile", true}, {"tl.pass_profile_threshold_ms", std::int64_t{5}}}, env),
      5.0);
  EXPECT_EQ(pass_timing_threshold(
                {{"tl.pass_profile", true}, {"tl.pass_profile_threshold_ms", 0.25}}, env),
            0.25);
}

TEST(PassTimingThresholdTest, ConfigFalseDoesNotOverrideEnvironment) {
  EXPECT_EQ(pass_timing_threshold({{"tl.pass_profile", false}},
                                  MapEnvironment({{"TILELANG_PASS_PROFILE", "on"}})),
            0.0);
}

TEST(PassTimingThresholdTest, BadThresholdsNameTheirSource) {
  MapEnvironment env(
      {{"TILELANG_PASS_PROFILE", "1"}, {"TILELANG_PASS_PROFILE_THRESHOLD_MS", "fast"}});
  try {
    pass_timing_threshold({}, env);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "TILELANG_PASS_PROFILE_THRESHOLD_MS must be a finite non-negative number (got 'fast')");
  }
  try {
    pass_timing_threshold({{"tl.pass_profile", true}, {"tl.pass_profile_threshold_ms", -3.0}}, env);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "tl.pass_profile_threshold_ms must be a finite non-negative number", 0),
              0u);
  }
  EXPECT_THROW(pass_timing_threshold(
                   {{"tl.pass_profile", true},
                    {"tl.pass_profile_threshold_ms", std::numeric_limits<double>::infinity()}},
                   env),
               ConfigError);
}

TEST(PassTimingThresholdTest, ThresholdIsNotReadWhenTimingIsOff) {
  EXPECT_EQ(
      pass_timing_threshold({}, MapEnvironment({{"TILELANG_PASS_PROFILE_THRESHOLD_MS", "junk"}})),
      std::nullopt);
}

TEST(PassTimingThresholdTest, WrongConfigTypeIsAnError) {
  EXPECT_THROW(pass_timing_threshold({{"tl.pass_profile", std::string("yes")}}, MapEnvironment()),
               ConfigError);
}

}  // namespace
}  // namespace passtiming
