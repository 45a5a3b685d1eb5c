// bind(2) interposed in the executable that links accel_ranks (see store_bind.hpp): its definition comes before
// libc's for every library it loads, LibTorch included; the real call is found with dlsym(RTLD_NEXT).
#include "store_bind.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace {

std::mutex guard_mutex;
std::atomic<bool> active{false};
std::uint16_t store_port = 0;  // network byte order
sockaddr_storage target{};
socklen_t target_len = 0;

using BindFn = int (*)(int, const sockaddr*, socklen_t);

BindFn real_bind() {
  static const BindFn fn = reinterpret_cast<BindFn>(::dlsym(RTLD_NEXT, "bind"));
  return fn;
}

bool is_wildcard_on_store_port(const sockaddr* addr, socklen_t len) {
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    return in->sin_port == store_port && in->sin_addr.s_addr == htonl(INADDR_ANY);
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    return in6->sin6_port == store_port && std::memcmp(&in6->sin6_addr, &in6addr_any, sizeof in6addr_any) == 0;
  }
  return false;
}

}  // namespace

extern "C" int bind(int fd, const sockaddr* addr, socklen_t len) {
  const BindFn real = real_bind();
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  if (!active.load() || addr == nullptr || !is_wildcard_on_store_port(addr, len)) return real(fd, addr, len);
  if (addr->sa_family != target.ss_family) {
    // The other family's wildcard: refused, so c10d tries the next address (the matching family).
    errno = EADDRNOTAVAIL;
    return -1;
  }
  return real(fd, reinterpret_cast<const sockaddr*>(&target), target_len);
}

namespace accel::ranks {

ListenOnly::ListenOnly(const std::string& address, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  // "localhost" and other names too, but their first address only: the store listens on one.
  if (::getaddrinfo(address.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    throw std::runtime_error("MASTER_ADDR=" + address + " does not resolve to an address to listen on");
  }
  std::lock_guard<std::mutex> lock(guard_mutex);
  std::memcpy(&target, found->ai_addr, found->ai_addrlen);
  target_len = found->ai_addrlen;
  ::freeaddrinfo(found);
  if (target.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&target)->sin_port = htons(port);
  else if (target.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&target)->sin6_port = htons(port);
  else throw std::runtime_error("MASTER_ADDR=" + address + " is neither IPv4 nor IPv6");
  store_port = htons(port);
  active.store(true);
}

ListenOnly::~ListenOnly() { active.store(false); }

}  // namespace accel::ranks
