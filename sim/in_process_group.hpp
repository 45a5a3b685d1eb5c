// An in-process communicator for R simulated ranks (one thread each), deterministic and hang-aware.
//
// Collectives complete when every rank has entered them, exactly as on real ranks. When a rank leaves
// (its loop ended) while others wait in a collective it will never enter, the waiting ranks get a
// CollectiveError naming the missing ranks and the collective's index, at once: the simulator reports
// the hang a real job would have instead of having one. A timeout backs this up.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/communicator.hpp"
#include "rank_exit.hpp"

namespace accel::sim {

class InProcessGroup {
 public:
  // `exit`: RankExit::ClosesConnection fails a collective rank 0 has ended without entering with
  // connection_closed_by_peer() on every rank that enters it, at once.
  explicit InProcessGroup(std::int64_t world_size, std::chrono::milliseconds timeout = std::chrono::milliseconds(30000),
                          RankExit exit = RankExit::KeepsConnection);
  ~InProcessGroup();
  InProcessGroup(const InProcessGroup&) = delete;
  InProcessGroup& operator=(const InProcessGroup&) = delete;

  // Rank r's endpoint; valid while the group lives.
  Communicator& endpoint(std::int64_t rank);
  // Rank r makes no more collectives (its loop ended or it failed).
  void leave(std::int64_t rank);

 private:
  class Endpoint;
  struct Pending {
    std::string op;
    std::vector<Batch> payloads;
    std::vector<bool> arrived;
    std::int64_t count = 0;
    std::int64_t released = 0;
    bool done = false;
    std::string failure;
    bool closed = false;  // rank 0 ended without entering it (RankExit::ClosesConnection)
    std::vector<std::int64_t> missing;
  };

  std::vector<Batch> collective(std::int64_t rank, const std::string& op, Batch payload);
  void check_stuck_locked();

  std::int64_t world_;
  std::chrono::milliseconds timeout_;
  RankExit exit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::int64_t> next_index_;
  std::vector<bool> left_;
  std::map<std::int64_t, Pending> pending_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
};

// Runs `per_rank(rank, comm)` for every rank, one thread each over an in-process group. A rank leaves the
// group when its function returns or throws; the first rank's exception is rethrown once every thread ended.
template <typename F>
void run_ranks_in_threads(std::int64_t world, F per_rank, RankExit exit = RankExit::KeepsConnection) {
  InProcessGroup group(world, std::chrono::milliseconds(30000), exit);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(world));
  for (std::int64_t r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        per_rank(r, group.endpoint(r));
      } catch (...) {
        failures[static_cast<std::size_t>(r)] = std::current_exception();
      }
      group.leave(r);
    });
  }
  for (auto& t : threads) t.join();
  for (auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace accel::sim
