#include "hf_iterable_dataset.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"

namespace accel {
namespace {

[[noreturn]] void fail(PyErrorType type, const std::string& message) {
  throw AccelerateError(type, "datasets.IterableDataset", message);
}

// _number_of_shards_in_gen_kwargs: a list of length 0 or 1 is one shard.
std::int64_t shard_count(const std::vector<std::int64_t>& shards) noexcept {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(shards.size()));
}

// _BaseExamplesIterable.split_shard_indices_by_worker over `n` shards.
std::vector<std::int64_t> shard_indices(std::int64_t n, std::int64_t num_shards, std::int64_t index, bool contiguous) {
  std::vector<std::int64_t> out;
  if (contiguous) {
    const std::int64_t div = n / num_shards, mod = n % num_shards;
    const std::int64_t start = div * index + std::min(index, mod);
    const std::int64_t end = start + div + (index < mod ? 1 : 0);
    for (std::int64_t i = start; i < end; ++i) out.push_back(i);
  } else {
    for (std::int64_t i = index; i < n; i += num_shards) out.push_back(i);
  }
  return out;
}

// ExamplesIterable.shard_data_sources: the kept entries of the shard list; nullopt where the library's
// _merge_gen_kwargs indexes an empty list (IndexError). A list of one shard is one group, whole.
std::optional<std::vector<std::int64_t>> shard_list(const std::vector<std::int64_t>& shards, std::int64_t num_shards,
                                                    std::int64_t index, bool contiguous) {
  const std::vector<std::int64_t> picked = shard_indices(shard_count(shards), num_shards, index, contiguous);
  if (picked.empty()) return std::nullopt;
  if (shards.size() <= 1) return shards;
  std::vector<std::int64_t> out;
  out.reserve(picked.size());
  for (std::int64_t i : picked) out.push_back(shards[static_cast<std::size_t>(i)]);
  return out;
}

// _shuffle_gen_kwargs with a copy of the generator: list(range(n)) shuffled, then the list read through it.
std::vector<std::int64_t> shuffled_list(const std::vector<std::int64_t>& shards, NumpyGenerator generator) {
  std::vector<std::int64_t> indices(shards.size());
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<std::int64_t>(i);
  generator.shuffle(indices);
  std::vector<std::int64_t> out;
  out.reserve(shards.size());
  for (std::int64_t i : indices) out.push_back(shards[static_cast<std::size_t>(i)]);
  return out;
}

// BufferShuffledExamplesIterable.shift_rngs: a generator seeded from a copy of the old one, less `value`.
NumpyGenerator shifted(NumpyGenerator generator, std::int64_t value) {
  const std::int64_t seed = static_cast<std::int64_t>(generator.bounded_uint64(0x7FFFFFFFFFFFFFFFull)) - value;
  if (seed < 0) fail(PyErrorType::ValueError, "expected non-negative integer");  // numpy's SeedSequence
  return NumpyGenerator::default_rng(static_cast<std::uint64_t>(seed));
}

}  // namespace

std::vector<std::int64_t> hf_dataset_shuffle_indices(std::int64_t len, std::uint64_t seed) {
  return NumpyGenerator::default_rng(seed).permutation(len);
}

std::optional<DatasetsRelease> datasets_release(std::string_view version) noexcept {
  // Patch releases of a modelled minor behave as it does on these paths (the recorded ones are x.y.z).
  for (DatasetsRelease r : {DatasetsRelease::v3_6, DatasetsRelease::v4_8, DatasetsRelease::v5_2}) {
    const std::string_view minor = datasets_version(r);
    if (version == minor) return r;
    if (version.size() > minor.size() && version.substr(0, minor.size()) == minor && version[minor.size()] == '.') {
      return r;
    }
  }
  return std::nullopt;
}

const char* datasets_version(DatasetsRelease release) noexcept {
  switch (release) {
    case DatasetsRelease::v3_6:
      return "3.6";
    case DatasetsRelease::v4_8:
      return "4.8";
    case DatasetsRelease::v5_2:
      return "5.2";
  }
  return "?";
}

HfIterableDataset HfIterableDataset::from_shards(std::vector<std::int64_t> shard_sizes, DatasetsRelease release) {
  if (shard_sizes.empty()) fail(PyErrorType::ValueError, "shard_sizes: needs at least one shard");
  HfIterableDataset d;
  std::vector<std::int64_t> offsets, shards;
  for (std::size_t s = 0; s < shard_sizes.size(); ++s) {
    if (shard_sizes[s] < 0) fail(PyErrorType::ValueError, "shard_sizes: a shard's size must be >= 0");
    offsets.push_back(d.total_);
    d.total_ += shard_sizes[s];
    shards.push_back(static_cast<std::int64_t>(s));
  }
  d.offsets_ = SharedList(std::move(offsets));
  d.shards_ = SharedList(std::move(shards));
  d.sizes_ = SharedList(std::move(shard_sizes));
  d.release_ = release;
  return d;
}

HfIterableDataset HfIterableDataset::shuffle(const HfShuffle& options) const {
  if (buffer_) fail(PyErrorType::ValueError, "shuffle: a second shuffle of the same dataset is not simulated");
  if (options.buffer_size < 1) fail(PyErrorType::ValueError, "shuffle: buffer_size must be >= 1");
  if (options.max_buffer_input_shards && !buffer_yields_half_a_permutation(release_)) {
    fail(PyErrorType::TypeError,
         "IterableDataset.shuffle() got an unexpected keyword argument 'max_buffer_input_shards'");
  }
  HfIterableDataset d = *this;
  const NumpyGenerator generator = NumpyGenerator::default_rng(options.seed);
  if (shuffle_permutes_shards_at_call(release_)) d.shards_ = SharedList(shuffled_list(shards_.get(), generator));
  const std::int64_t interleave =
      buffer_yields_half_a_permutation(release_) ? options.max_buffer_input_shards.value_or(10) : 1;
  d.buffer_ = Buffer{options.buffer_size, generator, std::max<std::int64_t>(1, interleave)};
  d.shuffle_ = options;
  return d;
}

HfIterableDataset HfIterableDataset::split_dataset_by_node(std::int64_t rank, std::int64_t world_size) const {
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    fail(PyErrorType::ValueError, "split_dataset_by_node: rank must be in [0, world_size)");
  }
  HfIterableDataset d = *this;
  d.distributed_ = distributed_ ? std::pair{world_size * distributed_->first + rank, world_size * distributed_->second}
                                : std::pair{rank, world_size};
  return d;
}

HfIterableDataset HfIterableDataset::shard(std::int64_t num_shards, std::int64_t index, bool contiguous) const {
  if (num_shards < 1 || index < 0 || index >= num_shards) {
    fail(PyErrorType::ValueError, "shard: index must be in [0, num_shards)");
  }
  std::optional<std::vector<std::int64_t>> kept = shard_list(shards_.get(), num_shards, index, contiguous);
  if (!kept) fail(PyErrorType::IndexError, "list index out of range");
  HfIterableDataset d = *this;
  d.shards_ = SharedList(std::move(*kept));
  return d;
}

std::int64_t HfIterableDataset::n_shards() const noexcept {
  const std::int64_t n = shard_count(shards_.get());
  if (distributed_ && n % distributed_->second == 0) return n / distributed_->second;
  return n;
}

HfIterableDataset::ReadPlan HfIterableDataset::read_plan(std::optional<HfWorker> worker) const {
  // _prepare_ex_iterable_for_iteration, then _iter_pytorch's split in a worker.
  ReadPlan plan;
  std::vector<std::int64_t>& shards = plan.shards;
  shards = shards_.get();
  std::optional<NumpyGenerator>& generator = plan.generator;
  if (buffer_) generator = buffer_->generator;
  if (epoch_permutes_every_shard_list(release_)) {
    if (epoch_ > 0) {
      shards = shuffled_list(shards, NumpyGenerator::default_rng(static_cast<std::uint64_t>(epoch_)));
      if (generator) generator = shifted(*generator, epoch_);
    }
  } else if (generator) {
    // 3.6's _effective_generator: the shuffle's generator in epoch 0, then one seeded from it less the epoch
    // (wrapped into [0, 2^63)); it orders the shards (a copy) and drives the buffer.
    if (epoch_ > 0) {
      std::int64_t seed =
          static_cast<std::int64_t>(NumpyGenerator(*generator).bounded_uint64(0x7FFFFFFFFFFFFFFFull)) - epoch_;
      if (seed < 0) seed = static_cast<std::int64_t>((std::uint64_t{1} << 63) + static_cast<std::uint64_t>(seed));
      generator = NumpyGenerator::default_rng(static_cast<std::uint64_t>(seed));
    }
    shards = shuffled_list(shards, *generator);
  }
  if (distributed_) {
    const auto [rank, world_size] = *distributed_;
    if (shard_count(shards) % world_size == 0) {
      shards = *shard_list(shards, world_size, rank, false);
    } else {
      plan.step = world_size;
      plan.offset = rank;
    }
  }
  if (worker) {
    std::optional<std::vector<std::int64_t>> kept = shard_list(shards, worker->num_workers, worker->id, false);
    if (!kept) {
      shards.clear();
      plan.empty = true;
      return plan;
    }
    shards = std::move(*kept);
    if (generator && workers_shift_buffer_generator(release_)) generator = shifted(*generator, worker->id);
  }
  return plan;
}

std::optional<std::vector<std::int64_t>> HfIterableDataset::read_shards(std::optional<HfWorker> worker) const {
  if (buffer_) return std::nullopt;
  ReadPlan plan = read_plan(worker);
  if (plan.step != 1) return std::nullopt;
  return std::move(plan.shards);
}

std::vector<std::int64_t> HfIterableDataset::stream(std::optional<HfWorker> worker) const {
  ReadPlan plan = read_plan(worker);
  if (plan.empty) return {};
  const std::vector<std::int64_t>& shards = plan.shards;
  std::optional<NumpyGenerator>& generator = plan.generator;
  const std::int64_t step = plan.step, offset = plan.offset;

  // ExamplesIterable over `shards`, interleaved (InterleavedShardsExamplesIterable: round-robin over contiguous
  // groups of shards, an exhausted group dropping out) when the shuffle reads several shards at a time.
  auto shard_ids = [&](std::int64_t s, std::vector<std::int64_t>& out) {
    const auto u = static_cast<std::size_t>(s);
    for (std::int64_t k = 0; k < sizes_.get()[u]; ++k) out.push_back(offsets_.get()[u] + k);
  };
  std::vector<std::int64_t> examples;
  const std::int64_t groups = buffer_ ? std::min(shard_count(shards), buffer_->max_input_shards) : 1;
  if (groups <= 1) {
    for (std::int64_t s : shards) shard_ids(s, examples);
  } else {
    std::vector<std::vector<std::int64_t>> streams(static_cast<std::size_t>(groups));
    std::size_t longest = 0;
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::vector<std::int64_t> group = *shard_list(shards, groups, g, true);
      for (std::int64_t s : group) shard_ids(s, streams[static_cast<std::size_t>(g)]);
      longest = std::max(longest, streams[static_cast<std::size_t>(g)].size());
    }
    for (std::size_t k = 0; k < longest; ++k) {
      for (const auto& st : streams) {
        if (k < st.size()) examples.push_back(st[k]);
      }
    }
  }

  std::vector<std::int64_t> shuffled = buffer_ ? buffer_shuffled(examples, *generator) : std::move(examples);

  if (step == 1) return shuffled;
  // StepExamplesIterable: every step-th example from `offset`.
  std::vector<std::int64_t> out;
  for (std::size_t i = static_cast<std::size_t>(offset); i < shuffled.size(); i += static_cast<std::size_t>(step)) {
    out.push_back(shuffled[i]);
  }
  return out;
}

std::vector<std::int64_t> HfIterableDataset::pass_lengths(std::int64_t num_workers) const {
  std::vector<std::int64_t> lengths;
  for (std::int64_t w = 0; w < std::max<std::int64_t>(1, num_workers); ++w) {
    const std::optional<HfWorker> worker = num_workers > 0 ? std::optional(HfWorker{w, num_workers}) : std::nullopt;
    if (const auto shards = read_shards(worker)) {
      std::int64_t n = 0;
      for (std::int64_t shard : *shards) n += sizes_.get()[static_cast<std::size_t>(shard)];
      lengths.push_back(n);
    } else {
      lengths.push_back(static_cast<std::int64_t>(stream(worker).size()));
    }
  }
  return lengths;
}

HfIterableDataset::LoaderPass HfIterableDataset::loader_pass(std::int64_t num_workers) const {
  LoaderPass out;
  for (std::int64_t w = 0; w < std::max<std::int64_t>(1, num_workers); ++w) {
    const std::vector<std::int64_t> part = num_workers > 0 ? stream(HfWorker{w, num_workers}) : stream();
    out.lengths.push_back(static_cast<std::int64_t>(part.size()));
    out.ids.insert(out.ids.end(), part.begin(), part.end());
  }
  return out;
}

std::vector<std::int64_t> HfIterableDataset::buffer_shuffled(const std::vector<std::int64_t>& examples,
                                                             NumpyGenerator rng) const {
  const auto size = static_cast<std::size_t>(buffer_->size);
  std::vector<std::int64_t> out, held;
  out.reserve(examples.size());
  if (buffer_yields_half_a_permutation(release_)) {
    // Once `size` examples are held: a permutation of them, all but size // 2 go out, the rest stay.
    const std::size_t keep = size / 2;
    std::vector<std::int64_t> next;
    auto flush = [&](std::size_t yield_count) {
      const std::vector<std::int64_t> perm = rng.permutation(static_cast<std::int64_t>(held.size()));
      for (std::size_t i = 0; i < yield_count; ++i) out.push_back(held[static_cast<std::size_t>(perm[i])]);
      next.clear();
      for (std::size_t i = yield_count; i < perm.size(); ++i) next.push_back(held[static_cast<std::size_t>(perm[i])]);
      held.swap(next);
    };
    for (std::int64_t id : examples) {
      held.push_back(id);
      if (held.size() >= size) flush(held.size() - keep);
    }
    if (!held.empty()) flush(held.size());
    return out;
  }
  // A full buffer yields a random slot and puts the new example there; the slots come from
  // integers(0, size, size=1000), so the closing shuffle starts after whole blocks of 1000 draws.
  constexpr std::size_t kBlock = 1000;
  std::vector<std::uint64_t> block;
  std::size_t used = kBlock;
  for (std::int64_t id : examples) {
    if (held.size() < size) {
      held.push_back(id);
      continue;
    }
    if (used == kBlock) {
      block.resize(kBlock);
      for (std::uint64_t& v : block) v = rng.bounded_uint64(size - 1);
      used = 0;
    }
    const auto slot = static_cast<std::size_t>(block[used++]);
    out.push_back(held[slot]);
    held[slot] = id;
  }
  rng.shuffle(held);
  out.insert(out.end(), held.begin(), held.end());
  return out;
}

}  // namespace accel
