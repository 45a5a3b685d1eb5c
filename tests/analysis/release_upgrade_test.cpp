// The upgrade of a job too large to replay (issue 48): what the structural comparison says, worked out by hand.
#include <gtest/gtest.h>

#include "analysis/release_upgrade.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::analysis {
namespace {

using accel::testing::map_case;

UpgradeSide side(trace::LoaderCase c, AccelerateRelease release) {
  c.prepare.release = release;
  return UpgradeSide{c, std::nullopt, std::nullopt};
}

TEST(UpgradeStructure, ReplayPositionsAreEpochsTimesSamples) {
  trace::LoaderCase c = map_case(64, 10'000'000, 1);
  c.epochs = 3;
  EXPECT_EQ(upgrade_replay_positions(c), 30'000'000);
  EXPECT_GT(upgrade_replay_positions(c), kUpgradeReplayLimit);
  c.loader.num_samples = 20'000'000;  // a RandomSampler drawing more than the dataset holds
  EXPECT_EQ(upgrade_replay_positions(c), 60'000'000);
}

TEST(UpgradeStructure, ComparesTheFirstPassOnlyAndSaysSo) {
  // 11 samples in batches of 2 on 3 ranks: 6 batches, 2 per rank under both releases, the last padded with sample 0.
  trace::LoaderCase c = map_case(3, 11, 2);
  c.loader.shuffle = true;
  c.torch_manual_seed = 1;
  const UpgradeReport r =
      upgrade_structure(side(c, {0, 14, 0}), side(c, {1, 15, 0}), {"resume (--resume-at E:S): why"}, "too large");
  EXPECT_FALSE(r.replayed);
  EXPECT_TRUE(r.nothing_changes());
  ASSERT_EQ(r.not_compared.size(), 2u);
  EXPECT_EQ(r.not_compared[0],
            "every rank's ids and order, the passes after the first, the resume and the evaluation: too large");
  EXPECT_EQ(r.not_compared[1], "resume (--resume-at E:S): why");
  ASSERT_FALSE(r.rules.empty());
  EXPECT_EQ(r.rules.front().rfind("shuffle: 0.14.0: ", 0), 0u) << r.rules.front();
}

TEST(UpgradeStructure, NamesTheRanksWhoseStepsChange) {
  // 10 samples in batches of 2 on 3 ranks: 5 batches. even_batches pads a 6th with samples 0 and 1 (2 seen twice);
  // without it rank 2 takes 1 step instead of 2.
  const trace::LoaderCase even = map_case(3, 10, 2);
  trace::LoaderCase uneven = even;
  uneven.prepare.even_batches = false;
  const UpgradeReport r = upgrade_structure(side(even, {1, 15, 0}), side(uneven, {1, 15, 0}), {}, "too large");
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].where, "rank 2, epoch 0");
  EXPECT_EQ(r.changes[0].what, "steps 2 -> 1");
  EXPECT_EQ(r.changes[1].where, "epoch 0");
  EXPECT_EQ(r.changes[1].what, "samples seen more than once across the ranks 2 -> 0");
}

TEST(UpgradeStructure, RanksShufflingApartAreNotCounted) {
  // No seed and no synchronised generator: every rank draws its own order, which only a replay can compare.
  trace::LoaderCase c = map_case(2, 10, 1);
  c.loader.shuffle = true;
  c.prepare.synchronize_generator = false;
  const UpgradeReport r = upgrade_structure(side(c, {1, 15, 0}), side(c, {1, 16, 0}), {}, "too large");
  EXPECT_TRUE(r.changes.empty());
  ASSERT_FALSE(r.not_compared.empty());
  EXPECT_EQ(r.not_compared[0], "every rank and pass, the resume and the evaluation: too large");
}

}  // namespace
}  // namespace accel::analysis
