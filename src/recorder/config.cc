#include "passtiming/recorder/config.h"

#include <fmt/format.h>

namespace passtiming {
namespace {

bool matches(ConfigType type, const ConfigValue& value) {
  switch (type) {
    case ConfigType::boolean: return std::holds_alternative<bool>(value);
    case ConfigType::integer: return std::holds_alternative<std::int64_t>(value);
    case ConfigType::number:
      return std::holds_alternative<double>(value) || std::holds_alternative<std::int64_t>(value);
    case ConfigType::string: return std::holds_alternative<std::string>(value);
  }
  return false;
}

std::string_view value_type_name(const ConfigValue& value) {
  switch (value.index()) {
    case 0: return "bool";
    case 1: return "int";
    case 2: return "number";
    default: return "string";
  }
}

}  // namespace

std::string_view type_name(ConfigType type) noexcept {
  switch (type) {
    case ConfigType::boolean: return "bool";
    case ConfigType::integer: return "int";
    case ConfigType::number: return "number";
    case ConfigType::string: return "string";
  }
  return "?";
}

ConfigRegistry& ConfigRegistry::global() {
  static ConfigRegistry* registry = [] {
    auto* r = new ConfigRegistry();
    r->register_key(std::string(kPassProfileKey), ConfigType::boolean);
    r->register_key(std::string(kPassProfileThresholdKey), ConfigType::number);
    return r;
  }();
  return *registry;
}

void ConfigRegistry::register_key(std::string key, ConfigType type) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = types_.emplace(std::move(key), type);
  if (!inserted && it->second != type) {
    throw ConfigError(fmt::format("config key '{}' is already registered as {}", it->first,
                                  type_name(it->second)));
  }
}

std::optional<ConfigType> ConfigRegistry::type_of(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = types_.find(key);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ConfigRegistry::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [key, type] : types_) out.push_back(key);
  return out;
}

void ConfigRegistry::validate(const PassConfig& config) const {
  for (const auto& [key, value] : config) {
    auto type = type_of(key);
    if (!type) {
      throw ConfigError(fmt::format("unknown config key '{}'; registered keys: {}", key,
                                    fmt::join(keys(), ", ")));
    }
    if (!matches(*type, value)) {
      throw ConfigError(fmt::format("config key '{}' expects a value of type {}, got {}", key,
                                    type_name(*type), value_type_name(value)));
    }
  }
}

std::optional<bool> config_bool(const PassConfig& config, std::string_view key) {
  auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b;
  throw ConfigError(fmt::format("config key '{}' expects a value of type bool, got {}", key,
                                value_type_name(it->second)));
}

std::optional<double> config_number(const PassConfig& config, std::string_view key) {
  auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  if (const double* d = std::get_if<double>(&it->second)) return *d;
  if (const std::int64_t* i = std::get_if<std::int64_t>(&it->second)) {
    return static_cast<double>(*i);
  }
  throw ConfigError(fmt::format("config key '{}' expects a value of type number, got {}", key,
                                value_type_name(it->second)));
}

}  // namespace passtiming
