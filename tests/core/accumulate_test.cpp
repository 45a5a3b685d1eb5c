// Accelerator.accumulate()'s sync decision over real prepared loaders.
#include <gtest/gtest.h>

#include <vector>

#include "core/accumulate.hpp"
#include "core/prepare_data_loader.hpp"

namespace accel {
namespace {

// sync_gradients for every micro-step of `epochs` passes over rank 0's loader of `len` samples.
std::vector<bool> sync_pattern(std::int64_t len, std::int64_t ranks, std::int64_t k, bool sync_with_dataloader,
                               std::int64_t epochs) {
  DataLoaderArgs dl;
  dl.dataset_len = len;
  PrepareOptions po;
  po.num_processes = ranks;
  DataLoaderShard loader = std::get<DataLoaderShard>(prepare_data_loader(dl, po));
  GradientState state = GradientState::from_plugin({.num_steps = k, .sync_with_dataloader = sync_with_dataloader});
  Accumulator acc;
  std::vector<bool> out;
  for (std::int64_t e = 0; e < epochs; ++e) {
    const LoaderPass pass = loader.iterate();
    state.begin_dataloader();
    for (std::int64_t j = 0; j < pass.num_batches(); ++j) {
      state.update_dataloader(pass.end_of_dataloader(j), pass.remainder);
      out.push_back(acc.do_sync(state));
    }
    state.end_dataloader();
  }
  return out;
}

TEST(Accumulate, SyncsEveryKthMicroStep) {
  // 12 samples on 2 ranks: 6 batches each, K = 3 divides them.
  EXPECT_EQ(sync_pattern(12, 2, 3, true, 1), (std::vector<bool>{false, false, true, false, false, true}));
}

TEST(Accumulate, LastBatchOfAnEpochAlwaysSyncsAndRestartsTheCount) {
  // 10 samples on 2 ranks: 5 batches, K = 4. Batch 3 completes a group; batch 4 is the last one, which
  // syncs early; the second epoch counts from 0 again.
  const std::vector<bool> epoch = {false, false, false, true, true};
  std::vector<bool> two = epoch;
  two.insert(two.end(), epoch.begin(), epoch.end());
  EXPECT_EQ(sync_pattern(10, 2, 4, true, 2), two);
}

TEST(Accumulate, WithoutSyncWithDataloaderTheCountRunsAcrossEpochs) {
  // Micro-steps 1..10 counted continuously: syncs at counts 4 and 8 only, and the epoch ends unsynced.
  EXPECT_EQ(sync_pattern(10, 2, 4, false, 2),
            (std::vector<bool>{false, false, false, true, false, false, false, true, false, false}));
}

TEST(Accumulate, OutsideADataloaderOnlyTheCountMatters) {
  GradientState state = GradientState::from_plugin({.num_steps = 3});
  Accumulator acc;
  std::vector<bool> got;
  for (int i = 0; i < 7; ++i) got.push_back(acc.do_sync(state));
  EXPECT_EQ(got, (std::vector<bool>{false, false, true, false, false, true, false}));
  EXPECT_EQ(acc.step(), 7);
}

}  // namespace
}  // namespace accel
