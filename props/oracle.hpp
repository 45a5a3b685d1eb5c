// What Accelerate does, written down from its code (accelerate/data_loader.py, 1.15) independently of
// core/: the epoch order each pass draws, how many batches and what len() each rank has, and a literal
// replay of IterableDatasetShard.__iter__. The properties compare the core and the simulator with these.
#pragma once

#include <cstdint>
#include <vector>

#include "core/batch.hpp"
#include "loader_config.hpp"
#include "trace/trace.hpp"

namespace accel::props {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Samples in one global step (all ranks' batches together): b*R, or b with split_batches (b is then
// the global batch) or on one process. drop_last drops the incomplete global step whole, and
// even_batches / IterableDatasetShard pad the last one to this size.
std::int64_t step_samples(const LoaderConfig& c);

// The order pass `pass` draws (the loader's iteration counter equals the pass index whenever passes
// yield anything). Map + shuffle: SeedableRandomSampler, torch.randperm(N) from manual_seed(data_seed +
// epoch). Iterable + generator: IterableDatasetShard reseeds the dataset's generator with
// manual_seed(epoch) (the user's seed is lost); unsharded or dispatched, nothing reseeds it and each
// pass draws the next randperm from the user's seed. Otherwise 0..N-1.
std::vector<SampleId> epoch_order(const LoaderConfig& c, std::int64_t pass);

// Batches rank r yields in one unskipped pass of the prepared DataLoaderShard.
//  map, no split:  L = len(BatchSampler); drop_last: floor(L/R); even: ceil(L/R); uneven: floor(L/R) + (r < L mod R)
//  map, split:     drop_last: floor(N/b); even: ceil(N/b); uneven: floor(N/b) + (N mod b > r*b/R)
//  iterable:       ceil or floor(N / step_samples)  (every rank alike)
//  one process:    len(BatchSampler) = ceil or floor(N/b)
std::int64_t shard_batches(const LoaderConfig& c, std::int64_t rank);

// len() of the prepared DataLoaderShard of rank r (unskipped).
//  map, no split: len(BatchSamplerShard), the same as shard_batches.
//  map, split:    len(batch_sampler) = ceil or floor(N/b) on every rank, even where the rank yields one
//                 batch fewer (split + even_batches=False).
//  iterable:      DataLoader's len over IterableDatasetShard.__len__ = ceil|floor(N/(b*R)) * b samples
//                 in batches of b (no split: right), or of b/R with split_batches, where b is the global
//                 batch: R * ceil|floor(N/(b*R)) batches, not ceil|floor(N/b).
std::int64_t shard_len(const LoaderConfig& c, std::int64_t rank);

// IterableDatasetShard.__iter__ for rank r over `stream`, then torch's DataLoader batching of what it
// yields (unsharded: the raw stream in batches of b, the short last one dropped with drop_last).
std::vector<Batch> replay_iterable_shard(const std::vector<SampleId>& stream, const LoaderConfig& c, std::int64_t rank);

// How often each id 0..n-1 occurs in `batches`.
std::vector<std::int64_t> multiplicity(const std::vector<const std::vector<Batch>*>& batches, std::int64_t n);

// Every rank's batches of pass `pass` in step order (step j of rank 0, 1, ..., R-1, then step j+1):
// the order in which every loader here hands out the epoch's positions.
std::vector<SampleId> flatten_steps(const std::vector<trace::RankRecord>& ranks, std::size_t pass);

}  // namespace accel::props
