// AccelerateSampler: a torch::data sampler for LibTorch C++ training loops that yields, on rank r of R,
// exactly the batches of indices Accelerate's prepared DataLoader yields on that rank (map-style datasets:
// split_batches, even_batches, drop_last, SeedableRandomSampler / RandomSampler with torch's exact randperm,
// set_epoch, skip_first_batches on a resume).
//
// It is a view over the core's prepare_data_loader() and DataLoaderShard, so the sharding is the one the
// simulator and the golden traces check; only the LibTorch glue lives here. Copies share one state: LibTorch's
// DataLoader keeps its own copy of the sampler, and the copy the training loop keeps still drives it
// (set_epoch, skip_first_batches).
#pragma once

#include <torch/data/samplers/base.h>
#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/communicator.hpp"
#include "core/prepare_data_loader.hpp"

namespace accel::libtorch {

class AccelerateSampler final : public torch::data::samplers::Sampler<std::vector<std::size_t>> {
 public:
  // `loader` is the user's DataLoader (map-style; dataset_kind must be Map), `options` what prepare_data_loader
  // receives, with this process's num_processes / process_index. Raises accel::AccelerateError where Accelerate
  // rejects the config, std::invalid_argument for what this sampler cannot express: dispatched batches (rank 0
  // reads and broadcasts every batch, there is no per-rank index stream) and iterable datasets. `comm` is needed
  // only when the sampler's generator is synchronised across ranks (rng_types "generator" with a RandomSampler);
  // it must outlive the sampler.
  AccelerateSampler(const DataLoaderArgs& loader, const PrepareOptions& options, Communicator* comm = nullptr);

  // LibTorch calls this at the start of every pass (DataLoader::begin()): one pass of Accelerate's loader
  // (`for batch in loader`). The dataset's size is fixed; a different new_size raises std::invalid_argument.
  void reset(torch::optional<std::size_t> new_size = torch::nullopt) override;
  // The next batch of this rank's pass, whatever size is asked: the batch size is Accelerate's (the per-rank
  // size, or its share of the global batch with split_batches), and a padded or last batch may be shorter.
  torch::optional<std::vector<std::size_t>> next(std::size_t batch_size) override;

  // The position: the epoch the current pass runs with and how many of its batches were consumed. load()
  // makes the next pass resume there, as set_epoch(e) + skip_first_batches(loader, k) do in Accelerate.
  // Only sequential and seedable shuffles can be resumed (a RandomSampler's running generator is not saved):
  // save() raises std::logic_error for those.
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

  // set_epoch(epoch) on the loader the next pass iterates: the skipped one while a skip is pending.
  void set_epoch(std::int64_t epoch);
  // skip_first_batches(loader, k), iterated by the next pass only (as on a resume); later passes use the prepared
  // loader, whose iteration counter the skipped pass does not advance (as in Accelerate: set_epoch the next one).
  void skip_first_batches(std::int64_t num_batches);

  // len(prepared loader) on this rank.
  std::int64_t size() const;
  // How many batches the current pass yields in all (after reset()).
  std::int64_t batches_in_pass() const;
  // The loader's iteration counter, which Accelerate hands to set_epoch at the start of each pass.
  std::int64_t iteration() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace accel::libtorch
