/// The parsers of environment and config values: the threshold, the
/// truthiness of switches, the path patterns of the output files and the
/// one settings reader (read_settings), as the LLVM plugin calls it. Each value either parses to
/// something in range or is refused with a ConfigError naming the setting.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "passtiming/engine/errors.h"
#include "passtiming/recorder/config.h"
#include "passtiming/recorder/path_pattern.h"
#include "passtiming/recorder/settings.h"

namespace {

void check_threshold(std::string_view text) {
  using passtiming::fuzz::check;
  try {
    const double ms = passtiming::parse_threshold_ms(text, "FUZZ_SETTING");
    check(std::isfinite(ms) && ms >= 0 && !std::signbit(ms), "threshold out of range");
  } catch (const passtiming::ConfigError& e) {
    check(std::string_view(e.what()).find("FUZZ_SETTING") != std::string_view::npos,
          "threshold error does not name the setting");
  }
}

void check_environment(const std::string& value) {
  using namespace passtiming;
  MapEnvironment env{{std::string(kPassProfileEnv), value},
                     {std::string(kPassProfileThresholdEnv), value},
                     {std::string(kProfileSetting.environment), value},
                     {std::string(kEventsSetting.environment), value}};
  try {
    const auto threshold = pass_timing_threshold(PassConfig{}, env);
    fuzz::check(threshold.has_value() == is_truthy(value), "switch disagrees with is_truthy");
    if (threshold) fuzz::check(std::isfinite(*threshold) && *threshold >= 0, "bad threshold");
  } catch (const ConfigError& e) {
    fuzz::check(std::string_view(e.what()).find(kPassProfileThresholdEnv) != std::string::npos,
                "threshold error does not name the variable");
  }
  try {
    const Settings files = read_file_settings({.environment = &env});
    if (files.profile) fuzz::check(!files.profile->path.empty(), "empty profile path");
  } catch (const ConfigError&) {
    // Only the metrics can be refused, and the value is not one here.
    fuzz::check(false, "file settings refused without a metrics setting");
  }
  (void)expand_path_pattern(value, 12345);
}

void check_plugin(const std::string& value) {
  using namespace passtiming;
  GivenOptions options;
  options.threshold_ms = value;
  options.report = value;
  options.analyses = value;
  options.profile = value;
  options.events = value;
  options.context = value;
  try {
    const MapEnvironment none;
    const Settings s = read_settings({.options = options, .environment = &none, .pid = 7});
    fuzz::check(std::isfinite(s.threshold_ms) && s.threshold_ms >= 0, "plugin threshold");
  } catch (const ConfigError& e) {
    fuzz::check(std::string_view(e.what()).find("-passtiming-") != std::string_view::npos,
                "plugin error does not name the option");
  }
  MapEnvironment env{{std::string(kThresholdSetting.environment), value},
                     {std::string(kReportSetting.environment), value},
                     {std::string(kAnalysesSetting.environment), value}};
  try {
    (void)read_settings({.environment = &env, .pid = 7});
  } catch (const ConfigError& e) {
    fuzz::check(std::string_view(e.what()).find("PASSTIMING_") != std::string_view::npos,
                "plugin error does not name the variable");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string value(reinterpret_cast<const char*>(data), size);
  check_threshold(value);
  (void)passtiming::is_truthy(value);
  check_environment(value);
  check_plugin(value);
  return 0;
}
