// The rendezvous of real ranks: rank 0 hosts c10d's TCPStore at MASTER_ADDR:MASTER_PORT, every rank
// connects to it. The store carries heartbeats, the NCCL unique id, Gloo's own rendezvous and the
// per-rank records; LibTorch stays behind this header (see c10d_store.hpp for the transports).
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "key_value_store.hpp"
#include "rank_env.hpp"

namespace accel::ranks {

// The store could not be started or reached; the message says which rank and address.
class RendezvousError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What rank 0 writes into its store and every other rank checks before it writes anything: the job id,
// the world size and `what` (the rank driver passes a digest of the job's config, so that two jobs without
// an id, e.g. started by hand on one MASTER_PORT, differ unless they run the same config).
std::string job_identity(const RankEnv& env, const std::string& what = "");

// A short, stable digest of `text` (FNV-1a, 16 hex digits): the same in every process and on every host.
std::string digest(const std::string& text);

// glog, which c10d and Gloo log through, initialised (to stderr only, warnings and errors): uninitialised it
// prefixes its first line with "WARNING: Logging before InitGoogleLogging() is written to STDERR".
void init_logging(const char* argv0);

// An exception's message without the C++ backtrace LibTorch's c10::Error carries.
std::string torch_message(const std::exception& e);

class Rendezvous {
 public:
  // Rank 0 starts the server, listening on MASTER_ADDR only; every other rank connects a client, retrying
  // until `timeout` (rank 0 may start last), and checks that the store is its job's (job_identity(env,
  // what)). Then each rank claims its RANK in the store, once: a second process with the same RANK (a rank
  // of another job with the same identity) is refused there, before it writes anything else. Every wait
  // here, the client handshake included, ends within `timeout`. Raises RendezvousError.
  Rendezvous(const RankEnv& env, std::chrono::milliseconds timeout, const std::string& what = "");
  ~Rendezvous();
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  const RankEnv& env() const noexcept { return env_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }

  // The calling thread's client.
  KeyValueStore& store();
  // Another client, for another thread, whose every request must be answered within `answer_within`
  // (else StoreUnreachable): the peer monitor's, which must tell a stopped rank 0 in that time.
  std::unique_ptr<KeyValueStore> connect(std::chrono::milliseconds answer_within);

  struct Native;  // c10d's objects, for the transports (c10d_store.hpp)
  Native& native() { return *native_; }

 private:
  RankEnv env_;
  std::chrono::milliseconds timeout_;
  std::string identity_;
  std::unique_ptr<Native> native_;
  std::unique_ptr<KeyValueStore> store_;
};

}  // namespace accel::ranks
