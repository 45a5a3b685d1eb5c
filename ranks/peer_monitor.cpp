#include "peer_monitor.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/rank_ranges.hpp"

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

// "tick progress state", as the monitor thread publishes it.
struct Heartbeat {
  std::int64_t tick = 0;
  std::int64_t progress = 0;
  int state = 0;
};

Heartbeat parse_heartbeat(const std::string& text) {
  Heartbeat h;
  std::istringstream in(text);
  in >> h.tick >> h.progress >> h.state;
  return h;
}

std::string plural_ranks(const std::vector<std::int64_t>& ranks) { return ranks_named(ranks); }

std::string store_gone(const std::string& why, Clock::duration silent, std::chrono::milliseconds answer_within) {
  // A stopped or hung rank 0 keeps its sockets open: its store just stops answering.
  if (silent >= answer_within) {
    return "rank 0 is gone or stopped (the TCPStore it hosts has not answered for " + seconds_text(silent) + ": " +
           why + ")";
  }
  return "rank 0 is gone (the TCPStore it hosts cannot be reached: " + why + ")";
}

}  // namespace

std::string ranks_text(const std::vector<std::int64_t>& ranks) { return sim::rank_list(ranks); }

std::string ranks_named(const std::vector<std::int64_t>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + sim::rank_ranges(ranks);
}

MonitorTiming MonitorTiming::for_timeout(std::chrono::milliseconds timeout) {
  MonitorTiming t;
  t.timeout = timeout;
  t.stale_after = std::clamp(timeout / 3, std::chrono::milliseconds(1000), std::chrono::milliseconds(5000));
  t.arrival = timeout + MonitorTiming::kStartupAllowance;
  return t;
}

PeerMonitor::PeerMonitor(std::unique_ptr<KeyValueStore> store, std::int64_t rank, std::int64_t world_size,
                         MonitorTiming timing)
    : store_(std::move(store)), rank_(rank), world_(world_size), timing_(timing),
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

std::vector<PeerMonitor::Reading> PeerMonitor::read_peers(const std::vector<bool>& need_failure) {
  std::vector<Reading> out;
  for (std::int64_t r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    Reading reading;
    reading.rank = r;
    reading.heartbeat = store_->try_get(heartbeat_key(r));
    const bool failed =
        reading.heartbeat && parse_heartbeat(*reading.heartbeat).state == static_cast<int>(State::Failed);
    if (failed && need_failure[static_cast<std::size_t>(r)]) reading.failure = store_->try_get(failure_key(r));
    out.push_back(std::move(reading));
  }
  return out;
}

void PeerMonitor::apply(const std::vector<Reading>& readings, Clock::time_point when) {
  for (const Reading& reading : readings) {
    Peer& p = peers_[static_cast<std::size_t>(reading.rank)];
    if (reading.failure && p.failure.empty()) p.failure = *reading.failure;
    if (!reading.heartbeat) continue;
    const Heartbeat h = parse_heartbeat(*reading.heartbeat);
    if (!p.seen || h.tick != p.tick) p.changed = when;
    p.seen = true;
    p.observed = when;
    p.tick = h.tick;
    p.progress = h.progress;
    p.state = static_cast<State>(h.state);
  }
}

void PeerMonitor::heartbeat_loop() {
  std::int64_t tick = 0;
  bool failure_published = false;
  auto last_answer = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const std::string value = std::to_string(++tick) + " " + std::to_string(progress_.load()) + " " +
                              std::to_string(static_cast<int>(state_));
    const std::string failure = state_ == State::Failed && !failure_published ? failure_ : std::string();
    // A peer that failed: its reason, until it is read.
    std::vector<bool> need_failure(static_cast<std::size_t>(world_), false);
    for (std::size_t r = 0; r < peers_.size(); ++r) need_failure[r] = peers_[r].failure.empty();
    const std::int64_t request = requested_;
    lock.unlock();
    std::optional<std::string> error;
    std::vector<Reading> readings;
    try {
      // The reason first, on the same connection: a peer that reads "failed" finds why.
      if (!failure.empty()) store_->set(failure_key(rank_), failure);
      store_->set(heartbeat_key(rank_), value);
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    if (!failure.empty() && !error) failure_published = true;
    published_ = request;
    cv_.notify_all();
    lock.unlock();
    if (!error) {
      try {
        readings = read_peers(need_failure);
        last_answer = Clock::now();
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    const auto now = Clock::now();
    lock.lock();
    apply(readings, now);
    if (error) {
      // The store's host is gone, or stopped answering: nothing more can be published or read.
      broken_ = true;
      store_gone_ = store_gone(*error, now - last_answer, timing_.stale_after);
      cv_.notify_all();
      break;
    }
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
  {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = State::Failed;
    failure_ = message;
  }
  publish_now();
}

bool PeerMonitor::dead(const Peer& p) const {
  // A rank that left may exit at once and stop beating: that is not a death. Silence is measured up to this
  // rank's latest read, so a monitor thread that was itself held up (a loaded machine) accuses nobody.
  return p.seen && p.state == State::Running && p.observed - p.changed > timing_.stale_after;
}

PeerMonitor::Blame PeerMonitor::blame(std::optional<std::int64_t> index) {
  Blame b;
  std::lock_guard<std::mutex> lock(mu_);
  if (store_gone_) {
    b.fatal = *store_gone_;
    b.ranks = {0};
    return b;
  }
  const auto now = Clock::now();
  std::vector<std::int64_t> dead_ranks, failed_ranks;
  std::string failures;
  Clock::duration longest{};
  for (std::int64_t r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    const Peer& p = peers_[static_cast<std::size_t>(r)];
    if (dead(p)) {
      dead_ranks.push_back(r);
      longest = std::max(longest, now - p.changed);
    }
    if (p.state == State::Failed) {
      failed_ranks.push_back(r);
      if (failed_ranks.size() <= 3) {
        failures += "; rank " + std::to_string(r) + " gave up: " + (p.failure.empty() ? "(no reason given)" : p.failure);
      }
    }
  }
  if (failed_ranks.size() > 3) failures += "; " + ranks_named(failed_ranks) + " gave up";
  if (!dead_ranks.empty() || !failed_ranks.empty()) {
    std::string why;
    // The real gap: the time since this rank's monitor thread last saw a new heartbeat of theirs.
    if (!dead_ranks.empty()) {
      why = plural_ranks(dead_ranks) + " died or stopped (no heartbeat for " + seconds_text(longest) + ")";
    }
    // A silent rank is the cause; ranks that gave up are only named when nobody fell silent (they say why).
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
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (store_gone_) throw PeerFailure(*store_gone_, {0});
      for (std::int64_t r = 0; r < world_; ++r) {
        if (r != rank_ && !peers_[static_cast<std::size_t>(r)].seen) absent.push_back(r);
      }
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
    bool busy = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (broken_) return;
      for (std::int64_t r = 0; r < world_; ++r) {
        const Peer& p = peers_[static_cast<std::size_t>(r)];
        if (r != rank_ && p.seen && p.state == State::Running && !dead(p)) busy = true;
      }
    }
    if (!busy) return;
    std::this_thread::sleep_for(timing_.poll);
  }
}

}  // namespace accel::ranks
