// IterableDatasetShard and the DataLoader that batches it: which elements of an iterable dataset's
// stream each rank gets.
//
// Accelerate cuts the stream into "real batches" (batch_size x num_processes elements, or batch_size
// with split_batches), gives each rank its slice, and completes a short last real batch by cycling the
// first one unless drop_last. Each slice becomes exactly one batch of the rank's DataLoader, so rank
// r's j-th batch is one contiguous range of virtual stream positions, computed directly.
#pragma once

#include <cstdint>

#include "batch.hpp"
#include "batch_sampler_shard.hpp"
#include "sample_order.hpp"

namespace accel {

struct IterableShardOptions {
  std::int64_t batch_size = 1;  // the user's DataLoader batch_size
  bool drop_last = false;
  std::int64_t num_processes = 1;
  std::int64_t process_index = 0;
  bool split_batches = false;
};

class IterableDatasetShard {
 public:
  // `sharded` is false when prepare_data_loader leaves the dataset alone (one process): the DataLoader
  // then batches the raw stream. Raises ValueError as IterableDatasetShard.__init__ does.
  IterableDatasetShard(std::int64_t dataset_len, IterableShardOptions options, bool sharded);

  const IterableShardOptions& options() const noexcept { return options_; }
  bool sharded() const noexcept { return sharded_; }
  // len(IterableDatasetShard) (len(dataset) when not sharded). With split_batches it counts
  // batch_size x num_processes per real batch, so it over-reports: Accelerate's behaviour.
  std::int64_t size() const noexcept;
  // batch_size of the DataLoader over the shard.
  std::int64_t loader_batch_size() const noexcept;
  // len() of that DataLoader.
  std::int64_t loader_len() const noexcept;

  std::int64_t num_batches() const noexcept;
  PositionRange batch(std::int64_t j) const noexcept;
  std::int64_t pad_period() const noexcept { return pad_period_; }
  Batch batch_ids(std::int64_t j, const SampleOrder& order) const;

 private:
  std::int64_t real_batch_size() const noexcept;

  std::int64_t dataset_len_;
  IterableShardOptions options_;
  bool sharded_;
  std::int64_t pad_period_ = 1;
};

}  // namespace accel
