// DataLoaderShard state across passes: iteration counter, sampler epoch, skip_first_batches sharing.
#include <gtest/gtest.h>

#include "core/prepare_data_loader.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel {
namespace {

using testing::map_loader;

std::vector<Batch> all_batches(const LoaderPass& p) {
  std::vector<Batch> out;
  for (std::int64_t j = 0; j < p.num_batches(); ++j) out.push_back(p.batch(j));
  return out;
}

DataLoaderShard seeded_loader(std::int64_t rank, AccelerateRelease release = kDefaultRelease) {
  const DataLoaderArgs dl = map_loader(20, 3, false, true);
  PrepareOptions po;
  po.release = release;
  po.num_processes = 2;
  po.process_index = rank;
  po.use_seedable_sampler = true;
  po.data_seed = 42;
  return std::get<DataLoaderShard>(prepare_data_loader(dl, po));
}

TEST(DataLoaderShard, EndOfDataloaderOnlyOnLastBatchAndIterationCounts) {
  DataLoaderShard loader = seeded_loader(0);
  const LoaderPass p = loader.iterate();
  ASSERT_EQ(p.num_batches(), 4);
  EXPECT_FALSE(p.end_of_dataloader(2));
  EXPECT_TRUE(p.end_of_dataloader(3));
  EXPECT_EQ(p.remainder, 20 % 6);
  EXPECT_EQ(loader.iteration(), 1);
  EXPECT_EQ(loader.sampler_epoch(), 1);
}

TEST(DataLoaderShard, SkippedLoaderYieldsTheSuffixAndDoesNotAdvanceThePreparedOne) {
  DataLoaderShard prepared = seeded_loader(1);
  DataLoaderShard reference = seeded_loader(1);
  const auto full = all_batches(reference.iterate());
  DataLoaderShard skipped = prepared.skip_first_batches(1);
  const auto suffix = all_batches(skipped.iterate());
  EXPECT_EQ(suffix, std::vector<Batch>(full.begin() + 1, full.end()));
  EXPECT_EQ(prepared.iteration(), 0);
  // 1.16.0 (the default) reads total_batch_size through the SkipBatchSampler; 1.15.0's raises.
  EXPECT_EQ(skipped.total_batch_size().value(), 6);
  EXPECT_FALSE(seeded_loader(1, kBaselineRelease).skip_first_batches(1).total_batch_size().ok());
  // The next pass of the prepared loader replays epoch 0's permutation (its counter did not move).
  EXPECT_EQ(all_batches(prepared.iterate()), full);
}

TEST(DataLoaderShard, EmptyPassDoesNotCountAnIteration) {
  const DataLoaderArgs dl = map_loader(0, 2);
  PrepareOptions po;
  po.num_processes = 2;
  DataLoaderShard loader = std::get<DataLoaderShard>(prepare_data_loader(dl, po));
  EXPECT_EQ(loader.iterate().num_batches(), 0);
  EXPECT_EQ(loader.iteration(), 0);
}

}  // namespace
}  // namespace accel
