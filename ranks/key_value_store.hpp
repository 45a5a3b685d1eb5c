// The few key-value operations real ranks share through the rendezvous store (heartbeats, records),
// as an interface: the rank driver backs it with c10d's TCPStore, the tests with memory.
//
// Keeping LibTorch out of this header keeps the monitor and the record exchange cheap to compile and
// testable without a network.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace accel::ranks {

// The store cannot be reached any more: its host (rank 0) is gone.
class StoreUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // The value, or nullopt when the key is not set yet; never blocks waiting for it.
  virtual std::optional<std::string> try_get(const std::string& key) = 0;
};

}  // namespace accel::ranks
