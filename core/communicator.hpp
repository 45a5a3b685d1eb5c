// The collectives Accelerate's data path uses, as one interface, so the same core runs over the
// in-process simulator, Gloo or NCCL.
//
// Every call is a collective: all ranks of the group must make the same calls in the same order.
// Implementations bound every call by a timeout and raise CollectiveError, naming the ranks that did
// not arrive, instead of hanging.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch.hpp"

namespace accel {

class CollectiveError : public std::runtime_error {
 public:
  CollectiveError(std::string message, std::vector<std::int64_t> missing_ranks, std::int64_t collective_index)
      : std::runtime_error(std::move(message)), missing_(std::move(missing_ranks)), index_(collective_index) {}
  // Ranks that never entered the collective (exited, died or stuck elsewhere).
  const std::vector<std::int64_t>& missing_ranks() const noexcept { return missing_; }
  // How many collectives this rank had completed before the failing one.
  std::int64_t collective_index() const noexcept { return index_; }

 private:
  std::vector<std::int64_t> missing_;
  std::int64_t index_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::int64_t rank() const = 0;
  virtual std::int64_t world_size() const = 0;

  // broadcast_object_list: `root`'s small object (a few integers) replaces everyone's.
  virtual std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) = 0;
  // broadcast of a batch tensor from `root`.
  virtual Batch broadcast(Batch batch, std::int64_t root) = 0;
  // The same broadcast for a caller that only reads the batch: `batch` is root's (ignored on other
  // ranks), `size` its length, which every rank knows from the broadcast_object before it. A simulator
  // hands every rank one shared buffer instead of a copy each (R copies of an R-rank batch is O(R^2) per
  // step); the default is a plain broadcast into a buffer of `size`.
  virtual std::shared_ptr<const Batch> broadcast_shared(std::shared_ptr<const Batch> batch, std::int64_t size,
                                                        std::int64_t root) {
    Batch buffer = rank() == root && batch ? *batch : Batch(static_cast<std::size_t>(size), 0);
    return std::make_shared<const Batch>(broadcast(std::move(buffer), root));
  }
  // all_gather of one batch per rank (gather_for_metrics), in rank order.
  virtual std::vector<Batch> all_gather(const Batch& batch) = 0;
  virtual void barrier() = 0;
  // all_reduce(SUM) of a small integer tensor, as DDP reduces gradients. Transports with a native
  // all_reduce override this; the default gathers and sums, the same collective pattern for a hang.
  virtual std::vector<std::int64_t> all_reduce(const std::vector<std::int64_t>& values) {
    std::vector<std::int64_t> sum(values.size(), 0);
    for (const Batch& b : all_gather(values)) {
      for (std::size_t i = 0; i < sum.size() && i < b.size(); ++i) sum[i] += b[i];
    }
    return sum;
  }
};

}  // namespace accel
