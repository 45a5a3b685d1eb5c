#include "data_loader_shard.hpp"

#include <stdexcept>
#include <utility>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {
namespace {

const AttributeFailure kNoTotalBatchSize{PyErrorType::AttributeError,
                                         "'DataLoader' object has no attribute 'total_batch_size'"};
const AttributeFailure kHfNoLen{PyErrorType::TypeError, "object of type 'IterableDataset' has no len()"};
const AttributeFailure kShardNoLen{PyErrorType::TypeError, "object of type 'IterableDatasetShard' has no len()"};

}  // namespace

DataLoaderShard::DataLoaderShard(MapLoaderOptions options)
    : map_(options), sampler_(std::make_shared<Sampler>(options.sampler)) {
  if (!map_->sharded) map_->shard = ShardOptions{1, 0, false, false};
  (void)layout();  // raises BatchSamplerShard's construction errors now, as Accelerate does
  if (map_->stateful && !mutant(Mutation::StatefulInitialIteratorIgnored)) {
    sampler_->build_loader_iterator();
    initial_iterator_ = true;
  }
}

DataLoaderShard::DataLoaderShard(IterableLoaderOptions options) : iterable_(options) {
  if (iterable_->hf_dataset) {
    HfIterableDataset ds = *iterable_->hf_dataset;
    ds.set_epoch(0);
    hf_lengths_ = ds.pass_lengths(iterable_->workers.num_workers);
  }
  if (iterable_->dataset_generator_seed) {
    dataset_ = std::make_shared<DatasetState>(DatasetState{TorchGenerator(*iterable_->dataset_generator_seed)});
  }
  (void)layout();
}

std::pair<SampleOrder, std::vector<std::int64_t>> DataLoaderShard::hf_pass(std::int64_t epoch) const {
  HfIterableDataset ds = *iterable_->hf_dataset;
  ds.set_epoch(epoch);
  HfIterableDataset::LoaderPass pass = ds.loader_pass(iterable_->workers.num_workers);
  return {SampleOrder::of(std::move(pass.ids)), std::move(pass.lengths)};
}

ShardLayout DataLoaderShard::layout() const {
  if (map_) return BatchSamplerShard(map_->batch_sampler, sampler_->size(), map_->shard);
  if (iterable_->hf_dataset) {
    if (iterable_->workers.active()) {
      return WorkerBatches(hf_lengths_, iterable_->shard, iterable_->sharded, iterable_->workers);
    }
    return IterableDatasetShard(hf_lengths_.at(0), iterable_->shard, iterable_->sharded);
  }
  if (iterable_->workers.active()) {
    return WorkerBatches(iterable_->dataset_len, iterable_->shard, iterable_->sharded, iterable_->workers);
  }
  return iterable_shard();
}

IterableDatasetShard DataLoaderShard::iterable_shard() const {
  return IterableDatasetShard(iterable_->dataset_len, iterable_->shard, iterable_->sharded);
}

DataLoaderShard DataLoaderShard::skip_first_batches(std::int64_t num_batches) const {
  DataLoaderShard skipped = *this;
  skipped.skip_ = mutant(Mutation::SkipNotApplied) ? 0 : num_batches;
  // Before 1.15.0 the new DataLoaderShard starts its own iteration counter at 0 (#4071 hands it this one's).
  if (!skip_keeps_iteration(release())) skipped.iteration_ = 0;
  // skip_first_batches builds a plain DataLoader (no use_stateful_dataloader): it builds its own iterators.
  if (skipped.map_) skipped.map_->stateful = skipped.map_->snapshot_raises = false;
  if (skipped.iterable_) skipped.iterable_->snapshot_raises = false;
  skipped.initial_iterator_ = false;
  // ...over a DataLoader of its own, whose workers start afresh.
  skipped.persistent_dataset_.reset();
  skipped.persistent_iterator_ = false;
  return skipped;
}

Attribute<std::int64_t> DataLoaderShard::len() const {
  // A skipped iterable loader drops batches while iterating; its len() still counts them. Workers change
  // nothing: torch's len() of an iterable dataset never looks at them.
  if (iterable_ && iterable_->hf_dataset) return kHfNoLen;
  if (iterable_ && iterable_->sharded && !iterable_dataset_shard_has_len(release())) return kShardNoLen;
  if (iterable_) return iterable_shard().loader_len();
  const std::int64_t length = std::get<BatchSamplerShard>(layout()).size() - skip_.value_or(0);
  if (length < 0) return AttributeFailure{PyErrorType::ValueError, "__len__() should return >= 0"};
  return length;
}

Attribute<std::int64_t> DataLoaderShard::total_batch_size() const {
  const AccelerateRelease r = release();
  const bool plain_batch_sampler = iterable_ || !map_->sharded;
  // Before 0.19.0 the property reads batch_sampler.split_batches, which only a BatchSamplerShard has.
  if (!total_properties_read_safely(r) && (plain_batch_sampler || skip_)) {
    return AttributeFailure{PyErrorType::AttributeError, std::string("'") + (iterable_ || !skip_ ? "BatchSampler" : "SkipBatchSampler") +
                                                             "' object has no attribute 'split_batches'"};
  }
  if (iterable_) return iterable_shard().loader_batch_size();
  // SkipBatchSampler never calls BatchSampler.__init__, so it has no batch_size to read; from 0.34.0 the
  // DataLoaderAdapter's fallback reports the property itself missing; from 1.16.0 the property looks behind it.
  if (skip_ && skipped_total_batch_size_reads_through(r)) {
    const auto& s = map_->shard;
    return s.split_batches ? map_->batch_sampler.batch_size : map_->batch_sampler.batch_size * s.num_processes;
  }
  if (skip_ && !loaders_are_adapters(r)) {
    return AttributeFailure{PyErrorType::AttributeError, "'SkipBatchSampler' object has no attribute 'batch_size'"};
  }
  if (skip_) return kNoTotalBatchSize;
  const auto& s = map_->shard;
  return s.split_batches ? map_->batch_sampler.batch_size : map_->batch_sampler.batch_size * s.num_processes;
}

Attribute<std::int64_t> DataLoaderShard::total_dataset_length() const {
  if (iterable_ && iterable_->hf_dataset) return kHfNoLen;
  const AccelerateRelease r = release();
  const bool shard = iterable_ && iterable_->sharded;
  if (!total_properties_read_safely(r)) {
    // Before 0.19.0: hasattr("total_length", self.dataset), its arguments swapped.
    const char* cls = shard ? "IterableDatasetShard" : iterable_ ? kRecorderIterableDatasetClass : kRecorderMapDatasetClass;
    return AttributeFailure{PyErrorType::TypeError, std::string("attribute name must be string, not '") + cls + "'"};
  }
  if (shard && !iterable_dataset_shard_has_len(r)) return kShardNoLen;  // len(self.dataset), before 0.24.0
  if (iterable_) return iterable_shard().size();
  return map_->sampler.dataset_len;
}

std::optional<std::int64_t> DataLoaderShard::sampler_epoch() const {
  if (!sampler_ || !sampler_->has_set_epoch()) return std::nullopt;
  return sampler_->epoch();
}

bool DataLoaderShard::has_synchronized_generator() const noexcept {
  if (map_) return sampler_->has_synchronized_generator();
  return dataset_ != nullptr;
}

std::optional<std::uint64_t> DataLoaderShard::synchronized_generator_seed() const {
  if (!map_ || !sampler_->has_synchronized_generator()) return std::nullopt;
  return sampler_->generator_state().seed;
}

std::optional<GeneratorState> DataLoaderShard::process_generator_state() const {
  if (!sampler_) return std::nullopt;
  return sampler_->process_generator_state();
}

void DataLoaderShard::set_process_generator_state(const GeneratorState& state) {
  if (mutant(Mutation::RngStateNotRestored)) return;
  if (sampler_) sampler_->set_process_generator_state(state);
}

bool DataLoaderShard::has_iteration() const noexcept { return has_loader_set_epoch(release()); }

bool DataLoaderShard::set_epoch_reaches_sampler() const noexcept {
  if (!sampler_ || !sampler_->has_set_epoch()) return false;
  // A skipped loader's SkipBatchSampler hides the sampler until 1.7.0 looks behind it (#3556).
  if (skip_) return set_epoch_reaches_skipped_sampler(release());
  // Several processes: the sampler sits inside the BatchSamplerShard, which has it as an attribute from 0.27.2 on
  // (0.24.x - 0.27.1 put it on the user's BatchSampler inside, out of set_epoch's reach).
  if (map_ && map_->sharded) return set_epoch_reaches_sharded_sampler(release());
  return true;
}

void DataLoaderShard::apply_epoch(std::int64_t epoch) {
  if (!mutant(Mutation::SetEpochLeavesCounter)) iteration_ = epoch;
  if (set_epoch_reaches_sampler()) sampler_->set_epoch(epoch);
}

void DataLoaderShard::set_epoch(std::int64_t epoch) {
  if (!has_loader_set_epoch(release())) {
    // Before 0.24.0 the loaders have no set_epoch: the script's call fails before the pass starts.
    throw AccelerateError(PyErrorType::AttributeError, "iterate", "'DataLoaderShard' object has no attribute 'set_epoch'");
  }
  apply_epoch(epoch);
}

void DataLoaderShard::synchronize(Communicator& comm) {
  GeneratorState state = dataset_ ? dataset_->generator.state() : sampler_->generator_state();
  const auto shared = comm.broadcast_object({static_cast<std::int64_t>(state.seed), static_cast<std::int64_t>(state.draws)}, 0);
  state = GeneratorState{static_cast<std::uint64_t>(shared.at(0)), static_cast<std::uint64_t>(shared.at(1))};
  if (dataset_) {
    dataset_->generator.set_state(state);
  } else {
    sampler_->set_generator_state(state);
  }
}

void DataLoaderShard::share_draws(std::shared_ptr<DrawMemo> memo) {
  if (sampler_) sampler_->share_draws(memo);
  memo_ = std::move(memo);
}

SampleOrder DataLoaderShard::draw_dataset_order(TorchGenerator& generator) {
  const std::int64_t n = iterable_->dataset_len;
  const TorchVersion version = iterable_->torch_version;
  if (!memo_) return randperm_order(n, generator, version);
  const DrawMemo::Key key{DrawMemo::Source::DatasetRandperm, n, n, false, version, generator.state()};
  return memo_->draw(key, generator, [n, version](TorchGenerator& g) { return randperm_order(n, g, version); });
}

SampleOrder DataLoaderShard::next_order(std::int64_t discarded_iterators, bool reuses_iterator) {
  if (map_) {
    // Persistent workers keep one iterator, reset (no _base_seed draw) for every pass after the first.
    const bool persistent = map_->persistent_workers && std::exchange(persistent_iterator_, true);
    SampleOrder order =
        reuses_iterator || persistent ? sampler_->iterate() : sampler_->iterate_in_loader(discarded_iterators);
    return map_->index_map ? order.through(*map_->index_map) : order;
  }
  if (iterable_->hf_dataset) {
    // set_epoch(iteration) reaches the dataset; its epoch lives in shared memory, so persistent workers see it too.
    auto [order, lengths] = hf_pass(iteration_);
    hf_lengths_ = std::move(lengths);
    return order;
  }
  const std::int64_t n = iterable_->dataset_len;
  if (!dataset_) return SampleOrder::sequential(n);
  // IterableDatasetShard reseeds a generator-owning dataset (without set_epoch) with the epoch (0.24.0 on; before,
  // the generator is only synchronised from rank 0 and its stream goes on across passes).
  const bool reseeded = iterable_->sharded && reseeds_dataset_generator(release());
  if (!iterable_->workers.active()) {
    if (reseeded) dataset_->generator.manual_seed(static_cast<std::uint64_t>(iteration_));
    return draw_dataset_order(dataset_->generator);
  }
  // Each worker iterates a copy of the dataset (and of the shard around it) made when its process starts, so
  // the main process's generator never advances; every copy is alike, so one draw stands for every worker's.
  if (!iterable_->workers.persistent_workers) {
    TorchGenerator copy = dataset_->generator;
    if (reseeded) copy.manual_seed(static_cast<std::uint64_t>(iteration_));
    return draw_dataset_order(copy);
  }
  if (!persistent_dataset_) persistent_dataset_ = PersistentWorkerDataset{dataset_->generator, iteration_};
  if (reseeded) persistent_dataset_->generator.manual_seed(static_cast<std::uint64_t>(persistent_dataset_->epoch));
  return draw_dataset_order(persistent_dataset_->generator);
}

LoaderPass DataLoaderShard::iterate(Communicator* comm, RestoredPass restored) {
  if (!(restored == RestoredPass{}) &&
      (iterable_ || restored.skipped_batches < 0 || restored.discarded_iterators < 0)) {
    throw std::invalid_argument("DataLoaderShard::iterate: a restored pass is a map-style loader's, counts >= 0");
  }
  // __iter__ synchronises rng_types in order before begin(): the CUDA generator's absence raises first.
  if (synchronize_cuda_rng_ && !mutant(Mutation::CudaRngSyncSkipped)) throw cuda_rng_unavailable(release());
  if (synchronize_ && has_synchronized_generator()) {
    if (!comm) throw AccelerateError(PyErrorType::RuntimeError, "iterate", "rng synchronisation needs a communicator");
    synchronize(*comm);
  }
  // begin(): remainder from the dataset length % total_batch_size unless the user's loader drops the
  // last batch; a raising total_batch_size leaves it at -1. Before 1.16.0 skip_first_batches builds its loader
  // without _drop_last, so a skipped loader always computes it (skip_keeps_loader_options).
  std::int64_t remainder = -1;
  const bool user_drop_last = map_ ? map_->batch_sampler.drop_last : iterable_->shard.drop_last;
  const bool drops_last = user_drop_last && !(skip_ && !skip_keeps_loader_options(release()));
  // Before 0.24.0 the remainder is computed with drop_last too (remainder_with_drop_last).
  if (!drops_last || remainder_with_drop_last(release())) {
    // getattr(self.dataset, "total_dataset_length", len(self.dataset)): the dataset's length, not the loader's
    // total_dataset_length property (which raises before 0.19.0 for a reason of its own).
    const auto total = total_batch_size();
    const auto length = map_ ? Attribute<std::int64_t>(map_->sampler.dataset_len) : total_dataset_length();
    if (total.ok() && length.ok()) remainder = length.value() % total.value();
  }
  if (remainder_in_gradient_state(release())) {
    // Before 0.20.0 a failed computation leaves GradientState's previous value.
    if (remainder == -1) remainder = *gradient_state_remainder_;
    *gradient_state_remainder_ = remainder;
  }
  // __iter__ calls self.set_epoch(self.iteration) from 0.24.0 on; before, the loaders count nothing.
  if (has_iteration()) apply_epoch(iteration_);
  // Only a loader that was load_state_dict'ed has a restored pass, and that dropped the initial iterator.
  if (!(restored == RestoredPass{})) initial_iterator_ = false;
  SampleOrder order = next_order(restored.discarded_iterators, std::exchange(initial_iterator_, false));
  LoaderPass pass{std::move(order), layout(),   skip_.value_or(0) + restored.skipped_batches,
                  remainder,        iteration_, sampler_epoch()};
  if (map_ ? map_->snapshot_raises : iterable_->snapshot_raises) {
    // The snapshot after the lookahead fetch raises before anything is yielded or counted. A pass with nothing to
    // fetch yields a bare None first in these releases, which no loader model carries.
    if (pass.underlying_batches() == 0) {
      throw NotModelled(
          "an empty pass of a StatefulDataLoader with worker processes in Accelerate 0.34.0 - 1.12.x (it yields None, "
          "then raises; not recorded)");
    }
    throw missing_sampler_iter_yielded();
  }
  // A pass whose underlying loader yields nothing at all returns before counting an iteration; one
  // whose batches are all skipped still counts.
  if (pass.underlying_batches() - (iterable_ && !mutant(Mutation::IterableSkipKeepsCounter) ? 0 : pass.skip) > 0) ++iteration_;
  pass.iteration_after = iteration_;
  return pass;
}

}  // namespace accel
