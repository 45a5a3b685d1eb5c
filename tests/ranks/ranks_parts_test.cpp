// The small parts of real ranks: torchrun's environment, and how objects travel as fixed messages.
#include <gtest/gtest.h>

#include <map>

#include "ranks/collective_encoding.hpp"
#include "ranks/rank_env.hpp"

namespace accel::ranks {
namespace {

RankEnv from(const std::map<std::string, std::string>& vars) {
  return rank_env_from([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

const std::map<std::string, std::string> kTorchrun = {
    {"RANK", "2"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}};

TEST(RankEnv, ReadsTorchrunsVariables) {
  const RankEnv env = from(kTorchrun);
  EXPECT_EQ(env.rank, 2);
  EXPECT_EQ(env.world_size, 4);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.master_addr, "127.0.0.1");
  EXPECT_EQ(env.master_port, 29500);
}

TEST(RankEnv, NamesEachMissingVariable) {
  for (const auto& [name, value] : kTorchrun) {
    auto vars = kTorchrun;
    vars.erase(name);
    try {
      from(vars);
      ADD_FAILURE() << name;
    } catch (const RankEnvError& e) {
      EXPECT_NE(std::string(e.what()).find("environment variable " + name + " is not set"), std::string::npos) << e.what();
    }
  }
}

TEST(RankEnv, RejectsARankOutsideTheWorld) {
  auto vars = kTorchrun;
  vars["RANK"] = std::string("4");  // (a std::string: GCC 12 -Wrestrict misfires on = "...")
  EXPECT_THROW(from(vars), RankEnvError);
  vars["RANK"] = std::string("x");
  EXPECT_THROW(from(vars), RankEnvError);
}

TEST(RankEnv, Loopback) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
}

TEST(CollectiveEncoding, ShortAndLongObjectsRoundTrip) {
  for (std::int64_t n : {0, 1, 3, 15, 16, 40}) {
    std::vector<std::int64_t> object;
    for (std::int64_t i = 0; i < n; ++i) object.push_back(i * 7 - 3);
    const auto head = object_head(object);
    ASSERT_EQ(static_cast<std::int64_t>(head.size()), kObjectSlots);
    EXPECT_EQ(object_length(head), n);
    const std::vector<std::int64_t> rest(object.begin() + std::min<std::int64_t>(n, kObjectSlots - 1), object.end());
    EXPECT_EQ(object_from(head, rest), object) << n;
  }
}

}  // namespace
}  // namespace accel::ranks
