/// The JSONL event-log reader on arbitrary bytes: it either returns a
/// profile whose sections keep the invariants of fuzz_check.h, or throws
/// InputError naming the source and line. Nothing else.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/logging.h"
#include "passtiming/formats/event_log.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  passtiming::get_logger(passtiming::kTimingLoggerName)
      .set_sink([](passtiming::LogLevel, std::string_view, std::string_view) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace passtiming;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  Profile profile;
  try {
    profile = replay_event_log(in, "fuzz.jsonl");
  } catch (const InputError& e) {
    fuzz::check(std::string_view(e.what()).starts_with("fuzz.jsonl:"),
                "an InputError that does not name the source");
    return 0;
  }
  for (const Section& section : profile.sections) fuzz::check_section(section, -1);
  (void)render_session_report(profile, 0.0);
  // Whatever a log replays to must survive the JSON profile round trip.
  const std::string json = profile_to_json(profile);
  const Profile again = parse_profile_json(json, "round-trip.json");
  fuzz::check(profile_to_json(again) == json, "profile JSON round trip changed the text");
  return 0;
}
