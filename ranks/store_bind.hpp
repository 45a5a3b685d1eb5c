// The address rank 0's TCPStore listens on. LibTorch 1.13's TCPStore server binds the wildcard address
// (every interface) and has no option for another, which left an unauthenticated store reachable from the
// network. While a ListenOnly guard is alive, accel-sim-rank's bind(2) (store_bind.cpp) turns a wildcard
// bind on the store's port into a bind on MASTER_ADDR, and refuses the wildcard of the other address
// family so that c10d falls back to the one that matches.
#pragma once

#include <cstdint>
#include <string>

namespace accel::ranks {

class ListenOnly {
 public:
  // Raises std::runtime_error when `address` does not resolve to a numeric IPv4 or IPv6 address.
  ListenOnly(const std::string& address, std::uint16_t port);
  ~ListenOnly();
  ListenOnly(const ListenOnly&) = delete;
  ListenOnly& operator=(const ListenOnly&) = delete;
};

}  // namespace accel::ranks
