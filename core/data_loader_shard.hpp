// DataLoaderShard over a map-style dataset: the per-rank loader prepare_data_loader returns.
//
// It owns what Accelerate's loader tracks across passes: the iteration counter it hands to set_epoch,
// the sampler it shares with every loader skip_first_batches derives from it, and the per-pass state
// GradientState reads (end_of_dataloader, remainder). A pass is returned as an addressable view, so a
// caller can read one rank's k-th batch without producing the others.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attribute.hpp"
#include "batch.hpp"
#include "batch_sampler_shard.hpp"
#include "sample_order.hpp"
#include "sampler.hpp"

namespace accel {

// One pass of a loader: which batches it yields and what it reports while doing so.
struct LoaderPass {
  SampleOrder order;
  BatchSamplerShard shard;
  std::int64_t skip = 0;         // batches of the shard that SkipBatchSampler drops first
  std::int64_t remainder = -1;   // loader.remainder during the pass
  std::int64_t iteration_after = 0;
  std::optional<std::int64_t> sampler_epoch_after;

  std::int64_t num_batches() const noexcept { return std::max<std::int64_t>(0, shard.num_batches() - skip); }
  Batch batch(std::int64_t j) const { return shard.batch_ids(j + skip, order); }
  PositionRange positions(std::int64_t j) const noexcept { return shard.batch(j + skip); }
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
};

class DataLoaderShard {
 public:
  explicit DataLoaderShard(MapLoaderOptions options);

  // skip_first_batches(loader, k): a new loader that shares this one's sampler and starts from its
  // iteration counter; iterating it does not advance this one.
  DataLoaderShard skip_first_batches(std::int64_t num_batches) const;

  bool is_skipped() const noexcept { return skip_.has_value(); }
  Attribute<std::int64_t> len() const;
  Attribute<std::int64_t> total_batch_size() const;
  Attribute<std::int64_t> total_dataset_length() const;
  std::int64_t iteration() const noexcept { return iteration_; }
  // The seedable sampler's epoch, or nullopt when the sampler has none.
  std::optional<std::int64_t> sampler_epoch() const;

  void set_epoch(std::int64_t epoch);
  LoaderPass iterate();

 private:
  BatchSamplerShard shard() const;

  MapLoaderOptions options_;
  std::shared_ptr<Sampler> sampler_;
  std::optional<std::int64_t> skip_;
  std::int64_t iteration_ = 0;
};

}  // namespace accel
