#pragma once
/// \file
/// A loopback port that nothing listens on, for the tests of a server that
/// is away (the fleet room's and the `push` command's).

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace passtiming::testing {

/// A loopback port that nothing listens on at the moment of asking: the
/// kernel's pick for a socket bound and closed at once.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), size);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace passtiming::testing
