#include "rank_env.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstdlib>

#include "trace/decimal_integer.hpp"
#include "trace/input_limits.hpp"

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

// The one rule for integers a user writes (trace/decimal_integer.hpp): RANK=01 or MASTER_PORT=0x50 are refused.
std::int64_t integer(const std::function<const char*(const char*)>& lookup, const char* name, std::int64_t min,
                     std::int64_t max) {
  const std::string text = required(lookup, name);
  const auto read = trace::read_decimal_integer(text, min, max);
  if (!read.value) throw RankEnvError(std::string("environment variable ") + name + " " + read.problem);
  return *read.value;
}

}  // namespace

RankEnv rank_env_from(const std::function<const char*(const char*)>& lookup) {
  RankEnv env;
  env.world_size = integer(lookup, "WORLD_SIZE", 1, trace::kMaxRanks);
  env.rank = integer(lookup, "RANK", 0, env.world_size - 1);
  env.local_rank = integer(lookup, "LOCAL_RANK", 0, trace::kMaxRanks - 1);
  env.master_addr = required(lookup, "MASTER_ADDR");
  check_master_addr(env.master_addr);
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

void check_master_addr(const std::string& address) {
  const auto refuse = [&](const std::string& why) {
    throw RankEnvError("environment variable MASTER_ADDR=" + address + " " + why);
  };
  // Digits and dots only: an IPv4 address, four integers in [0, 255] (getaddrinfo would ask DNS for
  // "256.1.1.1", and read "127.1" or "0177.0.0.1" as inet_aton does).
  if (address.find_first_not_of("0123456789.") == std::string::npos) {
    std::size_t parts = 0, start = 0;
    while (true) {
      const std::size_t dot = address.find('.', start);
      const std::string part = address.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      const auto read = trace::read_decimal_integer(part, 0, 255);
      if (!read.value) refuse("is not an IPv4 address: part " + std::to_string(parts + 1) + " " + read.problem);
      ++parts;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (parts != 4) refuse("is not an IPv4 address: it must have 4 parts (a.b.c.d, each an integer in [0, 255]), got " +
                           std::to_string(parts));
    return;
  }
  in6_addr v6{};
  if (address.find(':') != std::string::npos) {
    if (::inet_pton(AF_INET6, address.c_str(), &v6) != 1) refuse("is not an IPv6 address");
    return;
  }
  // A host name: it must resolve (a name that does not is this job's environment, not a failure of the job).
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(address.c_str(), nullptr, &hints, &found);
  if (rc != 0 || !found) refuse(std::string("does not resolve to an address (") + ::gai_strerror(rc) + ")");
  ::freeaddrinfo(found);
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

}  // namespace accel::ranks
