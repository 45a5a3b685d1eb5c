// DataLoader workers over an iterable dataset: the round-robin and the per-worker streams, against what torch's
// _MultiProcessingDataLoaderIter yields (runs of torch 2.15 with real worker processes; the gloo-group cases are
// golden/cases*/workers-*).
#include <gtest/gtest.h>

#include "core/data_loader_workers.hpp"
#include "core/prepare_data_loader.hpp"

namespace accel {
namespace {

std::vector<Batch> all_batches(const WorkerBatches& w, std::int64_t n) {
  const SampleOrder order = SampleOrder::sequential(n);
  std::vector<Batch> out;
  for (std::int64_t j = 0; j < w.num_batches(); ++j) out.push_back(w.batch_ids(j, order));
  return out;
}

DataLoaderWorkers workers(std::int64_t w, WorkerSplit split) {
  DataLoaderWorkers out;
  out.num_workers = w;
  out.split = split;
  return out;
}

TEST(WorkerRoundRobin, ExhaustedWorkersDropOutAtTheirTurn) {
  const WorkerRoundRobin rr({1, 3, 2});
  ASSERT_EQ(rr.size(), 6);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected = {{0, 0}, {1, 0}, {2, 0}, {1, 1}, {2, 1}, {1, 2}};
  for (std::int64_t j = 0; j < rr.size(); ++j) {
    EXPECT_EQ(rr.at(j).worker, expected[static_cast<std::size_t>(j)].first) << j;
    EXPECT_EQ(rr.at(j).index, expected[static_cast<std::size_t>(j)].second) << j;
  }
  EXPECT_EQ(rr.taken_from(0, 4), 1);
  EXPECT_EQ(rr.taken_from(1, 4), 2);
  EXPECT_EQ(rr.taken_from(2, 4), 1);
  EXPECT_EQ(rr.taken_from(2, 6), 2);
}

TEST(WorkerRoundRobin, AWorkerWithNothingIsSkipped) {
  const WorkerRoundRobin rr({0, 2, 0, 1});
  ASSERT_EQ(rr.size(), 3);
  EXPECT_EQ(rr.at(0).worker, 1);
  EXPECT_EQ(rr.at(1).worker, 3);
  EXPECT_EQ(rr.at(2).worker, 1);
  EXPECT_EQ(rr.at(2).index, 1);
}

// torch: DataLoader(stream of 7, batch_size=2, num_workers=3), the dataset ignoring get_worker_info().
TEST(WorkerBatches, EveryWorkerYieldsTheWholeStreamWithoutASplit) {
  const WorkerBatches w(7, IterableShardOptions{2, false, 1, 0, false}, false, workers(3, WorkerSplit::None));
  const std::vector<Batch> expected = {{0, 1}, {0, 1}, {0, 1}, {2, 3}, {2, 3}, {2, 3},
                                       {4, 5}, {4, 5}, {4, 5}, {6},    {6},    {6}};
  EXPECT_EQ(all_batches(w, 7), expected);
}

// torch: the same with islice(stream, worker_id, None, 3): each worker batches its own part.
TEST(WorkerBatches, AStridedSplitInterleavesTheWorkersBatches) {
  const WorkerBatches keep(7, IterableShardOptions{2, false, 1, 0, false}, false, workers(3, WorkerSplit::Strided));
  EXPECT_EQ(all_batches(keep, 7), (std::vector<Batch>{{0, 3}, {1, 4}, {2, 5}, {6}}));
  // drop_last drops every worker's short batch: sample 6 is never seen.
  const WorkerBatches drop(7, IterableShardOptions{2, true, 1, 0, false}, false, workers(3, WorkerSplit::Strided));
  EXPECT_EQ(all_batches(drop, 7), (std::vector<Batch>{{0, 3}, {1, 4}, {2, 5}}));
}

TEST(WorkerBatches, AContiguousSplitGivesEachWorkerItsBlock) {
  // ceil(10 / 4) = 3 per worker: [0,3) [3,6) [6,9) [9,10).
  const WorkerBatches w(10, IterableShardOptions{2, false, 1, 0, false}, false, workers(4, WorkerSplit::Contiguous));
  EXPECT_EQ(all_batches(w, 10), (std::vector<Batch>{{0, 1}, {3, 4}, {6, 7}, {9}, {2}, {5}, {8}}));
}

// Recorded (golden/cases/workers-iter-n2-w4-strided-l10-b3): each worker's IterableDatasetShard pads its short
// real batch from that worker's own first batch.
TEST(WorkerBatches, EachWorkersShardPadsFromItsOwnStream) {
  const auto rank = [](std::int64_t r) {
    return all_batches(
        WorkerBatches(10, IterableShardOptions{3, false, 2, r, false}, true, workers(4, WorkerSplit::Strided)), 10);
  };
  EXPECT_EQ(rank(0), (std::vector<Batch>{{0, 4, 8}, {1, 5, 9}, {2, 6, 2}, {3, 7, 3}}));
  EXPECT_EQ(rank(1), (std::vector<Batch>{{0, 4, 8}, {1, 5, 9}, {6, 2, 6}, {7, 3, 7}}));
}

TEST(WorkerStream, AWorkerPastTheEndOfAShortStreamYieldsNothing) {
  EXPECT_EQ(worker_stream(2, workers(4, WorkerSplit::Strided), 3).length, 0);
  EXPECT_EQ(worker_stream(2, workers(4, WorkerSplit::Contiguous), 3).length, 0);
  EXPECT_EQ(worker_stream(2, workers(4, WorkerSplit::None), 3).length, 2);
}

// len() ignores workers, as torch's does for an iterable dataset.
TEST(WorkerBatches, LenOfThePreparedLoaderIgnoresWorkers) {
  DataLoaderArgs dl;
  dl.dataset_kind = DatasetKind::Iterable;
  dl.dataset_len = 13;
  dl.batch_size = 2;
  dl.workers = workers(3, WorkerSplit::None);
  PrepareOptions po;
  po.num_processes = 2;
  DataLoaderShard loader = std::get<DataLoaderShard>(prepare_data_loader(dl, po));
  EXPECT_EQ(loader.len().value(), 4);
  EXPECT_EQ(loader.iterate().num_batches(), 12);
}

}  // namespace
}  // namespace accel
