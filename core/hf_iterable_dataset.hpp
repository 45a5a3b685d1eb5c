// A HuggingFace `datasets.IterableDataset` made of shards, and the example ids it yields: per epoch, per node of
// split_dataset_by_node, per piece of `.shard()` (Accelerate's path for a dataset with enough shards), per DataLoader
// worker.
//
// Modelled on datasets 5.2, 4.8 and 3.6 (iterable_dataset.py, distributed.py, utils/sharding.py, read there and
// recorded: golden/hf-streams/). The dataset is IterableDataset.from_generator(gen, gen_kwargs={"shards": [...]}),
// shard s yielding its examples in order; an example's id is its position in the unshuffled concatenation of the
// shards. The library keeps a pipeline of examples iterables, [BufferShuffled -> InterleavedShards ->] Examples(shard
// list), and every operation is one of theirs (5.2's; the older releases' differences are the rules below):
// - shuffle(seed, buffer_size, max_buffer_input_shards): permutes the shard list with default_rng(seed) (a copy), and
//   wraps it in an interleave of up to max_buffer_input_shards contiguous shard groups and a shuffle buffer that
//   permutes whatever it holds once it is full, yields all but buffer_size // 2 of it, and keeps the rest;
// - set_epoch(e), e > 0: at iteration the shard list is permuted again with default_rng(e) — with or without
//   shuffle() — and the buffer's generator is re-derived (shift_rngs: default_rng(integers(0, 2^63) - e));
// - split_dataset_by_node(rank, world_size) (strategy "auto"; nested splits compose): by shards, rank::world_size,
//   when the shard count is a multiple of world_size; otherwise every node reads everything and keeps examples
//   i % world_size == rank of its stream;
// - shard(n, i) (contiguous blocks of shards; IndexError for an index past the shards);
// - DataLoader worker w of W: shards w::W of what is left (a worker without one yields nothing), and its buffer's
//   generator shifted by w (even worker 0's: num_workers=1 shuffles differently from num_workers=0).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "numpy_generator.hpp"

namespace accel {

// A map-style datasets.Dataset after .shuffle(seed): index i holds row permutation[i], the permutation numpy's
// default_rng(seed).permutation(len) draws (arrow_dataset.py, the same in 3.6, 4.8 and 5.2).
std::vector<std::int64_t> hf_dataset_shuffle_indices(std::int64_t len, std::uint64_t seed);

// The `datasets` releases modelled, each recorded (golden/hf-streams/datasets-<version>.json), and the rules in
// which they differ. Each rule is named where it applies; nothing else differs on the modelled paths.
enum class DatasetsRelease { v3_6, v4_8, v5_2 };

// "3.6.0" / "3.6" -> v3_6 ...; nullopt for a release not modelled.
std::optional<DatasetsRelease> datasets_release(std::string_view version) noexcept;
const char* datasets_version(DatasetsRelease release) noexcept;
inline constexpr const char* kDatasetsVersionsModelled = "3.6, 4.8, 5.2";

// 4.x on: shuffle() permutes the shard list when it is called (so .shard() afterwards takes pieces of the permuted
// list); 3.6 keeps the list and permutes it at every iteration with the epoch's generator.
constexpr bool shuffle_permutes_shards_at_call(DatasetsRelease r) noexcept { return r >= DatasetsRelease::v4_8; }
// 4.x on: set_epoch(e > 0) permutes the shard list with default_rng(e) whether or not the dataset is shuffled, and
// re-derives the buffer's generator (shift_rngs); 3.6 re-derives a shuffled dataset's generator only (the
// "effective generator", which then also orders the shards).
constexpr bool epoch_permutes_every_shard_list(DatasetsRelease r) noexcept { return r >= DatasetsRelease::v4_8; }
// 4.x on: each DataLoader worker shifts the buffer's generator by its id; 3.6 workers share one generator.
constexpr bool workers_shift_buffer_generator(DatasetsRelease r) noexcept { return r >= DatasetsRelease::v4_8; }
// 5.x: the buffer reads up to max_buffer_input_shards shard groups round-robin and, once full, yields all but half
// of a permutation of itself; before, a full buffer swaps out one random slot per example (integers drawn 1000 at
// a time) and shuffles what is left at the end.
constexpr bool buffer_yields_half_a_permutation(DatasetsRelease r) noexcept { return r >= DatasetsRelease::v5_2; }

struct HfShuffle {
  std::uint64_t seed = 0;
  std::int64_t buffer_size = 1000;
  // shuffle(max_buffer_input_shards=...), a 5.x keyword (default 10 there); nullopt: not passed.
  std::optional<std::int64_t> max_buffer_input_shards;
  friend bool operator==(const HfShuffle&, const HfShuffle&) = default;
};

// torch.utils.data.get_worker_info() inside a DataLoader worker.
struct HfWorker {
  std::int64_t id = 0;
  std::int64_t num_workers = 1;
};

class HfIterableDataset {
 public:
  // from_generator over shards of these sizes (at least one; a shard may be empty). Raises ValueError otherwise.
  static HfIterableDataset from_shards(std::vector<std::int64_t> shard_sizes,
                                       DatasetsRelease release = DatasetsRelease::v5_2);

  // IterableDataset.shuffle. Raises ValueError for a second shuffle (not modelled), a bad buffer, or
  // max_buffer_input_shards before 5.x (TypeError there: the keyword does not exist; give 1).
  HfIterableDataset shuffle(const HfShuffle& options) const;
  // datasets.distributed.split_dataset_by_node(dataset, rank, world_size), strategy "auto".
  HfIterableDataset split_dataset_by_node(std::int64_t rank, std::int64_t world_size) const;
  // IterableDataset.shard(num_shards, index, contiguous): raises IndexError (the library's) when the piece
  // has no shard.
  HfIterableDataset shard(std::int64_t num_shards, std::int64_t index, bool contiguous = true) const;
  void set_epoch(std::int64_t epoch) noexcept { epoch_ = epoch; }

  // IterableDataset.n_shards: the shards this node reads (split by shards), or all of them.
  std::int64_t n_shards() const noexcept;
  std::int64_t epoch() const noexcept { return epoch_; }
  const std::vector<std::int64_t>& shard_sizes() const noexcept { return sizes_.get(); }
  std::int64_t dataset_len() const noexcept { return total_; }
  bool is_shuffled() const noexcept { return buffer_.has_value(); }
  const std::optional<HfShuffle>& shuffle_options() const noexcept { return shuffle_; }
  DatasetsRelease release() const noexcept { return release_; }
  // split_dataset_by_node's (rank, world_size), composed.
  std::optional<std::pair<std::int64_t, std::int64_t>> distributed() const noexcept { return distributed_; }

  // The ids iter(dataset) yields in this epoch: in the main process (no worker), or in one DataLoader worker.
  std::vector<std::int64_t> stream(std::optional<HfWorker> worker = std::nullopt) const;

  // The shards iter(dataset) reads in this epoch, in order, when it yields each one's examples in order (no
  // shuffle() buffer, no split_dataset_by_node by example): its stream is then those shards' id ranges one after
  // another, known without listing an id. Nothing otherwise.
  std::optional<std::vector<std::int64_t>> read_shards(std::optional<HfWorker> worker = std::nullopt) const;
  // The id of shard s's first example.
  std::int64_t first_id(std::int64_t shard) const { return offsets_.get().at(static_cast<std::size_t>(shard)); }

  // What one DataLoader pass reads in this epoch with `num_workers` workers (0: the main process): each worker's
  // stream, laid one after another, and each stream's length.
  struct LoaderPass {
    std::vector<std::int64_t> ids;
    std::vector<std::int64_t> lengths;
  };
  LoaderPass loader_pass(std::int64_t num_workers) const;
  // loader_pass(num_workers).lengths, without listing ids where read_shards() knows the streams.
  std::vector<std::int64_t> pass_lengths(std::int64_t num_workers) const;

  friend bool operator==(const HfIterableDataset&, const HfIterableDataset&) = default;

 private:
  struct Buffer {
    std::int64_t size = 0;
    NumpyGenerator generator;
    std::int64_t max_input_shards = 1;  // 1: no InterleavedShardsExamplesIterable
    friend bool operator==(const Buffer&, const Buffer&) = default;
  };
  // The shard list, generator and example step one iteration reads (empty: a worker without a shard).
  struct ReadPlan {
    std::vector<std::int64_t> shards;
    std::optional<NumpyGenerator> generator;
    std::int64_t step = 1, offset = 0;
    bool empty = false;
  };
  ReadPlan read_plan(std::optional<HfWorker> worker) const;
  std::vector<std::int64_t> buffer_shuffled(const std::vector<std::int64_t>& examples, NumpyGenerator rng) const;
  HfIterableDataset() = default;

  // A list every copy of the dataset shares (the simulator copies it per rank, per option, per loader; a corpus has
  // a million shards): a copy costs a pointer, equality compares the contents.
  class SharedList {
   public:
    SharedList() : v_(std::make_shared<const std::vector<std::int64_t>>()) {}
    explicit SharedList(std::vector<std::int64_t> v)
        : v_(std::make_shared<const std::vector<std::int64_t>>(std::move(v))) {}
    const std::vector<std::int64_t>& get() const noexcept { return *v_; }
    friend bool operator==(const SharedList& a, const SharedList& b) { return a.v_ == b.v_ || *a.v_ == *b.v_; }

   private:
    std::shared_ptr<const std::vector<std::int64_t>> v_;
  };

  SharedList sizes_;    // every shard of the original dataset
  SharedList offsets_;  // id of each shard's first example
  std::int64_t total_ = 0;
  SharedList shards_;  // the Examples iterable's gen_kwargs["shards"]: indices into sizes_
  std::optional<Buffer> buffer_;
  std::optional<HfShuffle> shuffle_;
  std::optional<std::pair<std::int64_t, std::int64_t>> distributed_;
  std::int64_t epoch_ = 0;
  DatasetsRelease release_ = DatasetsRelease::v5_2;
};

}  // namespace accel
