// Whole-job behaviours the simulator must show: where uneven ranks hang, and what an unsynchronised
// shuffle does to coverage.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sim/simulator.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::sim {
namespace {

using accel::testing::map_case;

std::map<SampleId, int> counts(const trace::Trace& t) {
  std::map<SampleId, int> seen;
  for (const auto& r : std::get<std::vector<trace::RankRecord>>(t.body)) {
    for (const auto& b : r.epochs.at(0).batches) for (SampleId id : b) ++seen[id];
  }
  return seen;
}

TEST(Simulator, UnevenBatchesHangInTheFirstCollectiveTheShortRanksSkip) {
  // 10 samples, batch 1, 3 ranks, even_batches=False: rank 0 gets 4 batches, ranks 1 and 2 get 3.
  auto c = map_case(3, 10, 1);
  c.prepare.even_batches = false;
  const auto ranks = simulate_lockstep(c);
  ASSERT_EQ(ranks.size(), 3u);
  ASSERT_TRUE(ranks[0].hang.has_value());
  EXPECT_EQ(ranks[0].hang_epoch, 0);
  EXPECT_EQ(ranks[0].hang_step, 3);
  EXPECT_NE(ranks[0].hang->find("ranks 1, 2 finished without entering it"), std::string::npos) << *ranks[0].hang;
  EXPECT_FALSE(ranks[1].hang.has_value());
  EXPECT_EQ(ranks[1].steps_per_epoch, (std::vector<std::int64_t>{3}));
  c.prepare.even_batches = true;
  for (const auto& r : simulate_lockstep(c)) EXPECT_FALSE(r.hang.has_value());
}

TEST(Simulator, UnsynchronisedShuffleDuplicatesAndLosesSamples) {
  // torch's RandomSampler (not the seedable one), each rank seeded differently (set_seed(s + rank)).
  auto c = map_case(4, 64, 4);
  c.loader.shuffle = true;
  c.torch_manual_seed = 1234;
  c.seed_per_rank = true;
  const auto unsynced = counts(simulate(c));
  const auto duplicated = std::count_if(unsynced.begin(), unsynced.end(), [](const auto& kv) { return kv.second > 1; });
  EXPECT_LT(unsynced.size(), 64u) << "some samples must be lost";
  EXPECT_GT(duplicated, 0) << "some samples must be seen twice";

  c.prepare.synchronize_generator = true;  // rng_types=["generator"], Accelerator's default
  const auto synced = counts(simulate(c));
  ASSERT_EQ(synced.size(), 64u);
  for (const auto& [id, n] : synced) EXPECT_EQ(n, 1) << "sample " << id;
}

TEST(Simulator, DispatcherRunsOverTheCommunicatorAndCoversEverySample) {
  auto c = map_case(3, 10, 2);
  c.prepare.dispatch_batches = true;
  c.prepare.put_on_device = true;
  const auto t = simulate(c);
  ASSERT_FALSE(t.error.has_value());
  const auto seen = counts(t);
  EXPECT_EQ(seen.size(), 10u);
}

}  // namespace
}  // namespace accel::sim
