// DataLoader worker processes over an iterable dataset: which batches the main process yields when
// torch's _MultiProcessingDataLoaderIter runs `num_workers` workers, each over its own copy of the dataset.
//
// Every worker iterates its copy (all of it, or the part the dataset keeps for get_worker_info()'s worker
// id) and batches its own stream, so each worker can end with its own short batch, and drop_last drops up
// to one per worker. With in_order=True the main process takes batches strictly round-robin over the
// workers still running, from worker 0 at the start of every pass (the index-queue cycle is rebuilt by
// _reset), and a worker that runs out drops out at its turn. A map-style dataset is unaffected: the
// main process hands the sampler's batches out in order and yields them in order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "batch.hpp"
#include "iterable_dataset_shard.hpp"
#include "sample_order.hpp"

namespace accel {

// How the dataset's __iter__ uses torch.utils.data.get_worker_info(), which accel-sim cannot read from
// a user's dataset: None, every worker yields the whole stream; Strided, itertools.islice(stream,
// worker_id, None, num_workers); Contiguous, the worker's block of ceil(len / num_workers) elements
// (torch's documented example).
enum class WorkerSplit { None, Strided, Contiguous };

struct DataLoaderWorkers {
  std::int64_t num_workers = 0;
  WorkerSplit split = WorkerSplit::None;
  // persistent_workers=True: the workers (and their dataset copies) live across passes.
  bool persistent_workers = false;
  // in_order=False yields whichever worker's batch arrives first: the order depends on timing.
  bool in_order = true;
  std::int64_t prefetch_factor = 2;  // read, never changes which batches are yielded with in_order
  bool active() const noexcept { return num_workers > 0; }
  friend bool operator==(const DataLoaderWorkers&, const DataLoaderWorkers&) = default;
};

// The positions of the epoch order one worker's dataset copy yields: begin, begin + stride, ...
struct WorkerStream {
  std::int64_t begin = 0;
  std::int64_t stride = 1;
  std::int64_t length = 0;
  std::int64_t position(std::int64_t i) const noexcept { return begin + i * stride; }
};

// "none", "strided", "contiguous".
const char* worker_split_name(WorkerSplit split) noexcept;

WorkerStream worker_stream(std::int64_t samples, const DataLoaderWorkers& workers, std::int64_t worker);

// Yielded batch j of a pass: the worker that produced it and that worker's batch index.
struct WorkerBatch {
  std::int64_t worker = 0;
  std::int64_t index = 0;
};

// The main process's in-order round-robin over workers that yield counts[w] batches each: round k takes
// batch k of every worker that has one, in worker order. Lookups cost O(log W + W).
class WorkerRoundRobin {
 public:
  explicit WorkerRoundRobin(std::vector<std::int64_t> counts);
  std::int64_t size() const noexcept { return total_; }
  WorkerBatch at(std::int64_t j) const noexcept;
  // How many of the first `j` yielded batches worker w produced.
  std::int64_t taken_from(std::int64_t worker, std::int64_t j) const noexcept;
  // Where worker w's batch `index` (< counts[w]) is yielded: O(log W + W).
  std::int64_t yield_index(std::int64_t worker, std::int64_t index) const noexcept;

 private:
  std::int64_t yielded_before_round(std::int64_t k) const noexcept;

  std::vector<std::int64_t> counts_;
  std::vector<std::int64_t> sorted_;  // counts_ ascending
  std::vector<std::int64_t> prefix_;  // prefix_[i] = sorted_[0] + ... + sorted_[i-1]
  std::int64_t total_ = 0;
};

// One pass of a DataLoader with workers over an iterable dataset (wrapped in IterableDatasetShard when
// `sharded`): every worker's copy of the shard pads from its own first batch. A layout like
// IterableDatasetShard's, addressed by the yielded batch.
class WorkerBatches {
 public:
  // Raises what IterableDatasetShard's construction raises.
  WorkerBatches(std::int64_t dataset_len, IterableShardOptions shard, bool sharded, DataLoaderWorkers workers);
  // Workers whose streams the dataset itself decides (a HuggingFace dataset hands each worker its shards): worker w
  // yields stream_lengths[w] ids, laid out one worker after another in the pass's order.
  WorkerBatches(const std::vector<std::int64_t>& stream_lengths, IterableShardOptions shard, bool sharded,
                DataLoaderWorkers workers);

  std::int64_t num_batches() const noexcept { return round_robin_.size(); }
  WorkerBatch locate(std::int64_t j) const noexcept { return round_robin_.at(j); }
  // The epoch-order positions of yielded batch j (padding resolved), in the order the batch holds them.
  std::vector<std::int64_t> positions(std::int64_t j) const;
  Batch batch_ids(std::int64_t j, const SampleOrder& order) const;
  const DataLoaderWorkers& workers() const noexcept { return workers_; }

 private:
  std::int64_t dataset_len_;
  DataLoaderWorkers workers_;
  std::vector<WorkerStream> streams_;
  std::vector<IterableDatasetShard> shards_;  // one per worker, over its stream
  WorkerRoundRobin round_robin_;
};

}  // namespace accel
