#pragma once
/// \file
/// Claims of runs in ZooKeeper (docs/fleet.md#claims-in-zookeeper): while a
/// push holds the claim of a run, no other push that claims sends rows of
/// it, so that a push may pack many runs into one block of its own making.
///
/// A claim is an ephemeral node, `<base>/<run id, escaped>`, of the push's
/// ZooKeeper session: it vanishes when the push releases it, closes the
/// session, or dies and the session expires (`session_s` after ZooKeeper
/// last heard of it). The session is the lock: a push whose session is not
/// known alive must send nothing more (check_alive()).

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace passtiming::fleet {

/// ZooKeeper could not be reached, refused a request, or no claim came free
/// in time. `what()` names the address without user information.
class ClaimsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The push's session expired or could not be confirmed alive: its claims
/// may be another push's now, and it must stop sending.
class ClaimLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The claims of one push: one ZooKeeper session at a time.
class Claims {
 public:
  /// Whether this build has the ZooKeeper client (libzookeeper-mt); without
  /// it the constructor throws ClaimsError.
  static bool available();

  /// Connects to `connect` (`HOST:PORT[,HOST:PORT…][/chroot]`) with a
  /// session of `session_s` seconds (ZooKeeper clamps it to its bounds),
  /// waiting up to `timeout_s` for it, and makes `base` (an absolute path)
  /// and its parents where missing. Throws ClaimsError.
  Claims(std::string connect, std::string base, double session_s, double timeout_s);
  ~Claims();  ///< closes the session: its claims vanish
  Claims(const Claims&) = delete;
  Claims& operator=(const Claims&) = delete;

  /// Claims what it can of `names` (run ids; any text): in transactions
  /// of up to 1000 nodes, and the names of a transaction that met a claim
  /// held, one by one in a pipelined round; returns the names claimed, in
  /// the order given.
  /// A name claimed by another session is left out. Throws ClaimsError,
  /// ClaimLost.
  std::vector<std::string> try_claim(const std::vector<std::string>& names);

  /// Waits until the claim of `name` is held by no session, watching it;
  /// false when it is still held after `seconds`. Throws ClaimsError,
  /// ClaimLost.
  bool wait_released(const std::string& name, double seconds);

  /// Releases every claim held, by ending the session (one request); the
  /// next try_claim() opens another.
  void release_all();

  /// Returns when the session is alive and connected; waits up to the
  /// session's timeout for a lost connection to come back, then throws
  /// ClaimLost. Called before each INSERT sent under the claims.
  void check_alive();

  /// `connect` without user information, for messages.
  const std::string& shown_address() const;

  struct Session;  ///< the ZooKeeper handle (claims.cc)

 private:
  std::string connect_;
  std::string shown_;
  std::string base_;
  double session_s_;
  double timeout_s_;
  std::unique_ptr<Session> session_;
  void open();
};

/// `name` as a ZooKeeper node name: letters, digits, `_` and `-` kept,
/// every other byte `%XX`, so that no run id makes a path of its own.
std::string claim_node_name(std::string_view name);

/// `connect` with anything up to an `@` in each `HOST:PORT` removed.
std::string shown_zookeeper_address(std::string_view connect);

}  // namespace passtiming::fleet
