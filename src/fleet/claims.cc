// Claims in ZooKeeper with its C client (libzookeeper-mt): a session per
// round of claims, ephemeral nodes created in transactions of many (one
// write to ZooKeeper's log, where a create each would wait for a disk sync
// each), and where a transaction fails on a claim held, one by one in a
// pipelined round of asynchronous requests.

#include "passtiming/fleet/claims.h"

#include <fmt/format.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace passtiming::fleet {

using Clock = std::chrono::steady_clock;

struct Claims::Session {
  zhandle_t* zh = nullptr;
  std::mutex mutex;  ///< guards what follows
  std::condition_variable changed;
  bool expired = false;
  bool lost_once = false;    ///< a request's outcome was unknown: own nodes may exist
  std::uint64_t events = 0;  ///< node events of watches

  ~Session() {
    if (zh != nullptr) zookeeper_close(zh);
  }

  int state() const { return zoo_state(zh); }
};

namespace {

void on_event(zhandle_t*, int type, int state, const char*, void* context) {
  auto* session = static_cast<Claims::Session*>(context);
  std::lock_guard lock(session->mutex);
  if (type == ZOO_SESSION_EVENT) {
    if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE) {
      session->expired = true;
    }
  } else {
    ++session->events;
  }
  session->changed.notify_all();
}

/// One asynchronous create's answer.
struct Batch {
  std::mutex mutex;
  std::condition_variable done;
  std::size_t open = 0;
  std::vector<int> codes;
};

struct Slot {
  std::shared_ptr<Batch> batch;
  std::size_t index;
};

void on_created(int rc, const char*, const void* data) {
  std::unique_ptr<Slot> slot(static_cast<Slot*>(const_cast<void*>(data)));
  std::lock_guard lock(slot->batch->mutex);
  slot->batch->codes[slot->index] = rc;
  if (--slot->batch->open == 0) slot->batch->done.notify_all();
}

bool unknown_outcome(int rc) {
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZCLOSING;
}

}  // namespace

bool Claims::available() {
  return true;
}

Claims::Claims(std::string connect, std::string base, double session_s, double timeout_s)
    : connect_(std::move(connect)),
      shown_(shown_zookeeper_address(connect_)),
      base_(std::move(base)),
      session_s_(session_s),
      timeout_s_(timeout_s) {
  // The client's own log goes nowhere: its failures come back as codes,
  // which the push reports in its own words.
  zoo_set_debug_level(static_cast<ZooLogLevel>(0));
  open();
  // The base and its parents, persistent, for every push of the table.
  for (std::size_t slash = base_.find('/', 1);; slash = base_.find('/', slash + 1)) {
    const std::string path = base_.substr(0, slash);
    const int rc =
        zoo_create(session_->zh, path.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) {
      throw ClaimsError(
          fmt::format("ZooKeeper at {} refused to make {}: {}", shown_, path, zerror(rc)));
    }
    if (slash == std::string::npos) break;
  }
}

Claims::~Claims() = default;

const std::string& Claims::shown_address() const {
  return shown_;
}

void Claims::open() {
  auto session = std::make_unique<Session>();
  errno = 0;
  session->zh = zookeeper_init(connect_.c_str(), on_event, static_cast<int>(session_s_ * 1000),
                               nullptr, session.get(), 0);
  if (session->zh == nullptr) {
    throw ClaimsError(fmt::format("cannot use ZooKeeper at {}: {}", shown_,
                                  errno != 0 ? std::strerror(errno) : "a malformed address"));
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
  std::unique_lock lock(session->mutex);
  while (session->state() != ZOO_CONNECTED_STATE) {
    if (session->expired || Clock::now() > deadline) {
      lock.unlock();
      throw ClaimsError(
          fmt::format("ZooKeeper at {} did not answer within {:g} s", shown_, timeout_s_));
    }
    session->changed.wait_for(lock, std::chrono::milliseconds(20));
  }
  lock.unlock();
  session_ = std::move(session);
}

std::vector<std::string> Claims::try_claim(const std::vector<std::string>& names) {
  if (!session_) open();
  check_alive();
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back(base_ + "/" + claim_node_name(name));
  // First all of them in transactions of up to kMultiOps creates, one
  // write to ZooKeeper's log each: a claim held by another push fails its
  // transaction, whose names then go one by one.
  constexpr std::size_t kMultiOps = 1000;
  std::vector<bool> done(names.size(), false);
  for (std::size_t first = 0; first < names.size(); first += kMultiOps) {
    const std::size_t n = std::min(kMultiOps, names.size() - first);
    std::vector<zoo_op_t> ops(n);
    std::vector<zoo_op_result_t> results(n);
    std::vector<std::array<char, 16>> made(n);
    for (std::size_t k = 0; k < n; ++k) {
      zoo_create_op_init(&ops[k], paths[first + k].c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_EPHEMERAL, made[k].data(), static_cast<int>(made[k].size()));
    }
    const int rc = zoo_multi(session_->zh, static_cast<int>(n), ops.data(), results.data());
    if (rc == ZOK) {
      for (std::size_t k = 0; k < n; ++k) done[first + k] = true;
    } else if (unknown_outcome(rc)) {
      session_->lost_once = true;  // made or not: asked one by one below
    }
  }
  auto batch = std::make_shared<Batch>();
  batch->codes.assign(names.size(), ZOK);
  batch->open = static_cast<std::size_t>(std::count(done.begin(), done.end(), false));
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (done[i]) continue;
    auto* slot = new Slot{batch, i};
    const int rc = zoo_acreate(session_->zh, paths[i].c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                               ZOO_EPHEMERAL, on_created, slot);
    if (rc != ZOK) {
      // Not queued: no answer will come for it.
      delete slot;
      std::lock_guard lock(batch->mutex);
      batch->codes[i] = rc;
      --batch->open;
    }
  }
  {
    std::unique_lock lock(batch->mutex);
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
    if (!batch->done.wait_until(lock, deadline, [&] { return batch->open == 0; })) {
      throw ClaimsError(fmt::format("ZooKeeper at {} did not answer {} claims within {:g} s",
                                    shown_, names.size(), timeout_s_));
    }
  }
  std::vector<std::string> claimed;
  const std::int64_t own = zoo_client_id(session_->zh)->client_id;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int rc = batch->codes[i];
    if (rc == ZOK) {
      claimed.push_back(names[i]);
      continue;
    }
    if (unknown_outcome(rc)) {
      // Made or not: asked again below, once the connection is back.
      session_->lost_once = true;
      check_alive();
    } else if (rc != ZNODEEXISTS) {
      throw ClaimsError(
          fmt::format("ZooKeeper at {} refused the claim {}: {}", shown_, paths[i], zerror(rc)));
    }
    if (!session_->lost_once && rc == ZNODEEXISTS) continue;
    // A create whose answer was lost may have made the node: it is this
    // session's when ZooKeeper names the session as its owner.
    Stat stat{};
    const int again = zoo_exists(session_->zh, paths[i].c_str(), 0, &stat);
    if (again == ZOK && stat.ephemeralOwner == own) {
      claimed.push_back(names[i]);
    } else if (again == ZNONODE) {
      const int made = zoo_create(session_->zh, paths[i].c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                                  ZOO_EPHEMERAL, nullptr, 0);
      if (made == ZOK) claimed.push_back(names[i]);
    }
  }
  return claimed;
}

bool Claims::wait_released(const std::string& name, double seconds) {
  if (!session_) open();
  const std::string path = base_ + "/" + claim_node_name(name);
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    std::uint64_t seen = 0;
    {
      std::lock_guard lock(session_->mutex);
      seen = session_->events;
    }
    Stat stat{};
    // Watched: the node's deletion wakes the wait below.
    const int rc = zoo_exists(session_->zh, path.c_str(), 1, &stat);
    if (rc == ZNONODE) return true;
    if (rc != ZOK) {
      if (!unknown_outcome(rc)) {
        throw ClaimsError(
            fmt::format("ZooKeeper at {} refused to watch {}: {}", shown_, path, zerror(rc)));
      }
      check_alive();
    }
    std::unique_lock lock(session_->mutex);
    if (!session_->changed.wait_until(
            lock, deadline, [&] { return session_->events != seen || session_->expired; })) {
      return false;
    }
  }
}

void Claims::release_all() {
  session_.reset();
}

void Claims::check_alive() {
  if (!session_) return;
  Session& s = *session_;
  const auto deadline = Clock::now() + std::chrono::duration<double>(session_s_);
  std::unique_lock lock(s.mutex);
  while (true) {
    if (s.expired || s.state() == ZOO_EXPIRED_SESSION_STATE) {
      throw ClaimLost(fmt::format("the ZooKeeper session at {} expired", shown_));
    }
    if (s.state() == ZOO_CONNECTED_STATE) return;
    if (Clock::now() > deadline) {
      throw ClaimLost(
          fmt::format("the connection to ZooKeeper at {} was lost for {:g} s", shown_, session_s_));
    }
    s.changed.wait_for(lock, std::chrono::milliseconds(20));
  }
}

}  // namespace passtiming::fleet
