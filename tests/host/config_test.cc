// A PassContext checks its configuration against the registry of keys
// (recorder/config.h) when it is made; the registry itself is tested in
// tests/recorder/config_test.cc.

#include "passtiming/recorder/config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "passtiming/host/pass_context.h"

namespace passtiming {
namespace {

TEST(ConfigRegistryTest, WrongTypeNamesKeyAndExpectedType) {
  try {
    PassContext ctx({.config = {{"tl.pass_profile", std::int64_t{1}}}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "config key 'tl.pass_profile' expects a value of type bool, got int");
  }
  try {
    PassContext ctx({.config = {{"tl.pass_profile_threshold_ms", std::string("10")}}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "config key 'tl.pass_profile_threshold_ms' expects a value of type number, got string");
  }
}

TEST(ConfigRegistryTest, NumbersAcceptIntegers) {
  PassContext ctx({.config = {{"tl.pass_profile_threshold_ms", std::int64_t{3}}}});
  EXPECT_EQ(config_number(ctx.config(), "tl.pass_profile_threshold_ms"), 3.0);
}

TEST(ConfigRegistryTest, UnknownKeyInPassContext) {
  try {
    PassContext ctx({.config = {{"tl.pass_profil", true}}});
    FAIL();
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown config key 'tl.pass_profil'"), std::string::npos);
    EXPECT_NE(what.find("tl.pass_profile, tl.pass_profile_threshold_ms"), std::string::npos);
  }
}

}  // namespace
}  // namespace passtiming
