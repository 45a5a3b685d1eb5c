// BatchSamplerShard: which of the global batches a rank gets, with Accelerate's tail rules.
//
// For a fixed batch size over an index-addressable order, every batch a rank yields is one contiguous
// range of "virtual positions": positions past the end of the epoch wrap onto its first samples (the
// even_batches padding). So the k-th batch of a rank, the number of batches and len() are O(1) and a
// rank's whole epoch costs O(N/R), without replaying the other ranks.
//
// Batch samplers without a batch size (explicit lists of varying batches) have no such structure; for
// them replay_batch_sampler_shard() runs Accelerate's loop as written. It is also the oracle the direct
// computation is checked against.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "batch.hpp"
#include "batch_sampler.hpp"
#include "sample_order.hpp"

namespace accel {

struct ShardOptions {
  std::int64_t num_processes = 1;
  std::int64_t process_index = 0;
  bool split_batches = false;
  bool even_batches = true;
};

// Half-open range of virtual positions in the padded epoch order.
struct PositionRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const noexcept { return end - begin; }
  friend bool operator==(const PositionRange&, const PositionRange&) = default;
};

class BatchSamplerShard {
 public:
  // `samples` is len(sampler). Raises ValueError as BatchSamplerShard.__init__ does for split_batches
  // with a batch size that is not a multiple of num_processes.
  BatchSamplerShard(BatchSampler batch_sampler, std::int64_t samples, ShardOptions options);

  const ShardOptions& options() const noexcept { return options_; }
  const BatchSampler& batch_sampler() const noexcept { return batch_sampler_; }
  std::int64_t samples() const noexcept { return samples_; }

  // len(shard), as Accelerate reports it (it can differ from num_batches()).
  std::int64_t size() const noexcept;
  // How many batches iterating this rank's shard really yields.
  std::int64_t num_batches() const noexcept;
  // The rank's j-th batch, 0 <= j < num_batches().
  PositionRange batch(std::int64_t j) const noexcept;
  // Period of the padding cycle: positions >= samples() map to order[(p - samples()) % period].
  std::int64_t pad_period() const noexcept { return pad_period_; }

  Batch batch_ids(std::int64_t j, const SampleOrder& order) const;

 private:
  BatchSampler batch_sampler_;
  std::int64_t samples_;
  ShardOptions options_;
  std::int64_t pad_period_ = 1;
};

// Accelerate's BatchSamplerShard.__iter__ run over explicit batches. `batch_size` is the inner batch
// sampler's batch_size attribute (nullopt for a plain list of batches), `drop_last` its drop_last.
// Raises ValueError exactly where the constructor does.
std::vector<Batch> replay_batch_sampler_shard(const std::vector<Batch>& batches,
                                              std::optional<std::int64_t> batch_size, bool drop_last,
                                              ShardOptions options);

// len() of that shard.
std::int64_t replay_batch_sampler_shard_len(std::int64_t inner_len, bool drop_last, ShardOptions options);

// The constructor's check, shared by both forms.
void check_batch_sampler_shard(std::optional<std::int64_t> batch_size, const ShardOptions& options);

}  // namespace accel
