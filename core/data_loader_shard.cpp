#include "data_loader_shard.hpp"

namespace accel {

DataLoaderShard::DataLoaderShard(MapLoaderOptions options)
    : options_(options), sampler_(std::make_shared<Sampler>(options.sampler)) {
  if (!options_.sharded) options_.shard = ShardOptions{1, 0, false, false};
  (void)shard();  // raises BatchSamplerShard's construction errors now, as Accelerate does
}

BatchSamplerShard DataLoaderShard::shard() const {
  return BatchSamplerShard(options_.batch_sampler, sampler_->size(), options_.shard);
}

DataLoaderShard DataLoaderShard::skip_first_batches(std::int64_t num_batches) const {
  DataLoaderShard skipped = *this;
  skipped.skip_ = num_batches;
  return skipped;
}

Attribute<std::int64_t> DataLoaderShard::len() const {
  const std::int64_t length = shard().size() - skip_.value_or(0);
  if (length < 0) return AttributeFailure{PyErrorType::ValueError, "__len__() should return >= 0"};
  return length;
}

Attribute<std::int64_t> DataLoaderShard::total_batch_size() const {
  // SkipBatchSampler never calls BatchSampler.__init__, so it has no batch_size to read.
  if (skip_) return AttributeFailure{PyErrorType::AttributeError, "'DataLoader' object has no attribute 'total_batch_size'"};
  const auto& s = options_.shard;
  return s.split_batches ? options_.batch_sampler.batch_size : options_.batch_sampler.batch_size * s.num_processes;
}

Attribute<std::int64_t> DataLoaderShard::total_dataset_length() const { return options_.sampler.dataset_len; }

std::optional<std::int64_t> DataLoaderShard::sampler_epoch() const {
  if (!sampler_->has_set_epoch()) return std::nullopt;
  return sampler_->epoch();
}

void DataLoaderShard::set_epoch(std::int64_t epoch) {
  iteration_ = epoch;
  if (sampler_->has_set_epoch()) sampler_->set_epoch(epoch);
}

LoaderPass DataLoaderShard::iterate() {
  // begin(): remainder from len(dataset) % total_batch_size unless the user's loader drops the last
  // batch; a raising total_batch_size leaves it at -1. A skipped loader is built without _drop_last.
  std::int64_t remainder = -1;
  const bool drop_last = skip_ ? false : options_.batch_sampler.drop_last;
  if (!drop_last) {
    const auto total = total_batch_size();
    if (total.ok()) remainder = options_.sampler.dataset_len % total.value();
  }
  set_epoch(iteration_);
  SampleOrder order = sampler_->iterate();
  LoaderPass pass{std::move(order), shard(), skip_.value_or(0), remainder, iteration_, sampler_epoch()};
  // A pass whose underlying loader yields nothing at all returns before counting an iteration.
  if (pass.num_batches() > 0) ++iteration_;
  pass.iteration_after = iteration_;
  return pass;
}

}  // namespace accel
