#include <fmt/format.h>

#include <string>
#include <string_view>

#include "passtiming/fleet/claims.h"

namespace passtiming::fleet {

std::string claim_node_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool kept = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                      c == '_' || c == '-';
    if (kept) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  // ZooKeeper takes no empty node name.
  return out.empty() ? std::string("%") : out;
}

std::string shown_zookeeper_address(std::string_view connect) {
  // The chroot, if any, follows the first '/'; hosts are comma-separated.
  const std::size_t slash = connect.find('/');
  const std::string_view hosts = connect.substr(0, slash);
  std::string out;
  std::size_t begin = 0;
  while (begin <= hosts.size()) {
    std::size_t end = hosts.find(',', begin);
    if (end == std::string_view::npos) end = hosts.size();
    std::string_view host = hosts.substr(begin, end - begin);
    if (const std::size_t at = host.rfind('@'); at != std::string_view::npos) {
      host = host.substr(at + 1);
    }
    if (!out.empty() || begin > 0) out += ',';
    out += host;
    begin = end + 1;
  }
  if (slash != std::string_view::npos) out += connect.substr(slash);
  return out;
}

}  // namespace passtiming::fleet
