#pragma once
/// \file
/// What `summary`, `merge`, `diff` and `report` share: reading many profile
/// files with a progress bar, and writing the output to a file or stdout.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "passtiming/engine/profile.h"

namespace passtiming::cli {

/// A one-line progress bar on stderr, drawn only when stderr is a terminal
/// and the work has already taken more than a second, so quick runs and
/// pipes never see it. The line is cleared when the bar goes away.
class InputProgress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  /// Draws on stderr, when it is a terminal, by the steady clock.
  explicit InputProgress(std::size_t total);
  /// Draws on `out` when `terminal`, reading the time from `clock`.
  InputProgress(std::size_t total, std::FILE* out, bool terminal, Clock clock);
  InputProgress(const InputProgress&) = delete;
  InputProgress& operator=(const InputProgress&) = delete;
  ~InputProgress();
  /// One more input is done.
  void step();

 private:
  std::size_t total_;
  std::size_t done_ = 0;
  std::FILE* out_;
  bool terminal_;
  Clock clock_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

/// Loads each of `paths` (JSON profile or event log, `-` = stdin) in order
/// and hands it to `fn`, with a progress bar for long runs. Errors propagate.
void for_each_profile(const std::vector<std::string>& paths,
                      const std::function<void(Profile&&)>& fn);

/// Writes `text` to `path` atomically, or to stdout for `-`.
void write_output(const std::string& path, std::string_view text);

/// Prints `message` on stderr and returns kExitUsage (2).
int input_failure(std::string_view message);

/// Parses a non-negative, finite number option (`--threshold-ms 2.5`); on
/// error prints a message naming the option and returns false.
bool parse_number_option(const std::string& text, std::string_view option, double& out);

}  // namespace passtiming::cli
