// Who this process is in the job, from torchrun's environment: RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR, MASTER_PORT. `accel-sim launch` sets the same variables, so one rank driver serves both.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace accel::ranks {

struct RankEnv {
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
  std::int64_t local_rank = 0;
  std::string master_addr;
  std::uint16_t master_port = 0;
  // Who the job is (ACCEL_SIM_JOB_ID, set by `accel-sim launch`; else torchrun's TORCHELASTIC_RUN_ID; else
  // empty): a rank refuses a store whose job differs, instead of joining another job on the same port.
  std::string job_id;
};

// A variable is missing or malformed; the message names it.
class RankEnvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the variables through `lookup` (std::getenv in the driver; a map in tests). Every integer keeps the
// one rule of trace/decimal_integer.hpp (RANK=01 is refused), WORLD_SIZE is at most trace::kMaxRanks, and
// MASTER_ADDR must be an IPv4 or IPv6 address or a name that resolves (check_master_addr).
RankEnv rank_env_from(const std::function<const char*(const char*)>& lookup);
RankEnv rank_env_from_process();

// MASTER_ADDR is usable: a dotted IPv4 address of four integers in [0, 255], an IPv6 address, or a host name
// that resolves; RankEnvError naming MASTER_ADDR otherwise (256.1.1.1 is bad input, not a failed job).
void check_master_addr(const std::string& address);

// Whether MASTER_ADDR names this machine's loopback, where Gloo must bind 127.0.0.1 too.
bool is_loopback(const std::string& address);

}  // namespace accel::ranks
