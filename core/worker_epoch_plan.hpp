// One pass of an iterable dataset read by DataLoader workers, every rank at once, computed from the
// workers' streams rather than by replaying every rank's batches (issue 48).
//
// Each worker batches its own part of the stream, so the job's coverage is per worker. Without a dispatcher,
// every rank's copy of worker w runs an IterableDatasetShard over the same part, and the ranks' slices tile the
// same real batches: together they cover virtual positions [0, V_w) of that part, the padding cycling its own
// start. With a dispatcher, rank 0's workers yield batches round-robin and DataLoaderDispatcher groups and
// slices them exactly as it does one stream (core/dispatch_plan.hpp, over the yielded elements); any range of
// yielded elements is one contiguous range of each worker's part, because a worker's batches keep their order.
// Either way the coverage is O(workers) runs, whatever the dataset's length. Property 15b keeps it equal to the
// per-rank loaders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attribute.hpp"
#include "coverage.hpp"
#include "data_loader_workers.hpp"
#include "dispatch_plan.hpp"
#include "prepare_data_loader.hpp"

namespace accel {

// Indices [begin, end) of one worker's stream, each yielded `times` times by the job.
struct WorkerRun {
  std::int64_t worker = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t times = 1;
  friend bool operator==(const WorkerRun&, const WorkerRun&) = default;
};

class WorkerEpochPlan {
 public:
  // Whether the plan describes this config's first pass: an iterable dataset with workers, not a
  // datasets.IterableDataset, without a device mesh, a StatefulDataLoader or a CUDA RNG to synchronise (those
  // are replayed), and not skipped.
  static bool applies(const DataLoaderArgs& loader, const PrepareOptions& options) noexcept;

  // Raises AccelerateError where prepare_data_loader does; std::invalid_argument where !applies().
  WorkerEpochPlan(const DataLoaderArgs& loader, const PrepareOptions& options);
  // Over streams the dataset itself decides (a datasets.IterableDataset hands each worker its shards; without workers
  // the main process reads one stream), laid one after another. Nothing is validated: the caller's loader is.
  WorkerEpochPlan(const std::vector<std::int64_t>& stream_lengths, const DataLoaderArgs& loader,
                  const PrepareOptions& options);

  std::int64_t num_ranks() const noexcept { return options_.num_processes; }
  const PrepareOptions& options() const noexcept { return options_; }
  bool dispatches() const noexcept { return dispatches_; }
  // The dispatcher cannot form any batch: every rank raises in the broadcast (replay says how).
  bool dispatch_fails() const noexcept { return dispatches_ && batches_ == 0; }
  // Every rank yields as many batches as every other: each worker's shard gives every rank one batch per real
  // batch, and a dispatcher gives every rank one slice of every dispatched batch.
  std::int64_t batches(std::int64_t rank) const;
  Attribute<std::int64_t> len(std::int64_t rank) const;
  const std::vector<WorkerStream>& streams() const noexcept { return streams_; }
  // The stream indices the job yields, with multiplicity.
  std::vector<WorkerRun> runs() const;
  // The same runs over order positions laid out worker after worker: the order's own positions when each
  // stream is a contiguous block (or the whole order), worker 0's positions then worker 1's ... for a strided
  // split. Either way the layout is a permutation of the order's positions where the workers split the stream,
  // so a permutation's counts follow from these runs alone (permutation_coverage_counts).
  std::vector<PositionRun> layout_runs() const;
  // The same runs over the order's own positions, merged where adjacent positions are yielded alike: a strided
  // split's runs interleave, so rows of W positions where the workers differ come out one position at a time.
  // Nothing (std::nullopt) where that would take more than `max_runs` runs.
  std::optional<std::vector<PositionRun>> position_runs(std::size_t max_runs) const;

 private:
  void plan();
  // Yielded elements before rank 0's underlying batch k (dispatcher only).
  std::int64_t yielded_before(std::int64_t k) const;
  // Elements of worker w among the first e yielded (dispatcher only).
  std::int64_t taken_from(std::int64_t worker, std::int64_t e) const;

  DataLoaderArgs loader_;
  PrepareOptions options_;
  std::vector<WorkerStream> streams_;
  bool dispatches_ = false;
  std::int64_t batches_ = 0;  // every rank's
  // Dispatcher: the yielded elements the ranks' slices cover, as runs (the dispatched batches are not kept).
  std::vector<PositionRun> yielded_runs_;
  // Dispatcher: rank 0's unsharded loader over each worker's part, and its round-robin.
  std::vector<std::int64_t> yielded_per_worker_;  // elements each worker's batches hold
  std::optional<WorkerRoundRobin> round_robin_;
  std::vector<std::int64_t> short_batches_;   // yield indices of the workers' short last batches, sorted
  std::vector<std::int64_t> deficit_before_;  // deficit_before_[i]: elements the first i of them lack
};

}  // namespace accel
