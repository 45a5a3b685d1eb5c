// BatchSamplerShard: Accelerate's documented examples, and the direct O(1)-per-batch computation
// against a plain replay of Accelerate's loop over every small configuration.
#include <gtest/gtest.h>

#include "core/batch_sampler_shard.hpp"
#include "core/error.hpp"

namespace accel {
namespace {

std::vector<Batch> fixed_batches(std::int64_t n, std::int64_t b, bool drop_last) {
  std::vector<Batch> out;
  for (std::int64_t start = 0; start < n; start += b) {
    Batch batch;
    for (std::int64_t i = start; i < std::min(n, start + b); ++i) batch.push_back(i);
    if (drop_last && static_cast<std::int64_t>(batch.size()) < b) break;
    out.push_back(batch);
  }
  return out;
}

std::vector<Batch> direct(const BatchSamplerShard& shard, const SampleOrder& order) {
  std::vector<Batch> out;
  for (std::int64_t j = 0; j < shard.num_batches(); ++j) out.push_back(shard.batch_ids(j, order));
  return out;
}

TEST(BatchSamplerShard, DocumentedTwoProcessExample) {
  // Accelerate's docstring: sampler [[0,1,2,3],[4,5,6,7]] on two processes.
  const std::vector<Batch> batches = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  EXPECT_EQ(replay_batch_sampler_shard(batches, 4, false, {2, 0, false, true}), (std::vector<Batch>{{0, 1, 2, 3}}));
  EXPECT_EQ(replay_batch_sampler_shard(batches, 4, false, {2, 1, false, true}), (std::vector<Batch>{{4, 5, 6, 7}}));
  EXPECT_EQ(replay_batch_sampler_shard(batches, 4, false, {2, 0, true, true}), (std::vector<Batch>{{0, 1}, {4, 5}}));
  EXPECT_EQ(replay_batch_sampler_shard(batches, 4, false, {2, 1, true, true}), (std::vector<Batch>{{2, 3}, {6, 7}}));
}

TEST(BatchSamplerShard, EvenBatchesPadFromTheStartOfTheEpoch) {
  // 10 samples, batch 3, 2 ranks: batches [0,1,2] [3,4,5] [6,7,8] [9]; the last round is completed
  // with samples 0, 1 then 2, 3, 4 (the first num_processes batches, cycled).
  const BatchSamplerShard r0(BatchSampler{3, false}, 10, {2, 0, false, true});
  const BatchSamplerShard r1(BatchSampler{3, false}, 10, {2, 1, false, true});
  const auto order = SampleOrder::sequential(10);
  EXPECT_EQ(direct(r0, order), (std::vector<Batch>{{0, 1, 2}, {6, 7, 8}}));
  EXPECT_EQ(direct(r1, order), (std::vector<Batch>{{3, 4, 5}, {9, 0, 1}}));
  EXPECT_EQ(r0.size(), 2);
}

TEST(BatchSamplerShard, SplitWithBatchSizeNotMultipleOfRanksIsRejected) {
  try {
    BatchSamplerShard(BatchSampler{3, false}, 10, {2, 0, true, true});
    FAIL() << "expected ValueError";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::ValueError);
    EXPECT_NE(e.message().find("batch size (3)"), std::string::npos);
  }
}

TEST(BatchSamplerShard, DirectEqualsReplayOnEverySmallConfig) {
  int configs = 0;
  for (std::int64_t R = 1; R <= 5; ++R) {
    for (std::int64_t b = 1; b <= 6; ++b) {
      for (std::int64_t n = 0; n <= 40; ++n) {
        for (int flags = 0; flags < 8; ++flags) {
          const bool split = flags & 1, even = flags & 2, drop = flags & 4;
          if (split && b % R != 0) continue;
          const auto batches = fixed_batches(n, b, drop);
          for (std::int64_t r = 0; r < R; ++r) {
            const ShardOptions o{R, r, split, even};
            const BatchSamplerShard shard(BatchSampler{b, drop}, n, o);
            const auto expected = replay_batch_sampler_shard(batches, b, drop, o);
            ASSERT_EQ(direct(shard, SampleOrder::sequential(n)), expected)
                << "R=" << R << " r=" << r << " b=" << b << " n=" << n << " split=" << split << " even=" << even
                << " drop_last=" << drop;
            ASSERT_EQ(shard.size(), replay_batch_sampler_shard_len(static_cast<std::int64_t>(batches.size()), drop, o));
            ++configs;
          }
        }
      }
    }
  }
  EXPECT_GT(configs, 10000);
}

TEST(BatchSamplerShard, VaryingBatchesEvenCyclesWholeInitialBatches) {
  // No batch size: the tail is completed with whole batches from the start.
  const std::vector<Batch> batches = {{0, 1, 2}, {3, 4}, {5, 6, 7, 8}};
  EXPECT_EQ(replay_batch_sampler_shard(batches, std::nullopt, false, {2, 1, false, true}),
            (std::vector<Batch>{{3, 4}, {0, 1, 2}}));
  EXPECT_EQ(replay_batch_sampler_shard(batches, std::nullopt, false, {2, 1, false, false}),
            (std::vector<Batch>{{3, 4}}));
}

}  // namespace
}  // namespace accel
