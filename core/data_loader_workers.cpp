#include "data_loader_workers.hpp"

#include <algorithm>
#include <numeric>

#include "mutation.hpp"

namespace accel {

const char* worker_split_name(WorkerSplit split) noexcept {
  switch (split) {
    case WorkerSplit::None:
      return "none";
    case WorkerSplit::Strided:
      return "strided";
    case WorkerSplit::Contiguous:
      return "contiguous";
  }
  return "none";
}

WorkerStream worker_stream(std::int64_t samples, const DataLoaderWorkers& workers, std::int64_t worker) {
  const std::int64_t W = workers.num_workers;
  switch (workers.split) {
    case WorkerSplit::None:
      return {0, 1, samples};
    case WorkerSplit::Strided: {
      // A worker past the end of a short stream yields nothing.
      const std::int64_t length = samples > worker ? (samples - worker + W - 1) / W : 0;
      return {worker, mutant(Mutation::WorkerStrideIgnored) ? 1 : W, length};
    }
    case WorkerSplit::Contiguous: {
      const std::int64_t per = (samples + W - 1) / W;
      const std::int64_t begin = std::min(samples, worker * per);
      return {begin, 1, std::min(per, samples - begin)};
    }
  }
  return {0, 1, samples};
}

WorkerRoundRobin::WorkerRoundRobin(std::vector<std::int64_t> counts) : counts_(std::move(counts)) {
  sorted_ = counts_;
  std::sort(sorted_.begin(), sorted_.end());
  prefix_.assign(sorted_.size() + 1, 0);
  for (std::size_t i = 0; i < sorted_.size(); ++i) prefix_[i + 1] = prefix_[i] + sorted_[i];
  total_ = prefix_.back();
}

std::int64_t WorkerRoundRobin::yielded_before_round(std::int64_t k) const noexcept {
  // sum over workers of min(count, k): the workers with fewer than k batches give all of theirs.
  const auto below = std::lower_bound(sorted_.begin(), sorted_.end(), k) - sorted_.begin();
  return prefix_[static_cast<std::size_t>(below)] + k * (static_cast<std::int64_t>(sorted_.size()) - below);
}

WorkerBatch WorkerRoundRobin::at(std::int64_t j) const noexcept {
  // The round holding j: the largest k with yielded_before_round(k) <= j.
  std::int64_t lo = 0, hi = sorted_.empty() ? 0 : sorted_.back();
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (yielded_before_round(mid) <= j)
      lo = mid;
    else
      hi = mid - 1;
  }
  std::int64_t left = j - yielded_before_round(lo);
  for (std::size_t w = 0; w < counts_.size(); ++w) {
    if (counts_[w] <= lo) continue;  // this worker has dropped out by round lo
    if (left-- == 0) return {static_cast<std::int64_t>(w), lo};
  }
  return {0, lo};  // j >= size(): not reached by callers
}

std::int64_t WorkerRoundRobin::taken_from(std::int64_t worker, std::int64_t j) const noexcept {
  if (j <= 0) return 0;
  if (j >= total_) return counts_[static_cast<std::size_t>(worker)];
  const WorkerBatch next = at(j);  // the first batch not taken
  const std::int64_t count = counts_[static_cast<std::size_t>(worker)];
  return std::min(count, next.index + (worker < next.worker ? 1 : 0));
}

std::int64_t WorkerRoundRobin::yield_index(std::int64_t worker, std::int64_t index) const noexcept {
  // Round `index` takes this batch after those of the lower workers that are still running.
  std::int64_t before = yielded_before_round(index);
  for (std::int64_t w = 0; w < worker; ++w) before += counts_[static_cast<std::size_t>(w)] > index ? 1 : 0;
  return before;
}

namespace {

std::vector<std::int64_t> counts_of(const std::vector<IterableDatasetShard>& shards) {
  std::vector<std::int64_t> counts;
  for (const auto& s : shards) counts.push_back(s.num_batches());
  return counts;
}

std::vector<WorkerStream> streams_of(std::int64_t n, const DataLoaderWorkers& workers) {
  std::vector<WorkerStream> streams;
  for (std::int64_t w = 0; w < workers.num_workers; ++w) streams.push_back(worker_stream(n, workers, w));
  return streams;
}

std::vector<WorkerStream> consecutive_streams(const std::vector<std::int64_t>& lengths) {
  std::vector<WorkerStream> streams;
  std::int64_t begin = 0;
  for (std::int64_t length : lengths) {
    streams.push_back(WorkerStream{begin, 1, length});
    begin += length;
  }
  return streams;
}

std::int64_t sum_of(const std::vector<std::int64_t>& values) {
  std::int64_t total = 0;
  for (std::int64_t v : values) total += v;
  return total;
}

std::vector<IterableDatasetShard> shards_of(const std::vector<WorkerStream>& streams, IterableShardOptions shard,
                                            bool sharded) {
  std::vector<IterableDatasetShard> shards;
  for (const WorkerStream& s : streams) shards.emplace_back(s.length, shard, sharded);
  return shards;
}

}  // namespace

WorkerBatches::WorkerBatches(std::int64_t dataset_len, IterableShardOptions shard, bool sharded,
                             DataLoaderWorkers workers)
    : dataset_len_(dataset_len),
      workers_(workers),
      streams_(streams_of(dataset_len, workers)),
      shards_(shards_of(streams_, shard, sharded)),
      round_robin_(counts_of(shards_)) {}

WorkerBatches::WorkerBatches(const std::vector<std::int64_t>& stream_lengths, IterableShardOptions shard, bool sharded,
                             DataLoaderWorkers workers)
    : dataset_len_(sum_of(stream_lengths)),
      workers_(workers),
      streams_(consecutive_streams(stream_lengths)),
      shards_(shards_of(streams_, shard, sharded)),
      round_robin_(counts_of(shards_)) {}

std::vector<std::int64_t> WorkerBatches::positions(std::int64_t j) const {
  const WorkerBatch at = locate(j);
  const auto w = static_cast<std::size_t>(at.worker);
  const IterableDatasetShard& shard = shards_[w];
  const WorkerStream& stream = streams_[w];
  const PositionRange range = shard.batch(at.index);
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(range.size()));
  for (std::int64_t v = range.begin; v < range.end; ++v) {
    // The worker's shard pads by cycling the start of its own stream.
    const std::int64_t i = v < stream.length ? v : (v - stream.length) % shard.pad_period();
    out.push_back(stream.position(i));
  }
  return out;
}

Batch WorkerBatches::batch_ids(std::int64_t j, const SampleOrder& order) const {
  Batch ids;
  for (std::int64_t p : positions(j)) ids.push_back(order[p]);
  return ids;
}

}  // namespace accel
