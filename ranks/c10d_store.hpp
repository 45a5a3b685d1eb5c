// LibTorch's side of the rendezvous, for the files that talk to c10d directly (the transports): the
// TCPStore itself, and the KeyValueStore adapter over any c10d::Store.
#pragma once

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "rendezvous.hpp"

namespace accel::ranks {

struct Rendezvous::Native {
  c10::intrusive_ptr<c10d::TCPStore> tcp_store;
};

// KeyValueStore over a c10d::Store; any failure to talk to it is StoreUnreachable.
class C10dStore final : public KeyValueStore {
 public:
  explicit C10dStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::string& value) override;
  std::optional<std::string> try_get(const std::string& key) override;

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace accel::ranks
