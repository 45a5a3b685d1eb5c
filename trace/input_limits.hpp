// The largest inputs accel-sim accepts (README: Input limits). They are chosen so that every size, count
// and position the core and the reports form from a config (products such as batch_size x num_processes,
// positions such as epochs x dataset_len) fits in int64, and so that the work and memory of one run stay
// within what one machine does in minutes. Beyond them a config is refused with exit 2 and the rule.
#pragma once

#include <cstdint>

namespace accel::trace {

// dataset_len, batch_size, num_samples, skip_first_batches, step counts, and any other count.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;
// num_processes (--ranks): the simulator keeps a state per rank and walks every rank per batch.
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 16;
// batch_size x num_processes, the samples of one step over all ranks.
constexpr std::int64_t kMaxTotalBatch = std::int64_t{1} << 40;
// epochs: the simulator and the what-if keep one record per epoch.
constexpr std::int64_t kMaxEpochs = 10000;
// DataLoader(num_workers=...): every worker is a process of the user's machine.
constexpr std::int64_t kMaxWorkers = 1024;
// num_workers x num_processes: every rank's every worker stream is replayed (until the workers are closed-form), and
// 65,536 ranks x 1,024 workers ran out of a 2 GiB address space after 15 s.
constexpr std::int64_t kMaxRankWorkers = std::int64_t{1} << 20;
// A datasets.IterableDataset's examples (the sum of shard_sizes) where they are replayed (a trace, a shuffle()
// buffer, split_dataset_by_node, resumes and later epochs): each pass of each rank holds its stream.
constexpr std::int64_t kMaxHfExamples = std::int64_t{1} << 27;
// Its examples times num_processes, replayed: IterableDatasetShard (the path with fewer shards than ranks, and a
// what-if alternative on any other) has every rank read the whole stream.
constexpr std::int64_t kMaxHfRankExamples = std::int64_t{1} << 28;
// Its examples where the what-if reads only shard lists (core/hf_stream_plan.hpp): any count it can add up.
constexpr std::int64_t kMaxHfStreamExamples = kMaxCount;
// Its shards (shard_sizes entries).
constexpr std::int64_t kMaxHfShards = std::int64_t{1} << 20;
// |set_epoch| entries: the sampler adds the epoch to a 64-bit seed.
constexpr std::int64_t kMaxSetEpoch = std::int64_t{1} << 40;

}  // namespace accel::trace
