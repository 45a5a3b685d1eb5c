// DataLoaderShard: the per-rank loader prepare_data_loader returns when batches are not dispatched,
// over a map-style dataset (BatchSamplerShard) or an iterable one (IterableDatasetShard).
//
// It owns what Accelerate's loader tracks across passes: the iteration counter it hands to set_epoch,
// the sampler (or dataset generator) it shares with every loader skip_first_batches derives from it,
// the per-pass state GradientState reads (end_of_dataloader, remainder), and rng synchronisation from
// rank 0 at the start of each pass. A pass is returned as an addressable view, so a caller can read
// one rank's k-th batch without producing the others.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "accelerate_release.hpp"
#include "attribute.hpp"
#include "batch.hpp"
#include "batch_sampler_shard.hpp"
#include "communicator.hpp"
#include "data_loader_workers.hpp"
#include "draw_memo.hpp"
#include "hf_iterable_dataset.hpp"
#include "iterable_dataset_shard.hpp"
#include "sample_order.hpp"
#include "sampler.hpp"
#include "stateful_loader_state.hpp"

namespace accel {

using ShardLayout = std::variant<BatchSamplerShard, IterableDatasetShard, WorkerBatches>;

// One pass of a loader: which batches it yields and what it reports while doing so.
struct LoaderPass {
  SampleOrder order;
  ShardLayout layout;
  std::int64_t skip = 0;        // leading batches the loader drops (skip_first_batches)
  std::int64_t remainder = -1;  // loader.remainder during the pass
  std::int64_t iteration_after = 0;
  std::optional<std::int64_t> sampler_epoch_after;

  std::int64_t underlying_batches() const noexcept {
    return std::visit([](const auto& l) { return l.num_batches(); }, layout);
  }
  std::int64_t num_batches() const noexcept { return std::max<std::int64_t>(0, underlying_batches() - skip); }
  Batch batch(std::int64_t j) const {
    return std::visit([&](const auto& l) { return l.batch_ids(j + skip, order); }, layout);
  }
  // end_of_dataloader as read right after batch j arrives: the one-batch lookahead makes it true on the
  // last batch only.
  bool end_of_dataloader(std::int64_t j) const noexcept { return j + 1 == num_batches(); }
};

struct MapLoaderOptions {
  SamplerOptions sampler;
  BatchSampler batch_sampler;
  ShardOptions shard;
  // False when prepare_data_loader left the batch sampler alone (num_processes == 1).
  bool sharded = true;
  // The base loader is torchdata's StatefulDataLoader: DataLoaderAdapter calls its state_dict() when it is
  // built, which builds the iterator (and draws the _base_seed) the first pass then uses.
  bool stateful = false;
  // persistent_workers with num_workers > 0: one iterator serves every pass, so only the first draws a _base_seed.
  bool persistent_workers = false;
  // Every pass raises at its first state snapshot (snapshot_raises, stateful_loader_state.hpp).
  bool snapshot_raises = false;
  // The dataset maps the sampler's index to an example (a shuffled datasets.Dataset); null: index == example.
  std::shared_ptr<const std::vector<std::int64_t>> index_map;
  AccelerateRelease release = kDefaultRelease;
};

struct IterableLoaderOptions {
  std::int64_t dataset_len = 0;
  IterableShardOptions shard;
  bool sharded = true;
  // The dataset owns a torch.Generator (seeded with this) and yields randperm(dataset_len) with it on
  // every pass; nullopt: it yields 0..dataset_len-1.
  std::optional<std::uint64_t> dataset_generator_seed;
  TorchVersion torch_version = TorchVersion::v2_6;
  DataLoaderWorkers workers;
  // The dataset is a datasets.IterableDataset (this rank's, as prepare handed it over): the loader calls its
  // set_epoch with the iteration counter and reads what it yields, per worker; len() raises, as len(dataset) does.
  std::optional<HfIterableDataset> hf_dataset;
  // Every pass raises at its first state snapshot (snapshot_raises, stateful_loader_state.hpp).
  bool snapshot_raises = false;
  AccelerateRelease release = kDefaultRelease;
};

class DataLoaderShard {
 public:
  explicit DataLoaderShard(MapLoaderOptions options);
  explicit DataLoaderShard(IterableLoaderOptions options);

  // skip_first_batches(loader, k): a new loader that shares this one's sampler and starts from its
  // iteration counter; iterating it does not advance this one.
  DataLoaderShard skip_first_batches(std::int64_t num_batches) const;

  bool is_iterable() const noexcept { return iterable_.has_value(); }
  Attribute<std::int64_t> len() const;
  Attribute<std::int64_t> total_batch_size() const;
  Attribute<std::int64_t> total_dataset_length() const;
  std::int64_t iteration() const noexcept { return iteration_; }
  // The loader has an `iteration` attribute and set_epoch (has_loader_set_epoch: 0.24.0 on).
  bool has_iteration() const noexcept;
  // The seedable sampler's epoch, or nullopt when the sampler has none.
  std::optional<std::int64_t> sampler_epoch() const;

  // rng_types=["generator"]: at the start of every pass, the synchronised generator (a RandomSampler's
  // or the dataset's) takes rank 0's state through the communicator given to iterate().
  void set_synchronize_generator(bool on) noexcept { synchronize_ = on; }
  // rng_types=["cuda"] without a GPU: every pass raises before anything else (cuda_rng_unavailable).
  void set_synchronize_cuda_rng(bool on) noexcept { synchronize_cuda_rng_ = on; }
  bool has_synchronized_generator() const noexcept;
  // The seed of a map-style loader's synchronised sampler generator (synchronized_generator.initial_seed(), what
  // accelerate_sim.record notes): prepare drew it from the process's generator. nullopt without one.
  std::optional<std::uint64_t> synchronized_generator_seed() const;

  // The process's default torch generator as far as this loader draws from it (torch.get_rng_state /
  // set_rng_state, which Accelerator.save_state / load_state use); shared with every skipped loader.
  std::optional<GeneratorState> process_generator_state() const;
  void set_process_generator_state(const GeneratorState& state);

  // Raises AttributeError (where "iterate") in a release whose loaders have no set_epoch.
  void set_epoch(std::int64_t epoch);
  // Epoch orders are drawn through `memo`, shared with the other ranks' loaders (and with every loader
  // skip_first_batches derives from this one): see DrawMemo.
  void share_draws(std::shared_ptr<DrawMemo> memo);
  // `comm` is needed only when the generator is synchronised. `restored`: how the base StatefulDataLoader,
  // load_state_dict'ed, starts this pass (stateful_loader_state.hpp): the batches it leaves out (a pass left
  // with nothing to yield returns before counting an iteration, as a skipped one does) and the iterators it
  // discards first. Map-style loaders only (torchdata fast-forwards an iterable dataset by fetching).
  LoaderPass iterate(Communicator* comm = nullptr, RestoredPass restored = {});
  // load_state_dict on the base StatefulDataLoader: the iterator built with the loader is dropped, so the next
  // pass builds its own (iterate()'s `restored` says how it starts).
  void load_state_dict() noexcept { initial_iterator_ = false; }

 private:
  struct DatasetState {  // the iterable dataset's own generator, shared with skipped loaders
    TorchGenerator generator;
  };
  // What persistent workers keep of their copies of the dataset (the copies are alike: one stands for all): its
  // generator, and the epoch the IterableDatasetShard copy had when the workers started, which set_epoch on the
  // main process's shard never reaches.
  struct PersistentWorkerDataset {
    TorchGenerator generator;
    std::int64_t epoch = 0;
  };

  ShardLayout layout() const;
  IterableDatasetShard iterable_shard() const;
  SampleOrder draw_dataset_order(TorchGenerator& generator);
  SampleOrder next_order(std::int64_t discarded_iterators, bool reuses_iterator);
  void synchronize(Communicator& comm);

  // The datasets.IterableDataset's pass: its ids (the workers' streams one after another) and each stream's length.
  std::pair<SampleOrder, std::vector<std::int64_t>> hf_pass(std::int64_t epoch) const;

  std::optional<MapLoaderOptions> map_;
  std::optional<IterableLoaderOptions> iterable_;
  std::vector<std::int64_t> hf_lengths_;  // the current pass's stream lengths (per worker, or one)
  std::shared_ptr<Sampler> sampler_;
  std::shared_ptr<DatasetState> dataset_;
  std::shared_ptr<DrawMemo> memo_;
  // Before 0.20.0: GradientState's remainder, which the process's loaders (this one and those skip_first_batches
  // derives from it) share (remainder_in_gradient_state).
  std::shared_ptr<std::int64_t> gradient_state_remainder_ = std::make_shared<std::int64_t>(-1);
  std::optional<std::int64_t> skip_;
  std::int64_t iteration_ = 0;
  AccelerateRelease release() const noexcept { return map_ ? map_->release : iterable_->release; }
  // What the iteration's set_epoch(iteration) (and the user's) reaches: the seedable sampler, or nothing.
  bool set_epoch_reaches_sampler() const noexcept;
  void apply_epoch(std::int64_t epoch);
  bool synchronize_ = false;
  bool synchronize_cuda_rng_ = false;
  bool initial_iterator_ = false;  // the StatefulDataLoader's iterator built at construction, not yet used
  std::optional<PersistentWorkerDataset> persistent_dataset_;
  bool persistent_iterator_ = false;  // persistent workers are running: the next pass reuses their iterator
};

}  // namespace accel
