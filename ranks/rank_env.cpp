#include "rank_env.hpp"

#include <cstdlib>
#include <limits>

namespace accel::ranks {
namespace {

const char* required(const std::function<const char*(const char*)>& lookup, const char* name) {
  const char* value = lookup(name);
  if (!value || !*value) {
    throw RankEnvError(std::string("environment variable ") + name +
                       " is not set (run under torchrun or `accel-sim launch`, which set RANK, WORLD_SIZE, "
                       "LOCAL_RANK, MASTER_ADDR and MASTER_PORT)");
  }
  return value;
}

std::int64_t integer(const std::function<const char*(const char*)>& lookup, const char* name, std::int64_t min,
                     std::int64_t max) {
  const std::string text = required(lookup, name);
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < min || v > max) {
    throw RankEnvError(std::string("environment variable ") + name + "=" + text + " is not an integer in [" +
                       std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

}  // namespace

RankEnv rank_env_from(const std::function<const char*(const char*)>& lookup) {
  RankEnv env;
  env.world_size = integer(lookup, "WORLD_SIZE", 1, 1 << 20);
  env.rank = integer(lookup, "RANK", 0, env.world_size - 1);
  env.local_rank = integer(lookup, "LOCAL_RANK", 0, 1 << 20);
  env.master_addr = required(lookup, "MASTER_ADDR");
  env.master_port = static_cast<std::uint16_t>(integer(lookup, "MASTER_PORT", 1, 65535));
  for (const char* name : {"ACCEL_SIM_JOB_ID", "TORCHELASTIC_RUN_ID"}) {
    if (const char* id = lookup(name); id && *id) {
      env.job_id = id;
      break;
    }
  }
  return env;
}

RankEnv rank_env_from_process() {
  return rank_env_from([](const char* name) { return std::getenv(name); });
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

}  // namespace accel::ranks
