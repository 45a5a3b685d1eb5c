#include "batch_sampler_shard.hpp"

#include "saturating.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {

void check_batch_sampler_shard(std::optional<std::int64_t> batch_size, const ShardOptions& options) {
  if (options.split_batches && (!batch_size || *batch_size % options.num_processes != 0)) {
    throw AccelerateError(
        PyErrorType::ValueError, "BatchSamplerShard",
        "To use `BatchSamplerShard` in `split_batches` mode, the batch size (" +
            (batch_size ? std::to_string(*batch_size) : std::string("None")) +
            ") needs to be a round multiple of the number of processes (" +
            std::to_string(options.num_processes) + ").");
  }
}

BatchSamplerShard::BatchSamplerShard(BatchSampler batch_sampler, std::int64_t samples, ShardOptions options)
    : batch_sampler_(batch_sampler), samples_(samples), options_(options) {
  check_batch_sampler_shard(batch_sampler_.batch_size, options_);
  const std::int64_t b = batch_sampler_.batch_size;
  const std::int64_t wrap = options_.split_batches ? b : b * options_.num_processes;
  pad_period_ = std::max<std::int64_t>(1, std::min(wrap, samples_));
}

std::int64_t BatchSamplerShard::size() const noexcept {
  return replay_batch_sampler_shard_len(batch_sampler_.size(samples_), batch_sampler_.drop_last, options_);
}

std::int64_t BatchSamplerShard::num_batches() const noexcept {
  const std::int64_t b = batch_sampler_.batch_size;
  const std::int64_t R = options_.num_processes;
  const std::int64_t r = options_.process_index;
  const std::int64_t L = batch_sampler_.size(samples_);
  if (options_.split_batches) {
    const std::int64_t full = samples_ / b;
    const std::int64_t tail = samples_ % b;
    if (batch_sampler_.drop_last || tail == 0) return full;
    if (options_.even_batches) return full + 1;
    return full + (tail > (b / R) * r ? 1 : 0);
  }
  if (batch_sampler_.drop_last && mutant(Mutation::DropLastKeepsPartialRound)) return L > r ? (L - 1 - r) / R + 1 : 0;
  if (batch_sampler_.drop_last) return L / R;
  if (options_.even_batches) return (L + R - 1) / R;
  if (mutant(Mutation::UnevenRankOffByOne)) return L / R + (r + 1 < L % R ? 1 : 0);
  return L > r ? (L - 1 - r) / R + 1 : 0;
}

PositionRange BatchSamplerShard::batch(std::int64_t j) const noexcept {
  const std::int64_t b = batch_sampler_.batch_size;
  const std::int64_t R = options_.num_processes;
  const std::int64_t r = options_.process_index;
  // Uneven and drop_last shards never read past the epoch; even ones read into the padding.
  const bool padded = options_.even_batches && !batch_sampler_.drop_last;
  if (options_.split_batches) {
    const std::int64_t per_rank = b / R;
    const std::int64_t begin = sat_add(sat_mul(j, b), r * (mutant(Mutation::SplitSliceOffset) ? per_rank - 1 : per_rank));
    return {begin, padded ? sat_add(begin, per_rank) : std::min(sat_add(begin, per_rank), samples_)};
  }
  const std::int64_t begin = sat_mul(sat_add(sat_mul(j, R), r), b);
  return {begin, padded ? sat_add(begin, b) : std::min(sat_add(begin, b), samples_)};
}

Batch BatchSamplerShard::batch_ids(std::int64_t j, const SampleOrder& order) const {
  const PositionRange range = batch(j);
  Batch ids;
  ids.reserve(static_cast<std::size_t>(range.size()));
  for (std::int64_t p = range.begin; p < range.end; ++p) ids.push_back(mutant(Mutation::PadFromEnd) && p >= samples_ ? order[samples_ - 1 - (p - samples_) % pad_period_] : order.padded(p, pad_period_));
  return ids;
}

std::int64_t replay_batch_sampler_shard_len(std::int64_t inner_len, bool drop_last, ShardOptions options) {
  const std::int64_t R = options.num_processes;
  if (options.split_batches) return inner_len;
  if (inner_len % R == 0) return inner_len / R;
  const std::int64_t length = inner_len / R;
  if (drop_last) return length;
  if (options.even_batches) return length + 1;
  return options.process_index < inner_len % R ? length + 1 : length;
}

namespace {

Batch slice(const Batch& batch, std::int64_t begin, std::int64_t end) {
  begin = std::min<std::int64_t>(begin, static_cast<std::int64_t>(batch.size()));
  end = std::min<std::int64_t>(end, static_cast<std::int64_t>(batch.size()));
  return Batch(batch.begin() + begin, batch.begin() + std::max(begin, end));
}

void append(Batch& to, const Batch& from) { to.insert(to.end(), from.begin(), from.end()); }

std::vector<Batch> replay_split(const std::vector<Batch>& batches, std::int64_t b, bool drop_last,
                                const ShardOptions& o) {
  std::vector<Batch> out;
  const std::int64_t per_rank = b / o.num_processes;
  const std::int64_t begin = per_rank * o.process_index;
  Batch initial_data;
  const Batch* last = nullptr;
  for (std::size_t idx = 0; idx < batches.size(); ++idx) {
    const Batch& batch = batches[idx];
    if (idx == 0) initial_data = batch;
    if (static_cast<std::int64_t>(batch.size()) == b) out.push_back(slice(batch, begin, begin + per_rank));
    last = &batch;
  }
  if (!drop_last && !initial_data.empty() && static_cast<std::int64_t>(last->size()) < b) {
    if (!o.even_batches) {
      if (static_cast<std::int64_t>(last->size()) > begin) out.push_back(slice(*last, begin, begin + per_rank));
    } else {
      while (static_cast<std::int64_t>(initial_data.size()) < b) {
        const Batch copy = initial_data;
        append(initial_data, copy);
      }
      Batch padded = *last;
      append(padded, initial_data);
      out.push_back(slice(padded, begin, begin + per_rank));
    }
  }
  return out;
}

std::vector<Batch> replay_no_split(const std::vector<Batch>& batches, std::optional<std::int64_t> batch_size,
                                   bool drop_last, const ShardOptions& o) {
  std::vector<Batch> out;
  const std::int64_t R = o.num_processes;
  const std::int64_t r = o.process_index;
  // Accelerate keeps the first batches flat when it knows the batch size, as a list of batches otherwise.
  Batch initial_flat;
  std::vector<Batch> initial_batches;
  std::optional<Batch> batch_to_yield;
  Batch batch;
  std::int64_t idx = -1;
  for (const Batch& current : batches) {
    ++idx;
    batch = current;
    if (!drop_last && idx < R) {
      if (!batch_size) initial_batches.push_back(batch);
      else append(initial_flat, batch);
    }
    if (idx % R == r) batch_to_yield = batch;
    if (idx % R == R - 1 && (!batch_size || static_cast<std::int64_t>(batch.size()) == *batch_size)) {
      out.push_back(*batch_to_yield);
      batch_to_yield.reset();
    }
  }
  const bool have_initial = batch_size ? !initial_flat.empty() : !initial_batches.empty();
  if (drop_last || !have_initial) return out;
  const bool yield_pending = batch_to_yield && !batch_to_yield->empty();
  if (!o.even_batches) {
    if (yield_pending) out.push_back(*batch_to_yield);
    return out;
  }
  if (yield_pending && (!batch_size || static_cast<std::int64_t>(batch_to_yield->size()) == *batch_size)) {
    out.push_back(*batch_to_yield);
  }
  if (batch_size) {
    while (static_cast<std::int64_t>(initial_flat.size()) < R * *batch_size) {
      const Batch copy = initial_flat;
      append(initial_flat, copy);
    }
  } else {
    while (static_cast<std::int64_t>(initial_batches.size()) < R) {
      const std::vector<Batch> copy = initial_batches;
      initial_batches.insert(initial_batches.end(), copy.begin(), copy.end());
    }
  }
  if (!batch_size || static_cast<std::int64_t>(batch.size()) == *batch_size) {
    batch.clear();
    ++idx;
  }
  std::size_t cycle_index = 0;
  while (idx % R != 0 || !batch.empty()) {
    if (!batch_size) {
      batch = initial_batches[cycle_index];
      if (idx % R == r) out.push_back(batch);
      ++cycle_index;
    } else {
      const std::size_t end_index = cycle_index + static_cast<std::size_t>(*batch_size) - batch.size();
      batch.insert(batch.end(), initial_flat.begin() + static_cast<std::ptrdiff_t>(cycle_index),
                   initial_flat.begin() + static_cast<std::ptrdiff_t>(std::min(end_index, initial_flat.size())));
      if (idx % R == r) out.push_back(batch);
      cycle_index = end_index;
    }
    batch.clear();
    ++idx;
  }
  return out;
}

}  // namespace

std::vector<Batch> replay_batch_sampler_shard(const std::vector<Batch>& batches,
                                              std::optional<std::int64_t> batch_size, bool drop_last,
                                              ShardOptions options) {
  check_batch_sampler_shard(batch_size, options);
  return options.split_batches ? replay_split(batches, *batch_size, drop_last, options)
                               : replay_no_split(batches, batch_size, drop_last, options);
}

}  // namespace accel
