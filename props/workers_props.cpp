// Property 15: DataLoader workers over an iterable dataset. Each rank's pass equals torch's in-order
// round-robin, written out as _MultiProcessingDataLoaderIter runs it (round k takes batch k of every worker
// still running, from worker 0), over each worker's own IterableDatasetShard of its part of the stream, that
// part cut here as the dataset's own __iter__ would (every id, or itertools.islice(stream, w, None, W), or torch's
// documented ceil(N / W) block). The multiplicities follow: W workers that ignore get_worker_info() see every
// sample W times as often as num_workers=0 does; a split stream is seen as often as W separate num_workers=0
// jobs over its parts. Golden: golden/cases*/workers-* pin the same on real worker processes.
#include <rapidcheck.h>

#include <algorithm>

#include "loader_config.hpp"
#include "oracle.hpp"
#include "properties.hpp"
#include "what_if_replay.hpp"

namespace accel::props {
namespace {

// Worker w's part of the stream 0..n-1, as the dataset's __iter__ cuts it.
std::vector<SampleId> worker_part(std::int64_t n, std::int64_t W, WorkerSplit split, std::int64_t w) {
  std::vector<SampleId> out;
  const std::int64_t per = ceil_div(n, W);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool mine = split == WorkerSplit::None      ? true
                      : split == WorkerSplit::Strided ? i % W == w
                                                      : i >= w * per && i < (w + 1) * per;
    if (mine) out.push_back(i);
  }
  return out;
}

}  // namespace

void worker_passes_are_the_round_robin_of_each_workers_shard() {
  auto [c, choices] = *gen_drawn(
      {.only_iterable = true, .shuffle = false, .max_ranks = 8, .max_rare_ranks = 8, .max_len = 300, .max_batch = 8});
  const std::int64_t W = *int_in(1, 5);
  const auto split = *rc::gen::element(WorkerSplit::None, WorkerSplit::Strided, WorkerSplit::Contiguous);
  RC_TAG(worker_split_name(split));
  RC_LOG() << "num_workers=" << W << " worker_split=" << worker_split_name(split) << "\n";
  trace::LoaderCase lc = loader_case(c, 1);
  lc.loader.workers.num_workers = W;
  lc.loader.workers.split = split;
  trace::LoaderCase single = loader_case(c, 1);
  const auto got = simulate_ranks(lc);
  const auto without = simulate_ranks(single);
  std::vector<const std::vector<Batch>*> all, all_without;
  std::vector<std::vector<Batch>> expected_ranks;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    std::vector<std::vector<Batch>> per_worker;
    for (std::int64_t w = 0; w < W; ++w)
      per_worker.push_back(replay_iterable_shard(worker_part(c.len, W, split, w), c, r));
    std::vector<Batch> expected;
    for (std::size_t k = 0;; ++k) {
      bool any = false;
      for (const auto& batches : per_worker) {
        if (k < batches.size()) {
          expected.push_back(batches[k]);
          any = true;
        }
      }
      if (!any) break;
    }
    const auto& pass = got.at(static_cast<std::size_t>(r)).epochs.at(0);
    RC_ASSERT(pass.batches == expected);
    // len() ignores workers: torch's len of the iterable dataset, Accelerate's IterableDatasetShard length.
    RC_ASSERT(got.at(static_cast<std::size_t>(r)).attributes.len ==
              without.at(static_cast<std::size_t>(r)).attributes.len);
    all.push_back(&pass.batches);
    all_without.push_back(&without.at(static_cast<std::size_t>(r)).epochs.at(0).batches);
  }
  const auto times = multiplicity(all, c.len);
  if (split == WorkerSplit::None) {
    const auto base = multiplicity(all_without, c.len);
    for (std::int64_t id = 0; id < c.len; ++id)
      RC_ASSERT(times[static_cast<std::size_t>(id)] == W * base[static_cast<std::size_t>(id)]);
  } else if (!c.drop) {
    // Without drop_last every sample of every worker's part is yielded at least once.
    for (std::int64_t id = 0; id < c.len; ++id) RC_ASSERT(times[static_cast<std::size_t>(id)] >= 1);
  }
}

void worker_what_if_counts_equal_the_replay() {
  const bool dispatch = *rc::gen::arbitrary<bool>();
  auto [c, choices] = *gen_drawn({.only_iterable = true,
                                  .dispatch = dispatch,
                                  .only_dispatch = dispatch,
                                  .max_ranks = 8,
                                  .max_rare_ranks = 8,
                                  .max_dispatch_ranks = 8,
                                  .max_dispatch_len = 300,
                                  .max_len = 300,
                                  .max_batch = 8});
  trace::LoaderCase lc = loader_case(c, 1);
  lc.loader.workers.num_workers = *int_in(1, 5);
  lc.loader.workers.split = *rc::gen::element(WorkerSplit::None, WorkerSplit::Strided, WorkerSplit::Contiguous);
  lc.loader.workers.persistent_workers = choices.flag;
  RC_TAG(worker_split_name(lc.loader.workers.split), c.dispatch ? "dispatch" : "shard");
  RC_LOG() << "num_workers=" << lc.loader.workers.num_workers
           << " worker_split=" << worker_split_name(lc.loader.workers.split) << "\n";
  check_what_if_equals_replay(lc, simulate_ranks(lc), c.len, true);
}

}  // namespace accel::props
