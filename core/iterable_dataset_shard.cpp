#include "iterable_dataset_shard.hpp"

#include "saturating.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {

IterableDatasetShard::IterableDatasetShard(std::int64_t dataset_len, IterableShardOptions options, bool sharded)
    : dataset_len_(dataset_len), options_(options), sharded_(sharded) {
  const auto& o = options_;
  if (sharded_ && o.split_batches && o.batch_size > 1 && o.batch_size % o.num_processes != 0) {
    throw AccelerateError(PyErrorType::ValueError, "IterableDatasetShard",
                          "To use `IterableDatasetShard` in `split_batches` mode, the batch size (" +
                              std::to_string(o.batch_size) +
                              ") needs to be a round multiple of the number of processes (" +
                              std::to_string(o.num_processes) + ").");
  }
  if (loader_batch_size() < 1) {
    throw AccelerateError(PyErrorType::ValueError, "DataLoader",
                          "batch_size should be a positive integer value, but got batch_size=" +
                              std::to_string(loader_batch_size()));
  }
  pad_period_ = std::max<std::int64_t>(1, std::min(real_batch_size(), dataset_len_));
}

std::int64_t IterableDatasetShard::real_batch_size() const noexcept {
  if (!sharded_) return options_.batch_size;
  return options_.split_batches ? options_.batch_size : options_.batch_size * options_.num_processes;
}

std::int64_t IterableDatasetShard::loader_batch_size() const noexcept {
  if (!sharded_) return options_.batch_size;
  return options_.split_batches ? options_.batch_size / options_.num_processes : options_.batch_size;
}

std::int64_t IterableDatasetShard::size() const noexcept {
  if (!sharded_) return dataset_len_;
  const std::int64_t per_round = options_.batch_size * options_.num_processes;
  const std::int64_t rounds = options_.drop_last ? dataset_len_ / per_round : (dataset_len_ + per_round - 1) / per_round;
  return rounds * options_.batch_size;
}

std::int64_t IterableDatasetShard::loader_len() const noexcept {
  const std::int64_t n = size();
  const std::int64_t b = loader_batch_size();
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

std::int64_t IterableDatasetShard::num_batches() const noexcept {
  const std::int64_t real = real_batch_size();
  const std::int64_t full = dataset_len_ / real;
  const bool tail = dataset_len_ % real != 0 && (!options_.drop_last || mutant(Mutation::IterableDropLastKeepsTail));
  return full + (tail ? 1 : 0);
}

PositionRange IterableDatasetShard::batch(std::int64_t j) const noexcept {
  if (!sharded_) {
    // The raw stream batched by torch: the last batch is short, never padded.
    const std::int64_t b = options_.batch_size;
    return {sat_mul(j, b), std::min(sat_mul(sat_add(j, 1), b), dataset_len_)};
  }
  const std::int64_t per_rank = loader_batch_size();
  const std::int64_t begin = sat_add(sat_mul(j, real_batch_size()), options_.process_index * per_rank);
  return {begin, sat_add(begin, per_rank)};
}

Batch IterableDatasetShard::batch_ids(std::int64_t j, const SampleOrder& order) const {
  const PositionRange range = batch(j);
  Batch ids;
  ids.reserve(static_cast<std::size_t>(range.size()));
  for (std::int64_t p = range.begin; p < range.end; ++p) ids.push_back(order.padded(p, pad_period_));
  return ids;
}

}  // namespace accel
