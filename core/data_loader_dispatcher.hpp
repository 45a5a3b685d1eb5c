// DataLoaderDispatcher: rank 0 alone iterates the user's loader and broadcasts; every rank slices its
// part. Written over the Communicator interface, so the same code runs in the simulator and on real
// ranks.
//
// Accelerate's tail rules live here: without split_batches, num_processes batches are concatenated (a
// short group at the end is still dispatched unless drop_last); a final batch whose size is not a
// multiple of num_processes is completed with the first num_processes samples of the epoch's first
// dispatched batch, so later ranks can get short or even empty batches; when no batch at all can be
// formed every rank raises TypeError from the broadcast.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attribute.hpp"
#include "batch.hpp"
#include "communicator.hpp"
#include "accelerate_release.hpp"
#include "data_loader_workers.hpp"
#include "device_mesh.hpp"
#include "error.hpp"
#include "hf_iterable_dataset.hpp"
#include "sampler.hpp"

namespace accel {

struct DispatcherOptions {
  bool iterable = false;
  SamplerOptions sampler;  // map-style: the user's sampler (rank 0 iterates it)
  std::int64_t batch_size = 1;
  bool drop_last = false;
  bool split_batches = false;
  std::int64_t num_processes = 1;
  std::int64_t process_index = 0;
  // Iterable: the dataset's own generator (never reseeded here: no IterableDatasetShard wraps it).
  std::optional<std::uint64_t> dataset_generator_seed;
  // The ranks form a torch.distributed group. Without one (a single process, distributed_type NO)
  // Accelerate's broadcast hands a missing batch back instead of refusing it.
  bool process_group = true;
  // The base loader is torchdata's StatefulDataLoader (use_stateful_dataloader=True): built with an iterator
  // its first pass uses, and the class missing attributes are reported on.
  bool stateful = false;
  // Rank 0's every pass raises at its first state snapshot (snapshot_raises, stateful_loader_state.hpp).
  bool snapshot_raises = false;
  // A torch_device_mesh with "tp": rank 0 fetches one batch per step and every rank receives all of it.
  DispatcherMesh mesh = DispatcherMesh::Plain;
  // Rank 0's DataLoader's worker processes.
  DataLoaderWorkers workers;
  // Iterable: rank 0's dataset is a datasets.IterableDataset (set_epoch reaches it; len() raises).
  std::optional<HfIterableDataset> hf_dataset;
  // Map-style: the dataset maps the sampler's index to an example (a shuffled datasets.Dataset).
  std::shared_ptr<const std::vector<std::int64_t>> index_map;
  AccelerateRelease release = kDefaultRelease;
};

struct DispatchPass {
  std::vector<Batch> batches;
  std::vector<bool> end_of_dataloader;
  std::vector<std::int64_t> remainder;
  std::int64_t iteration_after = 0;
  std::optional<std::int64_t> sampler_epoch_after;
  std::optional<AccelerateError> error;  // raised while iterating; `batches` holds what came before
};

class DataLoaderDispatcher {
 public:
  explicit DataLoaderDispatcher(DispatcherOptions options);

  // Map-style: skips k batches of the underlying loader (a SkipBatchSampler); iterable: skips k
  // dispatched batches. Shares the sampler and starts from this loader's iteration counter.
  DataLoaderDispatcher skip_first_batches(std::int64_t num_batches) const;

  Attribute<std::int64_t> len() const;
  Attribute<std::int64_t> total_batch_size() const;
  Attribute<std::int64_t> total_dataset_length() const;
  std::int64_t iteration() const noexcept { return iteration_; }
  // The loader has an `iteration` attribute and set_epoch (has_loader_set_epoch: 0.24.0 on).
  bool has_iteration() const noexcept { return has_loader_set_epoch(options_.release); }
  std::optional<std::int64_t> sampler_epoch() const;
  void set_epoch(std::int64_t epoch);

  // One pass; every rank of `comm` must call it together.
  DispatchPass iterate(Communicator& comm);

 private:
  struct Shared {  // what Python shares between a loader and the ones skip_first_batches derives
    Sampler sampler;
    TorchGenerator dataset_generator;
  };
  class BaseIterator;
  struct Fetched;

  std::int64_t underlying_len() const;
  Fetched fetch(BaseIterator& it, Communicator& comm);

  DispatcherOptions options_;
  std::shared_ptr<Shared> shared_;
  std::int64_t skip_underlying_ = 0;   // map: SkipBatchSampler
  // map, after skip_first_batches: the batch sampler is a SkipBatchSampler, which has no `sampler` attribute,
  // so DataLoaderDispatcher.set_epoch (and the one __iter__ makes) no longer reaches the sampler, which then
  // counts its own epochs (recorded: golden/cases/accel-dispatch-skip-seedable-setepoch-*).
  bool sampler_behind_skip_ = false;
  std::int64_t skip_dispatched_ = 0;   // iterable: skip_batches
  std::int64_t iteration_ = 0;
  bool stop_iteration_ = false;
  bool initial_iterator_ = false;  // the StatefulDataLoader's iterator built at construction, not yet used
  std::optional<TorchGenerator> persistent_generator_;  // persistent workers' copy of the dataset's generator
  bool persistent_iterator_ = false;  // persistent workers are running: the next pass reuses their iterator
};

}  // namespace accel
