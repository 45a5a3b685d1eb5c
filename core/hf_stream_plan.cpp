#include "hf_stream_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "hf_iterable_dataset.hpp"
#include "mutation.hpp"
#include "worker_epoch_plan.hpp"

namespace accel {
namespace {

// The streams one loader reads in pass 0: one per worker, or the main process's.
std::vector<std::vector<std::int64_t>> read_streams(HfIterableDataset ds, const DataLoaderWorkers& workers) {
  ds.set_epoch(0);
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t w = 0; w < std::max<std::int64_t>(1, workers.num_workers); ++w) {
    const auto worker = workers.active() ? std::optional(HfWorker{w, workers.num_workers}) : std::nullopt;
    out.push_back(*ds.read_shards(worker));
  }
  return out;
}

std::vector<std::int64_t> lengths_of(const HfIterableDataset& ds,
                                     const std::vector<std::vector<std::int64_t>>& streams) {
  std::vector<std::int64_t> out;
  for (const auto& shards : streams) {
    std::int64_t n = 0;
    for (std::int64_t s : shards) n += ds.shard_sizes()[static_cast<std::size_t>(s)];
    out.push_back(n);
  }
  return out;
}

// Stream run [begin, end) of `shards` as id runs: the part of each shard it overlaps.
void add_id_runs(std::vector<PositionRun>& out, const HfIterableDataset& ds, const std::vector<std::int64_t>& shards,
                 std::int64_t begin, std::int64_t end, std::int64_t times) {
  std::int64_t at = 0;  // stream position of the current shard's first example
  for (std::int64_t s : shards) {
    const std::int64_t size = ds.shard_sizes()[static_cast<std::size_t>(s)];
    const std::int64_t lo = std::max(begin, at), hi = std::min(end, at + size);
    if (lo < hi) {
      const std::int64_t first = ds.first_id(s) + (lo - at);
      const std::int64_t last = mutant(Mutation::HfPlanShardRunsShifted) ? first + (hi - lo) + 1 : first + (hi - lo);
      if (!out.empty() && out.back().end == first && out.back().times == times) {
        out.back().end = last;
      } else {
        out.push_back({first, last, times});
      }
    }
    at += size;
    if (at >= end) break;
  }
}

// One loader's streams through a WorkerEpochPlan: its runs as id runs; returns its batch count.
std::int64_t add_loader(std::vector<PositionRun>& out, const HfIterableDataset& ds,
                        const std::vector<std::vector<std::int64_t>>& streams, const DataLoaderArgs& loader,
                        const PrepareOptions& options, bool& dispatch_fails) {
  const WorkerEpochPlan plan(lengths_of(ds, streams), loader, options);
  dispatch_fails = plan.dispatch_fails();
  for (const WorkerRun& r : plan.runs())
    add_id_runs(out, ds, streams[static_cast<std::size_t>(r.worker)], r.begin, r.end, r.times);
  return plan.batches(0);
}

}  // namespace

bool HfStreamPlan::applies(const DataLoaderArgs& loader, const PrepareOptions& options) noexcept {
  return loader.hf_dataset && !loader.hf_dataset->is_shuffled() && !loader.hf_split_by_node &&
         loader.workers.in_order && !options.torch_device_mesh && !options.use_stateful_dataloader &&
         !options.synchronize_cuda_rng;
}

HfStreamPlan::HfStreamPlan(const DataLoaderArgs& loader, const PrepareOptions& options)
    : loader_(loader), options_(options) {
  if (!applies(loader_, options_)) throw std::invalid_argument("HfStreamPlan: this config is replayed, not planned");
  PrepareOptions rank0 = options_;
  rank0.process_index = 0;
  // The same validation and errors as Accelerate. No datasets.IterableDataset has a __len__: len() raises alike on
  // every rank, whatever the path.
  len_ = std::visit([](const auto& l) { return l.len(); }, prepare_data_loader(loader_, rank0));
  const std::int64_t R = options_.num_processes;
  const HfDatasetPath path = hf_dataset_path(loader_, options_);
  if (path != HfDatasetPath::Shard) {
    // Rank 0's pass (the dispatcher's, or the stream every rank's IterableDatasetShard cuts).
    const HfIterableDataset ds = path == HfDatasetPath::Dispatched ? *loader_.hf_dataset  // never split by node here
                                                                   : hf_rank_dataset(loader_, rank0);
    const std::int64_t n =
        add_loader(id_runs_, ds, read_streams(ds, loader_.workers), loader_, options_, dispatch_fails_);
    batches_.assign(static_cast<std::size_t>(R), n);
    return;
  }
  // .shard(): each rank batches its own piece, unsharded (no IterableDatasetShard, nothing padded).
  PrepareOptions own = options_;
  own.num_processes = 1;
  own.process_index = 0;
  own.dispatch_batches = false;
  for (std::int64_t r = 0; r < R; ++r) {
    PrepareOptions rank = options_;
    rank.process_index = r;
    const HfIterableDataset ds = hf_rank_dataset(loader_, rank);
    bool unused = false;
    batches_.push_back(add_loader(id_runs_, ds, read_streams(ds, loader_.workers), loader_, own, unused));
  }
}

}  // namespace accel
