// The small parts of real ranks: torchrun's environment, and how objects travel as fixed messages.
#include <gtest/gtest.h>

#include <map>

#include "ranks/collective_encoding.hpp"
#include "ranks/rank_env.hpp"
#include "ranks/training_summary.hpp"

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

// Issue 31: one strict rule for every integer variable (trace/decimal_integer.hpp), WORLD_SIZE within the
// simulator's own limit, and MASTER_ADDR checked as bad input (exit 2) rather than failing the job later.
TEST(RankEnv, ReadsIntegersByTheOneStrictRule) {
  const auto refusal = [](const std::string& name, const std::string& value) {
    auto vars = kTorchrun;
    vars[name] = value;
    try {
      from(vars);
    } catch (const RankEnvError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refusal("RANK", "01").find("environment variable RANK must be an integer in [0, 3] written in decimal "
                                       "without leading zeros, got '01'"),
            std::string::npos) << refusal("RANK", "01");
  EXPECT_NE(refusal("RANK", "+1").find("RANK must be"), std::string::npos);
  EXPECT_NE(refusal("RANK", " 1").find("RANK must be"), std::string::npos);
  EXPECT_NE(refusal("MASTER_PORT", "0x50").find("MASTER_PORT must be an integer in [1, 65535]"), std::string::npos);
  EXPECT_NE(refusal("MASTER_PORT", "65536").find("MASTER_PORT must be an integer in [1, 65535]"), std::string::npos);
  EXPECT_NE(refusal("LOCAL_RANK", "-1").find("LOCAL_RANK must be an integer in [0, 65535]"), std::string::npos);
  const std::string world = refusal("WORLD_SIZE", "65537");
  EXPECT_NE(world.find("WORLD_SIZE must be an integer in [1, 65536], got '65537'"), std::string::npos) << world;
  EXPECT_EQ(world.find("1048576"), std::string::npos) << world;
  EXPECT_NE(refusal("WORLD_SIZE", "18446744073709551616").find("WORLD_SIZE must be"), std::string::npos);
  auto vars = kTorchrun;
  vars["WORLD_SIZE"] = std::string("65536");
  EXPECT_EQ(from(vars).world_size, 65536);
}

TEST(RankEnv, RefusesAMasterAddrThatIsNoAddress) {
  for (const std::string addr : {"256.1.1.1", "1.2.3", "1.2.3.4.5", "127.1", "01.2.3.4", "1..2.3", "::zz"}) {
    auto vars = kTorchrun;
    vars["MASTER_ADDR"] = addr;
    try {
      from(vars);
      ADD_FAILURE() << addr << " accepted";
    } catch (const RankEnvError& e) {
      EXPECT_NE(std::string(e.what()).find("environment variable MASTER_ADDR=" + addr + " is not an IPv"),
                std::string::npos) << e.what();
    }
  }
  for (const std::string addr : {"127.0.0.1", "10.255.0.1", "::1", "localhost"}) {
    auto vars = kTorchrun;
    vars["MASTER_ADDR"] = addr;
    EXPECT_EQ(from(vars).master_addr, addr);
  }
}

TEST(RankEnv, Loopback) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
}

// Issue 31: a completed job's counts per rank; a rank that joined early made fewer optimizer steps.
TEST(TrainingSummary, CountsPerRankWhenTheyDiffer) {
  const auto rank = [](std::int64_t r, std::int64_t steps, std::int64_t reduces, std::int64_t shadowed) {
    sim::TrainingRank t;
    t.rank = r;
    t.micro_steps = {steps};
    t.optimizer_steps = steps;
    t.gradient_all_reduces = reduces;
    t.shadowed_all_reduces = shadowed;
    t.scheduler_steps = steps;
    return t;
  };
  sim::TrainingVerdict done;
  done.completed = true;
  std::vector<sim::TrainingRank> ranks = {rank(0, 2, 2, 0), rank(1, 2, 2, 0), rank(2, 2, 2, 0)};
  EXPECT_EQ(training_summary(done, ranks),
            "completed: 2 optimizer steps, 2 gradient all_reduces, 2 scheduler steps per rank");
  ranks[2] = rank(2, 1, 1, 1);
  EXPECT_EQ(training_summary(done, ranks),
            "completed: ranks 0, 1: 2 optimizer steps, 2 gradient all_reduces, 2 scheduler steps; rank 2: 1 optimizer "
            "step, 1 gradient all_reduce (+1 shadowed by Join), 1 scheduler step");
  std::vector<sim::TrainingRank> many;
  for (std::int64_t r = 0; r < 6; ++r) many.push_back(rank(r, r < 4 ? 3 : 2, r < 4 ? 3 : 2, 0));
  EXPECT_EQ(training_summary(done, many),
            "completed: ranks 0-3: 3 optimizer steps, 3 gradient all_reduces, 3 scheduler steps; ranks 4, 5: 2 "
            "optimizer steps, 2 gradient all_reduces, 2 scheduler steps");
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
