/// The JSON profile reader on arbitrary bytes: it either returns a profile
/// that writes back to JSON which reads again to the same text, or throws
/// InputError naming the source. Nothing else. The streamed reader, given
/// the same bytes as a file, either declines or returns that same profile.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/profile_json_stream.h"
#include "fuzz_check.h"
#include "passtiming/errors.h"
#include "passtiming/profile_json.h"
#include "passtiming/report.h"

namespace {

/// The bytes as a file, read by the streamed reader.
std::optional<passtiming::Profile> read_streamed(std::string_view text) {
  const int fd = ::memfd_create("profile", MFD_CLOEXEC);
  passtiming::fuzz::check(fd >= 0, "memfd_create failed");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    passtiming::fuzz::check(n > 0, "writing the memfd failed");
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  std::optional<passtiming::Profile> profile =
      passtiming::detail::read_profile_streamed(fd, text.size());
  ::close(fd);
  return profile;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace passtiming;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<Profile> streamed = read_streamed(text);
  Profile profile;
  try {
    profile = parse_profile_json(text, "fuzz.json");
  } catch (const InputError& e) {
    fuzz::check(std::string_view(e.what()).starts_with("fuzz.json:"),
                "an InputError that does not name the source");
    fuzz::check(!streamed, "the streamed reader accepted a profile the reader rejects");
    return 0;
  }
  if (streamed) {
    fuzz::check(profile_to_json(*streamed) == profile_to_json(profile),
                "the streamed reader read another profile");
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
