#include "rendezvous.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <future>
#include <thread>

#include <glog/logging.h>

#include "c10d_store.hpp"
#include "peer_monitor.hpp"
#include "store_bind.hpp"

namespace accel::ranks {
namespace {

// The key under which rank 0 names its job; read before a rank writes anything to the store.
constexpr const char* kJobKey = "accel/job";
// Setting up one connection to the store (c10d's connect and handshake) may take this long beyond
// --timeout-s: on a loaded machine it alone can take more than a sub-second timeout.
constexpr std::chrono::milliseconds kConnectAllowance{2000};

c10::intrusive_ptr<c10d::TCPStore> client(const RankEnv& env, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = env.master_port;
  options.isServer = false;
  options.waitWorkers = false;  // arrival is the heartbeats' business (PeerMonitor::await_everyone)
  // c10d's client gives up its connect after this long and reports it in whole seconds ("after 0s"): a
  // sub-second --timeout-s gets the connection allowance on top.
  options.timeout = timeout + kConnectAllowance;
  return c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
}

std::string address(const RankEnv& env) { return env.master_addr + ":" + std::to_string(env.master_port); }

// Runs `work` with a deadline. c10d's client handshake and first reads can block on a peer that accepted the
// connection and never answers (a foreign program on MASTER_PORT), past c10d's own timeout; the work goes
// to a thread of its own, and past the deadline it is abandoned there (the rank exits soon after with
// _exit, see rank_main.cpp) and the caller gets the error.
template <class T, class Work>
T within(std::chrono::milliseconds deadline, Work work, const std::string& what) {
  std::packaged_task<T()> task(std::move(work));
  auto result = task.get_future();
  std::thread(std::move(task)).detach();
  if (result.wait_for(deadline) != std::future_status::ready) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", static_cast<double>(deadline.count()) / 1000.0);
    throw RendezvousError(what + ": no answer within the timeout (" + seconds + ")");
  }
  return result.get();
}

// Waits until something listens at MASTER_ADDR:MASTER_PORT (rank 0 starting its store): connection refused
// is arrival, bounded by the timeout plus the startup allowance; what follows (c10d's handshake) is bounded
// by the timeout alone.
void await_listener(const RankEnv& env, std::chrono::milliseconds deadline) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(env.master_port);
  if (::getaddrinfo(env.master_addr.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
    throw RendezvousError("MASTER_ADDR=" + env.master_addr + " does not resolve");
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (true) {
    const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool up = fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0;
    if (fd >= 0) ::close(fd);
    if (up) break;
    if (std::chrono::steady_clock::now() >= until) {
      ::freeaddrinfo(found);
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f s", static_cast<double>(deadline.count()) / 1000.0);
      throw RendezvousError("rank 0's TCPStore at " + address(env) + " cannot be reached (rank 0 has not arrived? "
                            "nothing listened there within " + seconds + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::freeaddrinfo(found);
}

// A client that has checked the store is this job's.
c10::intrusive_ptr<c10d::TCPStore> checked_client(const RankEnv& env, std::chrono::milliseconds timeout,
                                                  const std::string& job) {
  await_listener(env, timeout + MonitorTiming::kStartupAllowance);
  auto store = within<c10::intrusive_ptr<c10d::TCPStore>>(
      timeout + kConnectAllowance,
      [env, timeout] {
        auto s = client(env, timeout);
        // Rank 0 writes the key right after it starts the store; a client may come first.
        s->wait({kJobKey}, timeout);
        return s;
      },
      "the TCPStore at " + address(env));
  const auto bytes = within<std::vector<std::uint8_t>>(
      timeout + kConnectAllowance, [store] { return store->get(kJobKey); }, "the TCPStore at " + address(env));
  const std::string theirs(bytes.begin(), bytes.end());
  if (theirs != job) {
    throw RendezvousError("the TCPStore at " + address(env) + " belongs to another job (" + theirs + "; this is " + job +
                          "); give this job another MASTER_PORT");
  }
  return store;
}

}  // namespace

std::string job_identity(const RankEnv& env, const std::string& what) {
  return "job " + (env.job_id.empty() ? std::string("(no id)") : env.job_id) + " of " + std::to_string(env.world_size) +
         " ranks" + (what.empty() ? "" : ", " + what);
}

std::string digest(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

void init_logging(const char* argv0) {
  FLAGS_logtostderr = true;  // no log files in /tmp
  FLAGS_minloglevel = google::GLOG_WARNING;
  if (!google::IsGoogleLoggingInitialized()) google::InitGoogleLogging(argv0);
}

std::string torch_message(const std::exception& e) {
  // c10::Error's what() carries a C++ backtrace of LibTorch's internals: no use to the user.
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

void C10dStore::set(const std::string& key, const std::string& value) {
  try {
    store_->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
  } catch (const std::exception& e) {
    throw StoreUnreachable(torch_message(e));
  }
}

std::optional<std::string> C10dStore::try_get(const std::string& key) {
  try {
    if (!store_->check({key})) return std::nullopt;
    const auto bytes = store_->get(key);
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    throw StoreUnreachable(torch_message(e));
  }
}

Rendezvous::Rendezvous(const RankEnv& env, std::chrono::milliseconds timeout, const std::string& what)
    : env_(env), timeout_(timeout), identity_(job_identity(env, what)), native_(std::make_unique<Native>()) {
  if (env.rank == 0) {
    c10d::TCPStoreOptions options;
    options.port = env.master_port;
    options.isServer = true;
    options.waitWorkers = false;
    // The server connects a client of its own to itself as it starts: part of rank 0's arrival.
    options.timeout = timeout + MonitorTiming::kStartupAllowance;
    try {
      const ListenOnly on_master_addr(env.master_addr, env.master_port);
      // c10d logs a warning for the wildcard of the other address family, which ListenOnly refuses on
      // purpose, and an error line when the port is taken, which its exception (below) says in full.
      const int log_level = FLAGS_minloglevel;
      FLAGS_minloglevel = google::GLOG_FATAL;
      try {
        native_->tcp_store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
      } catch (...) {
        FLAGS_minloglevel = log_level;
        throw;
      }
      FLAGS_minloglevel = log_level;
      native_->tcp_store->set(kJobKey, std::vector<std::uint8_t>(identity_.begin(), identity_.end()));
    } catch (const std::exception& e) {
      throw RendezvousError("rank 0 cannot start the TCPStore at " + address(env) + ": " + torch_message(e));
    }
  } else {
    try {
      native_->tcp_store = checked_client(env, timeout, identity_);
    } catch (const RendezvousError&) {
      throw;
    } catch (const std::exception& e) {
      throw RendezvousError("rank 0's TCPStore at " + address(env) + " cannot be reached (rank 0 has not arrived?): " +
                            torch_message(e));
    }
  }
  // One process per RANK: the first to claim it gets it. Without a job id two jobs started the same way on one
  // MASTER_PORT have the same identity; the second one's ranks are refused here instead of joining Gloo's
  // mesh of the first (where they waited for a minute, past any --timeout-s).
  const std::string claim = std::string("accel/claim/") + std::to_string(env.rank);
  std::int64_t claims = 0;
  try {
    const auto store = native_->tcp_store;
    claims = within<std::int64_t>(
        timeout + kConnectAllowance, [store, claim] { return store->add(claim, 1); }, "the TCPStore at " + address(env));
  } catch (const RendezvousError&) {
    throw;
  } catch (const std::exception& e) {
    throw RendezvousError("rank 0's TCPStore at " + address(env) + " cannot be reached: " + torch_message(e));
  }
  if (claims != 1) {
    throw RendezvousError("RANK=" + std::to_string(env.rank) + " of " + identity_ + " has already joined the TCPStore at " +
                          address(env) + ": another job with the same identity uses this MASTER_PORT; give this job "
                          "another MASTER_PORT, or a job id (ACCEL_SIM_JOB_ID or TORCHELASTIC_RUN_ID)");
  }
  store_ = std::make_unique<C10dStore>(native_->tcp_store);
}

Rendezvous::~Rendezvous() = default;

KeyValueStore& Rendezvous::store() { return *store_; }

std::unique_ptr<KeyValueStore> Rendezvous::connect(std::chrono::milliseconds answer_within) {
  try {
    const RankEnv env = env_;
    const auto timeout = timeout_;
    return std::make_unique<C10dStore>(within<c10::intrusive_ptr<c10d::TCPStore>>(
        timeout_ + kConnectAllowance,
        [env, timeout, answer_within] {
          auto s = client(env, timeout);
          // c10d's client gives every later request (its socket's receive timeout, and get's wait) the
          // timeout of its last wait: from here on, `answer_within`. The job's key is there already.
          s->setTimeout(answer_within);
          s->wait({kJobKey}, answer_within);
          return s;
        },
        "rank " + std::to_string(env_.rank) + ": a second connection to the TCPStore at " + address(env_)));
  } catch (const RendezvousError&) {
    throw;
  } catch (const std::exception& e) {
    throw RendezvousError("rank " + std::to_string(env_.rank) + " cannot open a second connection to the TCPStore at " +
                          address(env_) + ": " + torch_message(e));
  }
}

}  // namespace accel::ranks
