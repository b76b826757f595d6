// Claims in a build without ZooKeeper's C client (libzookeeper-mt-dev not
// found): `push --zookeeper` says so, and everything else works without it.

#include <string>
#include <utility>
#include <vector>

#include "passtiming/fleet/claims.h"

namespace passtiming::fleet {

struct Claims::Session {};

bool Claims::available() {
  return false;
}

Claims::Claims(std::string connect, std::string base, double session_s, double timeout_s)
    : connect_(std::move(connect)),
      shown_(shown_zookeeper_address(connect_)),
      base_(std::move(base)),
      session_s_(session_s),
      timeout_s_(timeout_s) {
  throw ClaimsError(
      "this passtiming was built without ZooKeeper's C client (libzookeeper-mt-dev): "
      "--zookeeper is not available");
}

Claims::~Claims() = default;
std::vector<std::string> Claims::try_claim(const std::vector<std::string>&) {
  return {};
}
bool Claims::wait_released(const std::string&, double) {
  return true;
}
void Claims::release_all() {}
void Claims::check_alive() {}
const std::string& Claims::shown_address() const {
  return shown_;
}
void Claims::open() {}

}  // namespace passtiming::fleet
