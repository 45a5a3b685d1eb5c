// HfStreamPlan on jobs worked out by hand from datasets' and Accelerate's loops (property 17b compares it with the
// per-rank loaders over thousands of generated jobs).
#include <gtest/gtest.h>

#include "core/hf_iterable_dataset.hpp"
#include "core/hf_stream_plan.hpp"

namespace accel {
namespace {

DataLoaderArgs hf(std::vector<std::int64_t> sizes, std::int64_t batch_size, std::int64_t workers) {
  DataLoaderArgs a;
  a.dataset_kind = DatasetKind::Iterable;
  a.hf_dataset = HfIterableDataset::from_shards(sizes);
  a.dataset_len = a.hf_dataset->dataset_len();
  a.batch_size = batch_size;
  a.workers.num_workers = workers;
  return a;
}

PrepareOptions ranks(std::int64_t r, bool dispatch) {
  PrepareOptions o;
  o.num_processes = r;
  o.dispatch_batches = dispatch;
  o.put_on_device = dispatch;
  return o;
}

std::vector<std::int64_t> times(const HfStreamPlan& plan, std::int64_t n) {
  std::vector<std::int64_t> t(static_cast<std::size_t>(n), 0);
  for (const PositionRun& r : plan.id_runs())
    for (std::int64_t id = r.begin; id < r.end; ++id) t[static_cast<std::size_t>(id)] += r.times;
  return t;
}

// Shards of 3, 0 and 2 examples (ids 0-2, none, 3-4) on 2 ranks: n_shards 3 >= 2, so .shard(2, r) hands rank 0
// shards 0 and 1 and rank 1 shard 2, each batched on its own (batch 2): 2 and 1 steps, nothing padded.
TEST(HfStreamPlan, TheShardPathBatchesEachRanksOwnShards) {
  const HfStreamPlan plan(hf({3, 0, 2}, 2, 0), ranks(2, false));
  EXPECT_EQ(plan.batches(0), 2);
  EXPECT_EQ(plan.batches(1), 1);
  EXPECT_EQ(times(plan, 5), (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
  EXPECT_FALSE(plan.len(0).ok());  // a datasets.IterableDataset has no __len__
}

// One shard of 5 on 2 ranks, batch 2: IterableDatasetShard cuts real batches of 4; the second, [4], is completed
// from the stream's start (4, 0, 1, 2): ids 0-2 are read twice.
TEST(HfStreamPlan, FewerShardsThanRanksPadFromTheStreamsStart) {
  const HfStreamPlan plan(hf({5}, 2, 0), ranks(2, false));
  EXPECT_EQ(plan.batches(0), 2);
  EXPECT_EQ(plan.batches(1), 2);
  EXPECT_EQ(times(plan, 5), (std::vector<std::int64_t>{2, 2, 2, 1, 1}));
}

TEST(HfStreamPlan, AShuffledStreamIsReplayed) {
  DataLoaderArgs a = hf({5}, 2, 0);
  a.hf_dataset = a.hf_dataset->shuffle(HfShuffle{1, 4, std::nullopt});
  EXPECT_FALSE(HfStreamPlan::applies(a, ranks(2, false)));
}

}  // namespace
}  // namespace accel
