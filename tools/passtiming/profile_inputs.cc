#include "profile_inputs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::cli {

InputProgress::InputProgress(std::size_t total)
    : InputProgress(total, stderr, ::isatty(STDERR_FILENO) == 1,
                    [] { return std::chrono::steady_clock::now(); }) {}

InputProgress::InputProgress(std::size_t total, std::FILE* out, bool terminal, Clock clock)
    : total_(total),
      out_(out),
      terminal_(terminal),
      clock_(std::move(clock)),
      start_(clock_()),
      last_draw_(start_) {}

InputProgress::~InputProgress() {
  if (drawn_) std::fputs("\r\033[K", out_);
}

void InputProgress::step() {
  ++done_;
  if (!terminal_) return;
  const auto now = clock_();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && done_ != total_) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
  std::fprintf(out_, "\r[%s%s] %zu/%zu inputs", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), done_, total_);
  std::fflush(out_);
}

void for_each_profile(const std::vector<std::string>& paths,
                      const std::function<void(Profile&&)>& fn) {
  InputProgress progress(paths.size());
  for (const std::string& path : paths) {
    fn(load_profile(path));
    progress.step();
  }
}

void write_output(const std::string& path, std::string_view text) {
  write_file_atomically(path, text);
}

int input_failure(std::string_view message) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
  return kExitUsage;
}

bool parse_number_option(const std::string& text, std::string_view option, double& out) {
  try {
    out = parse_threshold_ms(text, option);
    return true;
  } catch (const ConfigError& e) {
    input_failure(fmt::format("passtiming: {}", e.what()));
    return false;
  }
}

}  // namespace passtiming::cli
