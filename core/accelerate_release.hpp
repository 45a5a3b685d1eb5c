// The Accelerate releases whose semantics the core reproduces, and where they differ.
//
// One core serves every modelled release (0.14.0 - 1.16.0): each place where a release behaves differently asks
// one of the named rules below, which cite the release range, and branches there. What each rule says, and the
// evidence (the release's own source, bisected from the PyPI wheels, and the recordings of
// golden/cases-releases/), is in golden/releases.md. torch's shuffle for the two randperm loops is in randperm.hpp.
#pragma once

#include <compare>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "error.hpp"

namespace accel {

// An Accelerate release, "X.Y.Z".
struct AccelerateRelease {
  int major = 1;
  int minor = 15;
  int patch = 0;
  friend constexpr auto operator<=>(const AccelerateRelease&, const AccelerateRelease&) = default;
  friend constexpr bool operator==(const AccelerateRelease&, const AccelerateRelease&) = default;
  std::string name() const;  // "X.Y.Z"
};

// The newest release modelled (recorded on torch 2.15: golden/cases-releases/1.16.0).
inline constexpr AccelerateRelease kNewestRelease{1, 16, 0};
// The default everywhere a release is not named: the newest modelled, what `pip install accelerate` gives.
inline constexpr AccelerateRelease kDefaultRelease = kNewestRelease;
// The release every golden set without config.accelerate_version was recorded with (golden/cases, cases-torch2,
// cases-trainer, ...; trace::config_as_recorded names it for them), and the one every family is recorded on
// (LengthGroupedSampler, the Trainer's loop).
inline constexpr AccelerateRelease kBaselineRelease{1, 15, 0};

enum class TorchVersion;  // randperm.hpp
// The release a job on `torch` gets when it names none: the newest modelled that runs on that torch (1.16.0 requires
// torch >= 2.6, so torch 1.13 gets 1.15.0, the newest recorded on it).
AccelerateRelease default_release(TorchVersion torch) noexcept;
// The oldest: even_batches arrives in 0.14.0; before, prepare seeded the shuffle's generator (not modelled).
inline constexpr AccelerateRelease kOldestRelease{0, 14, 0};
inline constexpr const char* kAccelerateVersion = "1.16.0";  // kDefaultRelease.name()
inline constexpr const char* kBaselineVersion = "1.15.0";    // kBaselineRelease.name()
inline constexpr const char* kAccelerateReleasesModelled = "0.14.0 to 1.16.0";

// "X.Y.Z" (three decimal numbers) as a release, whether modelled or not; nullopt for any other text.
std::optional<AccelerateRelease> parse_accelerate_release(std::string_view text);
bool is_modelled(AccelerateRelease release) noexcept;
// A version PyPI has published (0.0.1 - 1.16.0): "0.99.0" parses but never existed.
bool is_published(AccelerateRelease release) noexcept;
// parse_accelerate_release + is_published + is_modelled, raising std::invalid_argument that names the modelled range
// and the nearest recorded releases.
AccelerateRelease modelled_release(std::string_view text);

// ---- The shuffle: which generator a prepared RandomSampler draws its order from (use_seedable_sampler=False, the
// default path; golden/releases.md "The rules, precisely").
enum class ShuffleGeneratorRule {
  // 0.14.0 - 0.23.0 and 0.30.0 - 1.5.2: when sharding, prepare gives a generator-less RandomSampler a
  // torch.Generator() that is never seeded (torch's default seed on every rank), synchronised from rank 0: the same
  // order every run, whatever set_seed says.
  UnseededSynchronised,
  // 0.24.0 - 0.24.1: when sharding, a SeedableRandomSampler seeded with its epoch (+ a user generator's
  // initial_seed), whose epoch set_epoch never reaches under BatchSamplerShard: one permutation forever.
  SeedableFrozenEpoch,
  // 0.25.0: every RandomSampler (one process too) becomes a SeedableRandomSampler whose seed accumulates: pass k
  // seeds the previous pass's seed + k (s, s+1, s+3, s+6, ...), s = torch.initial_seed() at prepare (or a user
  // generator's initial_seed); not synchronised.
  SeedableAccumulating,
  // 0.26.0 - 0.29.3: nothing is created or synchronised: each rank's RandomSampler draws a fresh seed from its own
  // global generator every pass.
  GlobalGeneratorPerEpoch,
  // 1.6.0 on: when sharding, the created generator is seeded from the global generator at prepare (one int64 draw),
  // synchronised from rank 0.
  SeededFromGlobalAtPrepare,
};
ShuffleGeneratorRule shuffle_generator_rule(AccelerateRelease release) noexcept;
const char* shuffle_generator_rule_name(ShuffleGeneratorRule rule) noexcept;

// ---- use_seedable_sampler=True.
enum class SeedableSamplerRule {
  Absent,        // before 0.26.0: the option does not exist (TypeError)
  Accumulating,  // 0.26.0 - 0.27.1: 0.25's sampler (the accumulating seed)
  // 0.27.2 - 0.28.0: the sampler (seeded initial_seed + epoch) is stored on the BatchSamplerShard, not used: with
  // several processes the plain RandomSampler iterates (the default rule); one process uses it.
  InertOnShards,
  EpochSeeded,  // 0.29.0 on: initial_seed + epoch, the epoch advancing after each complete pass
};
SeedableSamplerRule seedable_sampler_rule(AccelerateRelease release) noexcept;
// 0.27.2 - 0.28.0 (the InertOnShards rule).
bool seedable_sampler_inert_on_shards(AccelerateRelease release) noexcept;
// The seed a SeedableRandomSampler starts from ignores a user generator's initial_seed (torch.initial_seed(), or
// data_seed): 0.27.2 on. Before, a user generator's seed is the sampler's.
bool seedable_sampler_ignores_user_generator(AccelerateRelease release) noexcept;

// ---- The loaders.
// DataLoaderShard / DataLoaderDispatcher have `iteration` and `set_epoch` (0.24.0 on); before, set_epoch raises
// AttributeError and the loaders count no iteration.
bool has_loader_set_epoch(AccelerateRelease release) noexcept;
// DataLoaderShard.set_epoch reaches a sampler inside a BatchSamplerShard (the attribute prepare sets on it: 0.27.2
// on). Before, BatchSamplerShard has no `sampler` and only a single process's plain BatchSampler is reached.
bool set_epoch_reaches_sharded_sampler(AccelerateRelease release) noexcept;
// skip_first_batches exists (0.16.0 on): before, importing it raises ImportError and Accelerator has no method.
bool has_skip_first_batches(AccelerateRelease release) noexcept;
// A skip_first_batches loader's set_epoch reaches the sampler behind its SkipBatchSampler
// (batch_sampler.batch_sampler.sampler): 1.7.0 on.
bool set_epoch_reaches_skipped_sampler(AccelerateRelease release) noexcept;
// 1.7.0 - 1.14.0: the skipped loader starts at iteration 0 and now reaches the seedable sampler: its pass resets the
// sampler's epoch to 0 (the named consequence of the two rules around it).
bool skip_resets_seedable_epoch(AccelerateRelease release) noexcept;
// skip_first_batches hands the new loader the prepared loader's iteration (1.15.0 on); before, it starts at 0.
bool skip_keeps_iteration(AccelerateRelease release) noexcept;
// skip_first_batches also hands the new loader the torch_device_mesh, slice_fn_for_dispatch, _drop_last and
// _non_blocking (1.16.0 on): a resumed tp job's dispatcher keeps replicating each batch over the tp group, and the
// skipped DataLoaderShard skips begin()'s remainder when the user's loader drops its last batch. Before, the new
// loader has none of them (recorded: golden/cases-torch2/mesh-accel-tp2-iter-skip2 vs cases-releases/1.16.0).
bool skip_keeps_loader_options(AccelerateRelease release) noexcept;
// DataLoaderShard.total_batch_size looks through a SkipBatchSampler to the batch sampler behind it (1.16.0 on): a
// skipped map-style loader has a total_batch_size and so a remainder, and gather_for_metrics cuts its last step's
// padding. Before, the property raises AttributeError on the SkipBatchSampler and the remainder stays -1.
bool skipped_total_batch_size_reads_through(AccelerateRelease release) noexcept;
// IterableDatasetShard reseeds a generator-owning dataset with the epoch every pass (0.24.0 on); before, that
// generator is only synchronised from rank 0 and its stream goes on across epochs.
bool reseeds_dataset_generator(AccelerateRelease release) noexcept;
// 1.5.0 - 1.5.1 call torch.get_default_device() (torch >= 2.3) where they build a shuffle's generator: on older torch
// prepare raises AttributeError.
bool calls_get_default_device(AccelerateRelease release) noexcept;

// ---- The loaders' len / total_batch_size / total_dataset_length (what the recordings read of each loader).
// total_batch_size reads split_batches / num_processes with getattr defaults, and total_dataset_length's
// hasattr("total_length", dataset) (arguments swapped: TypeError) is fixed: 0.19.0 on.
bool total_properties_read_safely(AccelerateRelease release) noexcept;
// IterableDatasetShard has __len__ (0.24.0 on); before, len() of a sharded iterable loader raises TypeError.
bool iterable_dataset_shard_has_len(AccelerateRelease release) noexcept;
// The loaders are DataLoaderAdapters (0.34.0 on): an AttributeError inside one of their properties falls back to
// __getattr__ on the base DataLoader, which reports the property itself as missing.
bool loaders_are_adapters(AccelerateRelease release) noexcept;
// The classes of the golden recorder's datasets (golden/reference), which the messages of those older properties name.
inline constexpr const char* kRecorderMapDatasetClass = "RangeDataset";
inline constexpr const char* kRecorderIterableDatasetClass = "RangeIterableDataset";

// ---- A HuggingFace datasets.IterableDataset that prepare_data_loader shards (several processes, batches neither
// dispatched nor split): which rule picks `dataset.shard(num_processes, process_index)` over an IterableDatasetShard.
enum class HfShardRule {
  None,                 // before 1.8.0: always an IterableDatasetShard
  ReadsMissingNShard,   // 1.8.0: reads `dataset.n_shard` (a typo): AttributeError, whatever the shard count
  MoreShardsThanRanks,  // 1.8.1 - 1.13.x: .shard() when n_shards > num_processes
  AtLeastAsManyShards,  // 1.14.0 on: .shard() when n_shards >= num_processes
};
HfShardRule hf_shard_rule(AccelerateRelease release) noexcept;
// The oldest release whose HuggingFace datasets path golden/cases-releases records (rel-hf-*, torch 2.15): older ones
// are refused rather than assumed to be 1.4.0.
inline constexpr AccelerateRelease kOldestHfDatasetsRelease{1, 4, 0};

// ---- rng_types=["cuda"] on a machine without a GPU (every recording's): DataLoaderShard.__iter__ synchronises the
// CUDA generator first. Before 1.16.0 torch.cuda.get_rng_state() raises RuntimeError ("Found no NVIDIA driver ...");
// 1.16.0 asserts the accelerator's device type first (AssertionError). Recorded: cases-torch2 and
// cases-releases/1.16.0 map-n2-b2-l10-shuffle-rngcuda.
AccelerateError cuda_rng_unavailable(AccelerateRelease release);

// ---- The StatefulDataLoader (use_stateful_dataloader, 0.34.0 on).
// DataLoaderShard.adjust_state_dict_for_prefetch takes num_processes - 1 off the counts of the state it saves when
// distributed (0.34.0 - 1.12.x), though the shard takes its snapshot before its lookahead; 1.13.0 adjusts nothing.
bool adjusts_stateful_state_for_prefetch(AccelerateRelease release) noexcept;

// ---- GradientState.remainder and gather_for_metrics.
// The loader computes `remainder` with drop_last too (before 0.24.0); from 0.24.0 it stays -1 with drop_last.
bool remainder_with_drop_last(AccelerateRelease release) noexcept;
// Before 0.20.0 the remainder lives in the process's GradientState, not on the loader: a loader that cannot compute
// it (its total_batch_size raises) leaves the value the previous loader set there.
bool remainder_in_gradient_state(AccelerateRelease release) noexcept;
// gather_for_metrics cuts the last step to [:remainder] whenever remainder != -1, so remainder 0 returns nothing
// (before 0.16.0); from 0.16.0 only when remainder > 0.
bool gather_cuts_at_zero_remainder(AccelerateRelease release) noexcept;
// gather_for_metrics logs "no length" (remainder -1) only at end_of_dataloader (0.22.0 on); before, every step.
bool logs_no_length_only_at_end(AccelerateRelease release) noexcept;

// Accelerate's logger prefixes each line with "[RANK r] " (1.13.0 on; 1.12.0's MultiProcessAdapter does not).
bool logger_prefixes_rank(AccelerateRelease release) noexcept;

// ---- Options a release does not have: Accelerator(...), DataLoaderConfiguration(...) or prepare_data_loader(...)
// raise TypeError for the keyword.
enum class KeywordSite { Accelerator, PrepareDataLoader };
// DataLoaderConfiguration exists (0.28.0 on): the loader options an Accelerator takes move there.
bool has_dataloader_configuration(AccelerateRelease release) noexcept;
// The first release with the keyword, for the keywords that arrived inside the modelled range
// (use_seedable_sampler 0.26.0, use_stateful_dataloader 0.34.0, data_seed 1.1.0); nullopt: in every modelled release.
std::optional<AccelerateRelease> keyword_since(std::string_view keyword) noexcept;
// Raises AccelerateError(TypeError, where "Accelerator" or "prepare_data_loader") with the release's message when the
// release lacks the keyword.
void check_keyword(AccelerateRelease release, KeywordSite site, const std::string& keyword);

}  // namespace accel
