// accel::Communicator over c10d's ProcessGroupGloo (CPU), rendezvoused through the TCPStore.
//
// Small objects travel as a fixed-size int64 tensor (length first), batches as int64 tensors whose
// size every rank knows from the preceding broadcast_object, all_gather of batches of different sizes
// as a gather of the sizes, then of batches padded to the largest. Every wait goes through the
// PeerMonitor, so a collective ends in time with the ranks to blame named.
#pragma once

#include <memory>

#include "core/communicator.hpp"
#include "peer_monitor.hpp"
#include "rendezvous.hpp"

namespace accel::ranks {

class GlooCommunicator final : public Communicator {
 public:
  // Connects the full mesh (Gloo's own rendezvous through the store). Raises RendezvousError.
  GlooCommunicator(Rendezvous& rendezvous, PeerMonitor& monitor);
  ~GlooCommunicator() override;

  std::int64_t rank() const override;
  std::int64_t world_size() const override;
  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override;
  Batch broadcast(Batch batch, std::int64_t root) override;
  std::vector<Batch> all_gather(const Batch& batch) override;
  std::vector<std::int64_t> all_reduce(const std::vector<std::int64_t>& values) override;
  void barrier() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accel::ranks
