#include "peer_monitor.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace accel::ranks {
namespace {

using Clock = std::chrono::steady_clock;

std::string heartbeat_key(std::int64_t rank) { return "accel/heartbeat/" + std::to_string(rank); }
std::string failure_key(std::int64_t rank) { return "accel/failure/" + std::to_string(rank); }

std::string seconds_text(Clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

std::string plural_ranks(const std::vector<std::int64_t>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + ranks_text(ranks);
}

}  // namespace

std::string ranks_text(const std::vector<std::int64_t>& ranks) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size(); ++i) os << (i ? ", " : "") << ranks[i];
  return os.str();
}

MonitorTiming MonitorTiming::for_timeout(std::chrono::milliseconds timeout) {
  MonitorTiming t;
  t.timeout = timeout;
  t.stale_after = std::clamp(timeout / 3, std::chrono::milliseconds(1000), std::chrono::milliseconds(5000));
  t.arrival = timeout + MonitorTiming::kStartupAllowance;
  return t;
}

PeerMonitor::PeerMonitor(KeyValueStore& store, std::unique_ptr<KeyValueStore> heartbeat_store, std::int64_t rank,
                         std::int64_t world_size, MonitorTiming timing)
    : store_(store), heartbeat_store_(std::move(heartbeat_store)), rank_(rank), world_(world_size), timing_(timing),
      peers_(static_cast<std::size_t>(world_size)) {
  thread_ = std::thread([this] { heartbeat_loop(); });
  publish_now();  // from here on, peers can see this rank
}

PeerMonitor::~PeerMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PeerMonitor::heartbeat_loop() {
  std::int64_t tick = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const std::string value = std::to_string(++tick) + " " + std::to_string(progress_.load()) + " " +
                              std::to_string(static_cast<int>(state_));
    const std::int64_t request = requested_;
    lock.unlock();
    bool ok = true;
    try {
      heartbeat_store_->set(heartbeat_key(rank_), value);
    } catch (const std::exception&) {
      ok = false;  // the store's host is gone; waiting ranks find that out themselves
    }
    lock.lock();
    published_ = request;
    if (!ok) broken_ = true;
    cv_.notify_all();
    if (broken_) break;
    cv_.wait_for(lock, timing_.heartbeat, [&] { return stop_ || requested_ > published_; });
  }
}

void PeerMonitor::publish_now() {
  std::unique_lock<std::mutex> lock(mu_);
  const std::int64_t want = ++requested_;
  cv_.notify_all();
  // Bounded: with the store gone there is nobody to tell.
  cv_.wait_for(lock, std::chrono::seconds(2), [&] { return published_ >= want || broken_; });
}

std::int64_t PeerMonitor::enter() { return progress_.fetch_add(1); }

void PeerMonitor::leave() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::Running) state_ = State::Left;
  }
  publish_now();
}

void PeerMonitor::give_up(const std::string& message) {
  if (!fatal_) fatal_ = message;
  try {
    store_.set(failure_key(rank_), message);
  } catch (const std::exception&) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = State::Failed;
  }
  publish_now();
}

void PeerMonitor::observe() {
  const auto now = Clock::now();
  for (std::int64_t r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    Peer& p = peers_[static_cast<std::size_t>(r)];
    const auto value = store_.try_get(heartbeat_key(r));
    if (!value) continue;
    std::istringstream in(*value);
    std::int64_t tick = 0, progress = 0;
    int state = 0;
    in >> tick >> progress >> state;
    if (!p.seen || tick != p.tick) p.changed = now;
    p.seen = true;
    p.tick = tick;
    p.progress = progress;
    p.state = static_cast<State>(state);
    if (p.state == State::Failed && p.failure.empty()) p.failure = store_.try_get(failure_key(r)).value_or("(no reason)");
  }
}

bool PeerMonitor::dead(const Peer& p, Clock::time_point now) const {
  // A rank that left may exit at once and stop beating: that is not a death.
  return p.seen && p.state == State::Running && now - p.changed > timing_.stale_after;
}

PeerMonitor::Blame PeerMonitor::blame(std::optional<std::int64_t> index) {
  Blame b;
  try {
    observe();
  } catch (const StoreUnreachable& e) {
    b.fatal = std::string("rank 0 is gone (the TCPStore it hosts cannot be reached: ") + e.what() + ")";
    b.ranks = {0};
    return b;
  }
  const auto now = Clock::now();
  std::vector<std::int64_t> dead_ranks, failed_ranks;
  std::string failures;
  for (std::int64_t r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    const Peer& p = peers_[static_cast<std::size_t>(r)];
    if (dead(p, now)) dead_ranks.push_back(r);
    if (p.state == State::Failed) {
      failed_ranks.push_back(r);
      failures += "; rank " + std::to_string(r) + " gave up: " + p.failure;
    }
  }
  if (!dead_ranks.empty() || !failed_ranks.empty()) {
    std::string why;
    if (!dead_ranks.empty()) {
      const Peer& first = peers_[static_cast<std::size_t>(dead_ranks.front())];
      why = plural_ranks(dead_ranks) + " died" + " (no heartbeat for " +
            seconds_text(now - first.changed) + ")";
    }
    // A dead rank is the cause; ranks that gave up are only named when nobody died (they say why).
    if (dead_ranks.empty()) why = failures.substr(2);
    b.fatal = why;
    b.ranks = dead_ranks.empty() ? failed_ranks : dead_ranks;
    return b;
  }
  if (!index) return b;
  bool all_missing_left = true;
  for (std::int64_t r = 0; r < world_; ++r) {
    const Peer& p = peers_[static_cast<std::size_t>(r)];
    if (r == rank_ || p.progress > *index) {
      b.entered.push_back(r);
    } else {
      b.missing.push_back(r);
      if (p.state != State::Left) all_missing_left = false;
    }
  }
  b.hang = !b.missing.empty() && all_missing_left;
  return b;
}

void PeerMonitor::fail(std::int64_t index, const std::string& op, const std::string& why,
                       std::vector<std::int64_t> ranks) {
  const std::string message = "collective #" + std::to_string(index) + " (" + op + ") cannot complete: " + why;
  if (!fatal_) fatal_ = message;
  throw CollectiveError(message, std::move(ranks), index);
}

void PeerMonitor::await(std::int64_t index, const std::string& op,
                        const std::function<bool(std::chrono::milliseconds)>& wait_done) {
  const auto start = Clock::now();
  while (true) {
    if (wait_done(timing_.poll)) return;
    Blame b = blame(index);
    if (b.fatal) fail(index, op, *b.fatal, b.ranks);
    if (b.hang) {
      // InProcessGroup's words, so the trace's "Hang" error is the simulator's.
      throw CollectiveError("collective #" + std::to_string(index) + " (" + op + ") would hang: ranks " +
                                ranks_text(b.entered) + " entered it, ranks " + ranks_text(b.missing) +
                                " finished without entering it",
                            b.missing, index);
    }
    if (Clock::now() - start > timing_.timeout) {
      const std::string who = b.missing.empty() ? std::string("every rank entered it; the transport did not finish")
                                                : "waiting for " + plural_ranks(b.missing);
      fail(index, op, "timed out after " + seconds_text(timing_.timeout) + " " + who, b.missing);
    }
  }
}

void PeerMonitor::transport_failed(std::int64_t index, const std::string& op, const std::string& what) {
  // A closed socket is seen at once, a stopped heartbeat only after stale_after: wait that long for
  // the culprit to show before blaming the transport alone.
  const auto deadline = Clock::now() + timing_.stale_after + 2 * timing_.heartbeat + timing_.poll;
  Blame b;
  while (true) {
    b = blame(index);
    if (b.fatal) fail(index, op, *b.fatal + " [" + what + "]", b.ranks);
    if (b.hang) {
      throw CollectiveError("collective #" + std::to_string(index) + " (" + op + ") would hang: ranks " +
                                ranks_text(b.entered) + " entered it, ranks " + ranks_text(b.missing) +
                                " finished without entering it",
                            b.missing, index);
    }
    if (Clock::now() > deadline) break;
    std::this_thread::sleep_for(timing_.poll);
  }
  fail(index, op, what + (b.missing.empty() ? "" : " (not entered by " + plural_ranks(b.missing) + ")"), b.missing);
}

void PeerMonitor::await_everyone() {
  const auto start = Clock::now();
  while (true) {
    std::vector<std::int64_t> absent;
    try {
      for (std::int64_t r = 0; r < world_; ++r) {
        if (r != rank_ && !store_.try_get(heartbeat_key(r))) absent.push_back(r);
      }
    } catch (const StoreUnreachable& e) {
      throw PeerFailure(std::string("rank 0 is gone (the TCPStore it hosts cannot be reached: ") + e.what() + ")", {0});
    }
    if (absent.empty()) return;
    if (Clock::now() - start > timing_.arrival) {
      throw PeerFailure(plural_ranks(absent) + (absent.size() == 1 ? " has" : " have") + " not arrived after " +
                            seconds_text(timing_.arrival) + " (WORLD_SIZE=" + std::to_string(world_) + ")",
                        absent);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void PeerMonitor::await_ranks(const std::string& what, const std::function<std::vector<std::int64_t>()>& pending) {
  while (true) {
    std::vector<std::int64_t> waiting;
    try {
      waiting = pending();
    } catch (const StoreUnreachable& e) {
      throw PeerFailure(std::string("rank 0 is gone (the TCPStore it hosts cannot be reached: ") + e.what() + ")", {0});
    }
    if (waiting.empty()) return;
    Blame b = blame(std::nullopt);
    if (b.fatal) throw PeerFailure("while waiting for " + what + ": " + *b.fatal, b.ranks);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void PeerMonitor::linger(std::chrono::milliseconds bound) {
  const auto deadline = Clock::now() + bound;
  while (Clock::now() < deadline) {
    try {
      observe();
    } catch (const StoreUnreachable&) {
      return;
    }
    const auto now = Clock::now();
    bool busy = false;
    for (std::int64_t r = 0; r < world_; ++r) {
      const Peer& p = peers_[static_cast<std::size_t>(r)];
      if (r != rank_ && p.seen && p.state == State::Running && !dead(p, now)) busy = true;
    }
    if (!busy) return;
    std::this_thread::sleep_for(timing_.poll);
  }
}

}  // namespace accel::ranks
