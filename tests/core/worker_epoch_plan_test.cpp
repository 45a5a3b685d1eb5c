// WorkerEpochPlan: a job's workers in closed form, on jobs small enough to work out by hand from Accelerate's and
// torch's loops (property 15b compares it with the per-rank loaders over thousands of generated jobs).
#include <gtest/gtest.h>

#include "core/worker_epoch_plan.hpp"

namespace accel {
namespace {

DataLoaderArgs iterable(std::int64_t n, std::int64_t batch_size, std::int64_t workers, WorkerSplit split) {
  DataLoaderArgs a;
  a.dataset_kind = DatasetKind::Iterable;
  a.dataset_len = n;
  a.batch_size = batch_size;
  a.workers.num_workers = workers;
  a.workers.split = split;
  return a;
}

PrepareOptions ranks(std::int64_t r, bool dispatch) {
  PrepareOptions o;
  o.num_processes = r;
  o.dispatch_batches = dispatch;
  o.put_on_device = dispatch;
  return o;
}

// Multiplicity of every id, read off the plan's runs through the workers' streams.
std::vector<std::int64_t> times(const WorkerEpochPlan& plan, std::int64_t n) {
  std::vector<std::int64_t> t(static_cast<std::size_t>(n), 0);
  for (const WorkerRun& r : plan.runs()) {
    const WorkerStream& s = plan.streams()[static_cast<std::size_t>(r.worker)];
    for (std::int64_t i = r.begin; i < r.end; ++i) t[static_cast<std::size_t>(s.position(i))] += r.times;
  }
  return t;
}

// 10 samples, islice(stream, w, None, 3): parts {0,3,6,9}, {1,4,7}, {2,5,8}. Each rank's copy of a worker runs an
// IterableDatasetShard of real batches of 2 x 2: the parts of 3 complete theirs with their own first element.
TEST(WorkerEpochPlan, EachWorkersShardPadsFromItsOwnPart) {
  const WorkerEpochPlan plan(iterable(10, 2, 3, WorkerSplit::Strided), ranks(2, false));
  EXPECT_EQ(plan.batches(0), 3);
  EXPECT_EQ(plan.batches(1), 3);
  EXPECT_EQ(times(plan, 10), (std::vector<std::int64_t>{1, 2, 2, 1, 1, 1, 1, 1, 1, 1}));
  const auto runs = plan.position_runs(100);
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(permutation_coverage_counts(*runs, 10, 10).duplicated, 2);
  EXPECT_EQ(permutation_coverage_counts(plan.layout_runs(), 10, 10).duplicated, 2);
}

// 9 samples in blocks of ceil(9 / 3) = 3: {0-2}, {3-5}, {6-8}. Rank 0's workers yield [0,1] [3,4] [6,7] [2] [5] [8];
// the dispatcher fetches two at a time. [6,7] + [2] is 3 elements and not the last batch: each rank takes 3 // 2 = 1
// of them, and sample 2 is never trained. [5] + [8] is the last batch, 2 elements: one each, no padding.
TEST(WorkerEpochPlan, AShortWorkerBatchMidPassLosesTheDispatchersRemainder) {
  const WorkerEpochPlan plan(iterable(9, 2, 3, WorkerSplit::Contiguous), ranks(2, true));
  EXPECT_EQ(plan.batches(0), 3);
  EXPECT_EQ(times(plan, 9), (std::vector<std::int64_t>{1, 1, 0, 1, 1, 1, 1, 1, 1}));
}

// 7 samples in blocks of 4: [0,1] [4,5] [2,3] [6]. The last fetch [2,3,6] is odd: completed with the first
// dispatched batch's start, 2 each: rank 0 [2,3], rank 1 [6,0].
TEST(WorkerEpochPlan, TheLastDispatchedBatchIsCompletedFromTheFirst) {
  const WorkerEpochPlan plan(iterable(7, 2, 2, WorkerSplit::Contiguous), ranks(2, true));
  EXPECT_EQ(plan.batches(1), 2);
  EXPECT_EQ(times(plan, 7), (std::vector<std::int64_t>{2, 1, 1, 1, 1, 1, 1}));
}

TEST(WorkerEpochPlan, AppliesOnlyWhereNothingElseDecidesTheStream) {
  DataLoaderArgs a = iterable(10, 2, 2, WorkerSplit::Strided);
  EXPECT_TRUE(WorkerEpochPlan::applies(a, ranks(2, false)));
  a.workers.in_order = false;
  EXPECT_FALSE(WorkerEpochPlan::applies(a, ranks(2, false)));
  EXPECT_THROW(WorkerEpochPlan(a, ranks(2, false)), std::invalid_argument);
}

}  // namespace
}  // namespace accel
