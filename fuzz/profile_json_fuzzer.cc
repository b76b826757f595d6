/// The JSON profile reader on arbitrary bytes: it either returns a profile
/// that writes back to JSON which reads again to the same text, or throws
/// InputError naming the source. Nothing else.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "passtiming/errors.h"
#include "passtiming/profile_json.h"
#include "passtiming/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace passtiming;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Profile profile;
  try {
    profile = parse_profile_json(text, "fuzz.json");
  } catch (const InputError& e) {
    fuzz::check(std::string_view(e.what()).starts_with("fuzz.json:"),
                "an InputError that does not name the source");
    return 0;
  }
  (void)render_session_report(profile, 0.0);
  for (const Section& section : profile.sections) {
    (void)section.order_by_sequence();
    (void)render_report(section, 1.0, section.context);
  }
  const std::string json = profile_to_json(profile);
  Profile again;
  try {
    again = parse_profile_json(json, "round-trip.json");
  } catch (const InputError& e) {
    fuzz::check(false, "the writer produced a profile the reader rejects");
  }
  fuzz::check(profile_to_json(again) == json, "profile JSON round trip changed the text");
  return 0;
}
