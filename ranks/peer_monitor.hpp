// Who is alive, who has entered which collective, who has finished: what a real rank needs to turn
// "a collective does not complete" into an error naming the ranks at fault, instead of a hang.
//
// Every rank runs one monitor thread with a store connection of its own. It publishes this rank's
// heartbeat (a tick, how many collectives it has entered, and whether it is running, has left (no more
// collectives) or gave up) and reads every peer's, all the time, not only while a collective waits: so
// the time since a peer's last heartbeat is the real gap, and a peer that stops (killed, SIGSTOPped, its
// machine gone) is named a third of the timeout after its last heartbeat whatever this rank was doing.
// A rank waiting in a collective looks at what the thread saw: a peer whose tick stopped is silent, a
// peer that gave up is named with its reason, and when every rank that has not entered the collective
// has left, the collective would hang, reported exactly as the in-process simulator reports it (so a
// real trace equals the simulated one). The store itself (rank 0's process) is watched the same way: it
// must answer within the same third of the timeout. The transports (Gloo, NCCL) only say whether their
// operation is done.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/communicator.hpp"
#include "key_value_store.hpp"

namespace accel::ranks {

struct MonitorTiming {
  std::chrono::milliseconds timeout{30000};    // a collective, or the arrival of every rank
  std::chrono::milliseconds heartbeat{100};    // how often a rank publishes its state
  std::chrono::milliseconds stale_after{5000}; // no new tick for this long: the rank is dead
  std::chrono::milliseconds poll{100};         // how often a waiting rank looks at the others
  // How long the ranks may take to arrive: the timeout plus kStartupAllowance, since starting a process
  // that loads LibTorch takes a good part of a second, and ranks start one after another (a sub-second
  // --timeout-s must still let a healthy job begin).
  std::chrono::milliseconds arrival{35000};
  static constexpr std::chrono::milliseconds kStartupAllowance{5000};

  // Silence is declared well inside the timeout (a third of it, 1 to 5 s) so the error names the silent
  // rank rather than only saying that time ran out. The store must answer within stale_after too.
  static MonitorTiming for_timeout(std::chrono::milliseconds timeout);
};

// A rank failed outside a collective (never arrived, died before posting its record, gave up).
class PeerFailure : public std::runtime_error {
 public:
  PeerFailure(std::string message, std::vector<std::int64_t> ranks)
      : std::runtime_error(std::move(message)), ranks_(std::move(ranks)) {}
  const std::vector<std::int64_t>& ranks() const noexcept { return ranks_; }

 private:
  std::vector<std::int64_t> ranks_;
};

class PeerMonitor {
 public:
  // `store` is used by the monitor's own thread only: a TCPStore client is one socket and not safe to
  // share between threads (the rank driver gives it one that must answer within timing.stale_after).
  PeerMonitor(std::unique_ptr<KeyValueStore> store, std::int64_t rank, std::int64_t world_size, MonitorTiming timing);
  ~PeerMonitor();
  PeerMonitor(const PeerMonitor&) = delete;
  PeerMonitor& operator=(const PeerMonitor&) = delete;

  std::int64_t rank() const noexcept { return rank_; }
  std::int64_t world_size() const noexcept { return world_; }
  const MonitorTiming& timing() const noexcept { return timing_; }

  // Returns once every rank has published a heartbeat; PeerFailure naming the absent ranks after the timeout.
  void await_everyone();

  // A collective begins; returns its index (this rank's count of collectives, as InProcessGroup counts).
  std::int64_t enter();

  // Waits for the transport to finish collective `index`: `wait_done(slice)` waits at most `slice` and
  // says whether it finished. Throws CollectiveError when it cannot: a hang (every rank that has not
  // entered it has left; the simulator's message) or a failure (a rank died or gave up, or the timeout
  // passed; fatal() then holds the message).
  void await(std::int64_t index, const std::string& op, const std::function<bool(std::chrono::milliseconds)>& wait_done);

  // The transport failed collective `index` with `what` (say, a peer's socket closed): waits long enough
  // to tell who is to blame, then throws CollectiveError as await() does.
  [[noreturn]] void transport_failed(std::int64_t index, const std::string& op, const std::string& what);

  // Waits until `pending()` (ranks not done with something, e.g. posting their record) is empty. No
  // timeout while they are alive and running; PeerFailure when one dies or gives up.
  void await_ranks(const std::string& what, const std::function<std::vector<std::int64_t>()>& pending);

  // This rank makes no more collectives; published before returning.
  void leave();
  // This rank failed with `message`; published before returning, so peers can name it.
  void give_up(const std::string& message);
  // The failure that made a collective throw on this rank (a hang is not one: the trace records it).
  const std::optional<std::string>& fatal() const noexcept { return fatal_; }

  // Rank 0 hosts the store: after giving up it stays until every peer has left, given up or died (at
  // most `bound`), so the others can still read why and name the right rank.
  void linger(std::chrono::milliseconds bound);

 private:
  enum class State { Running = 0, Left = 1, Failed = 2 };
  struct Peer {
    bool seen = false;
    std::int64_t tick = -1;
    std::int64_t progress = 0;
    State state = State::Running;
    std::chrono::steady_clock::time_point changed{};   // when this rank first read the latest tick
    std::chrono::steady_clock::time_point observed{};  // when this rank last read the heartbeat
    std::string failure;
  };
  // One read of a peer by the monitor thread.
  struct Reading {
    std::int64_t rank = 0;
    std::optional<std::string> heartbeat;
    std::optional<std::string> failure;
  };
  struct Blame {
    std::optional<std::string> fatal;     // why the job cannot go on
    std::vector<std::int64_t> ranks;      // whom to blame
    bool hang = false;                    // the collective would hang (not fatal)
    std::vector<std::int64_t> entered;    // ranks that entered the collective
    std::vector<std::int64_t> missing;    // ranks that did not
  };

  void heartbeat_loop();
  void publish_now();
  std::vector<Reading> read_peers(const std::vector<bool>& need_failure);
  void apply(const std::vector<Reading>& readings, std::chrono::steady_clock::time_point when);
  bool dead(const Peer& p) const;
  Blame blame(std::optional<std::int64_t> index);
  [[noreturn]] void fail(std::int64_t index, const std::string& op, const std::string& why,
                         std::vector<std::int64_t> ranks);

  std::unique_ptr<KeyValueStore> store_;  // the monitor thread's
  std::int64_t rank_;
  std::int64_t world_;
  MonitorTiming timing_;
  std::optional<std::string> fatal_;

  std::atomic<std::int64_t> progress_{0};
  std::mutex mu_;  // everything below
  std::condition_variable cv_;
  std::vector<Peer> peers_;         // what the monitor thread read
  State state_ = State::Running;
  std::string failure_;             // give_up's message, published by the monitor thread before its state
  bool stop_ = false;
  bool broken_ = false;             // the store failed: nothing more is published or read
  std::optional<std::string> store_gone_;  // why (rank 0 is gone or silent)
  std::int64_t requested_ = 0;      // publish requests (leave, give_up)
  std::int64_t published_ = -1;     // the last request a published heartbeat included
  std::thread thread_;
};

// "1, 2, 3": every rank, as the simulator's hang messages list them (real traces repeat them word for word).
std::string ranks_text(const std::vector<std::int64_t>& ranks);
// "rank 3", "ranks 1-1024": a failure's ranks, runs compressed (sim/rank_ranges.hpp), for any world size.
std::string ranks_named(const std::vector<std::int64_t>& ranks);

}  // namespace accel::ranks
