// accel::Communicator over NCCL (one GPU per rank, GPU = LOCAL_RANK), built only WITH_NCCL.
//
// The ncclUniqueId travels through the rendezvous store. The communicator is non-blocking, so every
// operation, its initialisation included, is polled (ncclCommGetAsyncError, cudaStreamQuery) under the
// PeerMonitor and aborted (ncclCommAbort) when it cannot finish: a dead peer is an error naming it,
// never a GPU spinning forever. Values move through real device buffers (copied to and from the host),
// in the same messages as the Gloo transport (collective_encoding.hpp).
#pragma once

#include <memory>
#include <stdexcept>

#include "core/communicator.hpp"
#include "peer_monitor.hpp"
#include "rendezvous.hpp"

namespace accel::ranks {

// No usable GPU for this rank (none at all, or fewer than LOCAL_RANK + 1).
class DeviceUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NcclCommunicator final : public Communicator {
 public:
  // Raises DeviceUnavailable, RendezvousError (the unique id or the init did not come in time) or PeerFailure.
  NcclCommunicator(Rendezvous& rendezvous, PeerMonitor& monitor);
  ~NcclCommunicator() override;

  std::int64_t rank() const override;
  std::int64_t world_size() const override;
  std::vector<std::int64_t> broadcast_object(std::vector<std::int64_t> object, std::int64_t root) override;
  Batch broadcast(Batch batch, std::int64_t root) override;
  std::vector<Batch> all_gather(const Batch& batch) override;
  void barrier() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accel::ranks
