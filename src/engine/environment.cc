#include "passtiming/engine/environment.h"

#include <cstdlib>

namespace passtiming {

const Environment& Environment::process() {
  class ProcessEnvironment final : public Environment {
   public:
    std::optional<std::string> get(std::string_view name) const override {
      const char* value = std::getenv(std::string(name).c_str());
      if (value == nullptr) return std::nullopt;
      return std::string(value);
    }
  };
  static const ProcessEnvironment env;
  return env;
}

std::optional<std::string> MapEnvironment::get(std::string_view name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

}  // namespace passtiming
