#pragma once
/// \file
/// The errors a user can cause. Each names the input and where in it.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace passtiming {

/// A configuration value (PassContext config key, environment variable,
/// plugin option) that is unknown or malformed. The message names the key or
/// variable.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Malformed input file. `what()` is `FILE:LINE: message`.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, std::string message);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string message_;
};

}  // namespace passtiming
