// R simulated ranks that talk, run one after another on the calling thread: no thread per rank.
//
// Every collective a data loader makes carries data from rank 0 only (broadcast_object_list and
// broadcast from the main process; a barrier carries none). So rank 0 never needs anyone else's data:
// it runs first and its collectives are logged; every other rank then runs against the log, receiving
// rank 0's payloads (a dispatched batch is shared, never copied per rank). Cost: one rank after another,
// O(collectives) per rank on top of what the rank itself computes.
//
// Hangs are the InProcessGroup's, exactly: with L_r the collectives rank r enters, the first m = min L_r
// all complete, and collective #m is where the ranks that enter it wait forever for the ranks that left
// after m. Those ranks are run again, stopped at #m with the CollectiveError InProcessGroup raises (same
// message, missing ranks and index). A pattern it cannot schedule (ranks that call different collectives
// at one index, an all_gather, a root other than rank 0) makes run() return false, and the caller uses
// InProcessGroup, the reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "rank_exit.hpp"

namespace accel::sim {

class SequentialGroup {
 public:
  // `exit`: RankExit::ClosesConnection makes a rank that goes past rank 0's last collective fail there (and at every
  // later one) with connection_closed_by_peer() and go on, instead of waiting for a hang.
  explicit SequentialGroup(std::int64_t world_size, RankExit exit = RankExit::KeepsConnection);

  // Runs per_rank(r, comm) for every rank (again for ranks that must stop at a hang). An exception
  // other than CollectiveError ends that rank (it leaves the group); after all ranks ran, the lowest
  // failing rank's exception is rethrown, as InProcessGroup's callers do. Returns false, having run
  // nothing to completion that counts, when the ranks' collectives cannot be scheduled this way.
  bool run(const std::function<void(std::int64_t rank, Communicator& comm)>& per_rank);

 private:
  struct Entry {
    std::string op;
    std::vector<std::int64_t> object;    // broadcast_object_list
    std::shared_ptr<const Batch> batch;  // broadcast
  };
  class Endpoint;
  struct Unschedulable {};

  std::int64_t world_;
  RankExit exit_;
  std::vector<Entry> log_;  // rank 0's collectives, in order
};

}  // namespace accel::sim
