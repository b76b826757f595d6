// A source of the engine room that calls a function of the formats room, the
// room above it: an arrow back up. Built against passtiming::engine alone
// (rooms_arrow_back_up) it must fail to link, naming profile_to_json; built
// against passtiming::formats (rooms_arrow_down, the control) it links. The
// ctest rooms_arrow_back_up_fails builds both (check_arrow_back_up.cmake).

#include "passtiming/engine/profile.h"
#include "passtiming/formats/profile_json.h"

int main() {
  const passtiming::Profile profile;
  return passtiming::profile_to_json(profile).empty() ? 1 : 0;
}
