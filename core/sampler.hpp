// torch's samplers as Accelerate sees them: SequentialSampler, RandomSampler, SeedableRandomSampler, and
// transformers' LengthGroupedSampler (core/length_grouped_sampler), which Trainer trains with under group_by_length.
//
// A Sampler is stateful across epochs exactly where torch's is: a RandomSampler keeps one generator
// running over every epoch (two randperm calls per epoch when num_samples == n), while a
// SeedableRandomSampler reseeds with initial_seed + epoch and bumps its own epoch after a full pass. A
// LengthGroupedSampler draws one randperm per epoch from its generator (none of its own: the process's global
// one) and has no set_epoch.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "draw_memo.hpp"
#include "length_grouped_sampler.hpp"
#include "randperm.hpp"
#include "sample_order.hpp"
#include "torch_generator.hpp"
#include "torch_seed.hpp"

namespace accel {

// torch.empty((), dtype=torch.int64).random_(): how torch turns its global generator into a fresh seed.
inline std::uint64_t draw_seed(TorchGenerator& gen) { return gen.random64() % (std::uint64_t{1} << 63); }

enum class SamplerKind { Sequential, Random, SeedableRandom, LengthGrouped };

// How a SeedableRandomSampler seeds each pass (core/accelerate_release.hpp names the releases).
enum class SeedableSeeding {
  InitialSeedPlusEpoch,  // 0.27.2 on: manual_seed(initial_seed + epoch), then epoch + 1 after a complete pass
  FrozenEpoch,           // 0.24.x: a fresh generator seeded initial_seed + epoch; the epoch never advances by itself
  Accumulating,          // 0.25.0 - 0.27.1: the previous pass's seed + epoch (s, s+1, s+3, ...), then epoch + 1
};

struct SamplerOptions {
  SamplerKind kind = SamplerKind::Sequential;
  std::int64_t dataset_len = 0;
  bool replacement = false;
  std::optional<std::int64_t> num_samples;  // RandomSampler's num_samples (default: dataset_len)
  // The seed of the process's global generator (torch.initial_seed()), which a RandomSampler without a
  // generator of its own draws a fresh seed from at every iteration.
  std::uint64_t seed = kTorchDefaultSeed;
  // Words already drawn from that global generator when the sampler is built (PrepareOptions'
  // process_generator_draws).
  std::uint64_t seed_draws = 0;
  // SeedableRandom only: initial_seed (data_seed, or torch.initial_seed() when data_seed is None), a
  // Python int: every pass seeds manual_seed(initial_seed + epoch), which raises once that leaves
  // torch's range.
  PythonInt initial_seed = kTorchDefaultSeed;
  SeedableSeeding seeding = SeedableSeeding::InitialSeedPlusEpoch;
  // Random and LengthGrouped: the seed of the sampler's own generator (DataLoader(generator=...), or the one
  // prepare_data_loader gives it), kept running across epochs; nullopt: a RandomSampler draws a fresh seed
  // from the global generator every pass, a LengthGroupedSampler its randperm from the global generator itself.
  std::optional<std::uint64_t> generator_seed;
  // LengthGrouped only: its batch_size and the dataset's lengths (size() == dataset_len).
  std::optional<LengthGrouping> length_grouping;
  // The DataLoader that iterates this sampler holds the sampler's own generator as its `generator`
  // (the user's DataLoader(generator=g), prepared as a DataLoaderShard). Each pass of a torch DataLoader
  // first draws its `_base_seed` from that generator, or from the global one when it has none, before
  // the sampler runs: see iterate_in_loader().
  bool loader_shares_generator = false;
  TorchVersion torch_version = TorchVersion::v2_6;
};

class Sampler {
 public:
  // Raises ValueError where torch's RandomSampler constructor does (num_samples <= 0).
  explicit Sampler(SamplerOptions options);

  const SamplerOptions& options() const noexcept { return options_; }
  bool is_seedable() const noexcept { return options_.kind == SamplerKind::SeedableRandom; }
  bool has_set_epoch() const noexcept { return is_seedable(); }

  // len(sampler)
  std::int64_t size() const noexcept;

  std::int64_t epoch() const noexcept { return epoch_; }
  void set_epoch(std::int64_t epoch) noexcept { epoch_ = epoch; }

  // The generator Accelerate keeps synchronised across ranks (rng_types=["generator"]): a
  // RandomSampler's or LengthGroupedSampler's own generator. Seedable and sequential samplers have none.
  bool has_synchronized_generator() const noexcept {
    return (options_.kind == SamplerKind::Random || options_.kind == SamplerKind::LengthGrouped) &&
           options_.generator_seed.has_value();
  }
  GeneratorState generator_state() const noexcept { return generator_.state(); }
  void set_generator_state(const GeneratorState& state) { generator_.set_state(state); }
  // The process's default generator (torch.get_rng_state / set_rng_state): what Accelerator.save_state
  // saves and load_state restores, unlike the sampler's own generator, which neither touches.
  GeneratorState process_generator_state() const noexcept { return global_generator_.state(); }
  void set_process_generator_state(const GeneratorState& state) { global_generator_.set_state(state); }

  // One full iteration of the sampler: the ids it yields, with every side effect torch has
  // (generator draws, SeedableRandomSampler's epoch + 1 at the end). A SeedableRandomSampler whose
  // initial_seed + epoch torch cannot unpack raises RuntimeError (where = "iterate") before yielding.
  SampleOrder iterate();

  // One pass of a torch DataLoader over this sampler: _BaseDataLoaderIter.__init__ draws the loader's
  // _base_seed (one int64 random_()) from the loader's generator or the global one, then the lazy
  // sampler iterator runs on the first next(). The draw only shows where it shares a generator with
  // the sampler: one process (both draw from the global generator) or a user's DataLoader(generator=g).
  // `discarded_iterators`: iterators built before this one and never advanced, each with its own draw.
  SampleOrder iterate_in_loader(std::int64_t discarded_iterators = 0);
  // A DataLoader iterator built now and kept for a later pass: its _base_seed draw, alone. torchdata's
  // StatefulDataLoader builds one when state_dict() is called before any pass (Accelerate does so at
  // prepare), and its next __iter__ hands that iterator out instead of a new one: that pass runs iterate().
  void build_loader_iterator();

  // iterate() yields every id of the dataset exactly once (a sequential order, or a shuffle without
  // replacement of num_samples == len), so what a pass covers follows from the loaders' structure alone.
  bool yields_permutation() const noexcept;
  // Raises what iterate() raises before it draws (a SeedableRandomSampler's initial_seed + epoch out of
  // torch's range; a LengthGroupedSampler over no sample), without drawing: for callers that need only the counts
  // of a permutation.
  void check_iterate() const;

  // Draws through `memo`, shared with samplers that would make the same draws (other simulated ranks).
  void share_draws(std::shared_ptr<DrawMemo> memo) noexcept { memo_ = std::move(memo); }

 private:
  PythonInt pass_seed() const;  // SeedableRandom: what this pass seeds manual_seed with
  SampleOrder draw(TorchGenerator& gen) const;
  SampleOrder draw_uncached(TorchGenerator& gen) const;

  SamplerOptions options_;
  std::int64_t epoch_ = 0;
  std::optional<PythonInt> last_seed_;  // SeedableSeeding::Accumulating: the seed of the previous pass
  TorchGenerator generator_;         // the sampler's own generator (Random with generator_seed)
  TorchGenerator global_generator_;  // the process's default generator
  std::shared_ptr<DrawMemo> memo_;
};

}  // namespace accel
