#include "passtiming/engine/errors.h"

#include <fmt/format.h>

namespace passtiming {

InputError::InputError(std::string file, std::size_t line, std::string message)
    : std::runtime_error(fmt::format("{}:{}: {}", file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(std::move(message)) {}

}  // namespace passtiming
