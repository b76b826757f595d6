// The registry of pass configuration keys. How a PassContext checks its
// configuration against it is tested in tests/host/config_test.cc.

#include "passtiming/recorder/config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace passtiming {
namespace {

TEST(ConfigRegistryTest, TimingKeysAreRegistered) {
  EXPECT_EQ(ConfigRegistry::global().type_of("tl.pass_profile"), ConfigType::boolean);
  EXPECT_EQ(ConfigRegistry::global().type_of("tl.pass_profile_threshold_ms"), ConfigType::number);
}

TEST(ConfigRegistryTest, UnknownKeyListsRegisteredKeys) {
  ConfigRegistry registry;
  registry.register_key("b.key", ConfigType::integer);
  registry.register_key("a.key", ConfigType::string);
  try {
    registry.validate({{"c.key", true}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown config key 'c.key'; registered keys: a.key, b.key");
  }
}

TEST(ConfigRegistryTest, TheGlobalRegistryChecksTheTimingKeysTypes) {
  const ConfigRegistry& registry = ConfigRegistry::global();
  EXPECT_NO_THROW(registry.validate({{"tl.pass_profile", true}}));
  EXPECT_THROW(registry.validate({{"tl.pass_profile", std::int64_t{1}}}), ConfigError);
  const PassConfig integer{{"tl.pass_profile_threshold_ms", std::int64_t{3}}};
  EXPECT_NO_THROW(registry.validate(integer));
  EXPECT_EQ(config_number(integer, "tl.pass_profile_threshold_ms"), 3.0);
}

TEST(ConfigRegistryTest, ReRegisteringWithAnotherTypeFails) {
  ConfigRegistry registry;
  registry.register_key("k", ConfigType::boolean);
  registry.register_key("k", ConfigType::boolean);
  EXPECT_THROW(registry.register_key("k", ConfigType::string), ConfigError);
}

}  // namespace
}  // namespace passtiming
