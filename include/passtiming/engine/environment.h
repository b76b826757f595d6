#pragma once
/// \file
/// Where settings and host facts come from: the process environment, or a
/// map in tests and embedders. In the engine room, so that every room above
/// it (the formats' fleet rows, the recorder's settings) reads it the same
/// way.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace passtiming {

/// Where settings come from. A parameter, so tests never touch the real
/// environment.
class Environment {
 public:
  virtual ~Environment() = default;
  /// The variable's value, or nullopt when unset.
  virtual std::optional<std::string> get(std::string_view name) const = 0;
  /// The process environment (getenv).
  static const Environment& process();
};

/// An environment made of a map, for tests and embedders.
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string, std::less<>> vars)
      : vars_(std::move(vars)) {}
  MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  std::optional<std::string> get(std::string_view name) const override;

 private:
  std::map<std::string, std::string, std::less<>> vars_;
};

}  // namespace passtiming
