#pragma once
/// \file
/// Typed PassContext configuration, as TVM registers its config keys: every
/// key is declared with a type, unknown keys and mistyped values are errors.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "passtiming/engine/errors.h"

namespace passtiming {

/// A config value. Integers are accepted where a number is expected.
using ConfigValue = std::variant<bool, std::int64_t, double, std::string>;

/// A PassContext's config: key → value.
using PassConfig = std::map<std::string, ConfigValue, std::less<>>;

enum class ConfigType { boolean, integer, number, string };

/// "bool", "int", "number", "string": the words used in error messages.
std::string_view type_name(ConfigType type) noexcept;

/// Config keys of the pass-timing instrumentation.
inline constexpr std::string_view kPassProfileKey = "tl.pass_profile";
inline constexpr std::string_view kPassProfileThresholdKey = "tl.pass_profile_threshold_ms";

/// The registered config keys. The process-wide registry already holds
/// `tl.pass_profile` (bool) and `tl.pass_profile_threshold_ms` (number).
///
///     ConfigRegistry::global().register_key("my.opt", ConfigType::integer);
///     ConfigRegistry::global().validate(config);  // throws ConfigError
class ConfigRegistry {
 public:
  ConfigRegistry() = default;
  static ConfigRegistry& global();

  /// Declares `key`. Declaring a key again with the same type is a no-op;
  /// with another type it is a ConfigError.
  void register_key(std::string key, ConfigType type);
  std::optional<ConfigType> type_of(std::string_view key) const;
  /// The registered keys, sorted.
  std::vector<std::string> keys() const;

  /// Throws ConfigError for the first unknown key (listing the registered
  /// ones) or value of the wrong type (naming the key and the type expected).
  void validate(const PassConfig& config) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ConfigType, std::less<>> types_;
};

/// The value of `key` as a bool, when set.
std::optional<bool> config_bool(const PassConfig& config, std::string_view key);
/// The value of `key` as a number (an integer converts), when set.
std::optional<double> config_number(const PassConfig& config, std::string_view key);

}  // namespace passtiming
