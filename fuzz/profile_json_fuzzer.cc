/// The JSON profile reader on arbitrary bytes: it either returns a profile
/// that writes back to JSON which reads again to the same text, or throws
/// InputError naming the source. Nothing else. Its modes agree: what the
/// fast mode reads, the located mode reads to the same profile (it may also
/// accept bytes the fast mode refuses, as it does not check the syntax inside
/// the members it skips), and the streamed mode, given the bytes as a file,
/// either declines or reads that same profile too.

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/profile_json_reader.h"
#include "fuzz_check.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/formats/report.h"

namespace {

/// The bytes as a file, read in the streamed mode.
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
      passtiming::detail::read_profile_json_streamed(fd, text.size());
  ::close(fd);
  return profile;
}

/// The bytes read in the located mode, or nullopt when it refuses them.
std::optional<passtiming::Profile> read_located(const simdjson::padded_string& text) {
  try {
    return passtiming::detail::read_profile_json_located(text, "fuzz.json");
  } catch (const passtiming::InputError& e) {
    passtiming::fuzz::check(std::string_view(e.what()).starts_with("fuzz.json:"),
                            "the located mode threw an InputError that does not name the source");
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace passtiming;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<Profile> streamed = read_streamed(text);
  const simdjson::padded_string padded(text);
  const std::optional<Profile> fast = detail::read_profile_json_fast(padded);
  const std::optional<Profile> located = read_located(padded);
  fuzz::check(!fast.has_value() || located.has_value(),
              "the located mode refused a profile the fast mode reads");
  Profile profile;
  try {
    profile = parse_profile_json(text, "fuzz.json");
  } catch (const InputError& e) {
    fuzz::check(std::string_view(e.what()).starts_with("fuzz.json:"),
                "an InputError that does not name the source");
    fuzz::check(!fast, "parse_profile_json rejected a profile the fast mode accepts");
    fuzz::check(!streamed, "the streamed mode accepted a profile the reader rejects");
    return 0;
  }
  fuzz::check(fast.has_value(), "parse_profile_json accepted a profile the fast mode rejects");
  const std::string json = profile_to_json(profile);
  fuzz::check(profile_to_json(*fast) == json, "the fast mode read another profile");
  fuzz::check(profile_to_json(*located) == json, "the located mode read another profile");
  if (streamed) {
    fuzz::check(profile_to_json(*streamed) == json, "the streamed mode read another profile");
  }
  (void)render_session_report(profile, 0.0);
  for (const Section& section : profile.sections) {
    (void)section.order_by_sequence();
    (void)render_report(section, 1.0, section.context);
  }
  Profile again;
  try {
    again = parse_profile_json(json, "round-trip.json");
  } catch (const InputError& e) {
    fuzz::check(false, "the writer produced a profile the reader rejects");
  }
  fuzz::check(profile_to_json(again) == json, "profile JSON round trip changed the text");
  return 0;
}
