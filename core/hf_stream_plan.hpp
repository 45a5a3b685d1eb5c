// One pass of a job over a datasets.IterableDataset whose streams are whole shards read in order, every rank at
// once, from the shard lists rather than from the examples (issue 48).
//
// Without a shuffle() buffer the library reads each shard's examples in order, so every stream a worker (or the main
// process) reads is its shard list's id ranges one after another (HfIterableDataset::read_shards), and Accelerate's
// wrappers only cut and pad those streams: the dispatcher's rank 0 and an IterableDatasetShard job read one pass of
// them (core/worker_epoch_plan over their lengths), and on the .shard() path each rank batches its own piece's
// streams, unsharded. Counts and ids cost O(ranks x workers + shards), whatever the examples number. Property 17b
// keeps it equal to the per-rank loaders.
#pragma once

#include <cstdint>
#include <vector>

#include "attribute.hpp"
#include "coverage.hpp"
#include "prepare_data_loader.hpp"

namespace accel {

class HfStreamPlan {
 public:
  // The first pass of a datasets.IterableDataset without shuffle() or split_dataset_by_node, on the plain paths:
  // no device mesh, StatefulDataLoader, CUDA RNG to synchronise, in_order=False or skip. Others are replayed.
  static bool applies(const DataLoaderArgs& loader, const PrepareOptions& options) noexcept;

  // Raises AccelerateError where prepare_data_loader does; std::invalid_argument where !applies().
  HfStreamPlan(const DataLoaderArgs& loader, const PrepareOptions& options);

  std::int64_t num_ranks() const noexcept { return static_cast<std::int64_t>(batches_.size()); }
  std::int64_t batches(std::int64_t rank) const { return batches_.at(static_cast<std::size_t>(rank)); }
  Attribute<std::int64_t> len(std::int64_t) const { return len_; }
  // The dispatcher cannot form any batch (replay says how every rank fails).
  bool dispatch_fails() const noexcept { return dispatch_fails_; }
  // Example ids the job yields, with multiplicity, as runs of ids (a sequential order's positions).
  const std::vector<PositionRun>& id_runs() const noexcept { return id_runs_; }

 private:
  DataLoaderArgs loader_;
  PrepareOptions options_;
  std::vector<std::int64_t> batches_;
  Attribute<std::int64_t> len_ = std::int64_t{0};
  bool dispatch_fails_ = false;
  std::vector<PositionRun> id_runs_;
};

}  // namespace accel
