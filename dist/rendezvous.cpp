#include "rendezvous.hpp"

#include "c10d_store.hpp"

namespace accel::dist {
namespace {

c10::intrusive_ptr<c10d::TCPStore> client(const RankEnv& env, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = env.master_port;
  options.isServer = false;
  options.waitWorkers = false;  // arrival is the heartbeats' business (PeerMonitor::await_everyone)
  options.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
}

std::string address(const RankEnv& env) { return env.master_addr + ":" + std::to_string(env.master_port); }

}  // namespace

void C10dStore::set(const std::string& key, const std::string& value) {
  try {
    store_->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
  } catch (const std::exception& e) {
    throw StoreUnreachable(e.what());
  }
}

std::optional<std::string> C10dStore::try_get(const std::string& key) {
  try {
    if (!store_->check({key})) return std::nullopt;
    const auto bytes = store_->get(key);
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    throw StoreUnreachable(e.what());
  }
}

Rendezvous::Rendezvous(const RankEnv& env, std::chrono::milliseconds timeout)
    : env_(env), timeout_(timeout), native_(std::make_unique<Native>()) {
  if (env.rank == 0) {
    c10d::TCPStoreOptions options;
    options.port = env.master_port;
    options.isServer = true;
    options.waitWorkers = false;
    options.timeout = timeout;
    try {
      native_->tcp_store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
    } catch (const std::exception& e) {
      throw RendezvousError("rank 0 cannot start the TCPStore at " + address(env) + ": " + e.what());
    }
  } else {
    try {
      native_->tcp_store = client(env, timeout);
    } catch (const std::exception& e) {
      throw RendezvousError("rank 0's TCPStore at " + address(env) + " cannot be reached (rank 0 has not arrived?): " +
                            e.what());
    }
  }
  store_ = std::make_unique<C10dStore>(native_->tcp_store);
}

Rendezvous::~Rendezvous() = default;

KeyValueStore& Rendezvous::store() { return *store_; }

std::unique_ptr<KeyValueStore> Rendezvous::connect() {
  try {
    return std::make_unique<C10dStore>(client(env_, timeout_));
  } catch (const std::exception& e) {
    throw RendezvousError("rank " + std::to_string(env_.rank) + " cannot open a second connection to the TCPStore at " +
                          address(env_) + ": " + e.what());
  }
}

}  // namespace accel::dist
