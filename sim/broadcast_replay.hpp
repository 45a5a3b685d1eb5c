// A Communicator for ranks simulated one after another whose only collective is rank 0's generator broadcast
// at the start of a pass (a non-dispatched DataLoaderShard's): rank 0 logs what it sends and the others read it
// back in the same order, as if they had waited for it. Shared by the simulators that run whole jobs rank by rank.
#pragma once

#include <memory>
#include <stdexcept>
#include <vector>

#include "core/communicator.hpp"

namespace accel::sim {

class BroadcastReplay final : public Communicator {
 public:
  BroadcastReplay(std::shared_ptr<std::vector<std::vector<std::int64_t>>> log, std::int64_t rank, std::int64_t world)
      : log_(std::move(log)), rank_(rank), world_(world) {}
  std::int64_t rank() const override { return rank_; }
  std::int64_t world_size() const override { return world_; }
  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override {
    if (root != 0) throw std::logic_error("BroadcastReplay: only rank 0 broadcasts");
    if (rank_ == 0) {
      log_->push_back(object);
      return object;
    }
    return log_->at(next_++);
  }
  Batch broadcast(Batch, std::int64_t) override { throw std::logic_error("BroadcastReplay: no batch broadcast"); }
  std::vector<Batch> all_gather(const Batch&) override { throw std::logic_error("BroadcastReplay: no all_gather"); }
  void barrier() override {}

 private:
  std::shared_ptr<std::vector<std::vector<std::int64_t>>> log_;
  std::int64_t rank_, world_;
  std::size_t next_ = 0;
};

}  // namespace accel::sim
