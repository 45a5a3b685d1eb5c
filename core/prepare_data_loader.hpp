// prepare_data_loader: Accelerate's decisions and errors for turning a user's DataLoader into the
// loader one rank iterates.
//
// The inputs mirror what Accelerate reads: the user's DataLoader (dataset, batch_size, drop_last,
// shuffle) and prepare_data_loader's keyword arguments with num_processes / process_index given
// explicitly (the rank context). Every ValueError Accelerate raises for a config is raised here, with
// the same meaning and where it raises it.
#pragma once

#include <cstdint>
#include <optional>

#include <variant>

#include "accelerate_release.hpp"
#include "data_loader_dispatcher.hpp"
#include "data_loader_shard.hpp"
#include "data_loader_workers.hpp"
#include "device_mesh.hpp"
#include "hf_iterable_dataset.hpp"
#include "length_grouped_sampler.hpp"
#include "randperm.hpp"
#include "torch_generator.hpp"
#include "torch_seed.hpp"

namespace accel {

enum class DatasetKind { Map, Iterable };

// The user's torch.utils.data.DataLoader before preparation.
struct DataLoaderArgs {
  DatasetKind dataset_kind = DatasetKind::Map;
  std::int64_t dataset_len = 0;
  std::int64_t batch_size = 1;
  bool drop_last = false;
  bool shuffle = false;
  // RandomSampler(replacement=..., num_samples=...) when the user built one.
  bool replacement = false;
  std::optional<std::int64_t> num_samples;
  // DataLoader(generator=torch.Generator().manual_seed(s)).
  std::optional<std::uint64_t> generator_seed;
  // Iterable datasets only: the dataset owns a torch.Generator seeded with this and yields
  // randperm(dataset_len) from it on every pass.
  std::optional<std::uint64_t> dataset_generator_seed;
  // DataLoader(num_workers=..., persistent_workers=..., in_order=...), and how an iterable dataset splits its
  // stream by worker (core/data_loader_workers.hpp).
  DataLoaderWorkers workers;
  // A HuggingFace datasets.IterableDataset (dataset_kind Iterable, dataset_len its examples): its shards, its
  // shuffle and the epoch decide which ids each rank and worker reads (core/hf_iterable_dataset.hpp).
  std::optional<HfIterableDataset> hf_dataset;
  // The script called datasets.distributed.split_dataset_by_node(dataset, rank, num_processes) on every rank
  // before prepare.
  bool hf_split_by_node = false;
  // A map-style datasets.Dataset shuffled with .shuffle(seed): the sampler's index i reads example
  // hf_dataset_shuffle_indices(dataset_len, seed)[i].
  std::optional<std::uint64_t> hf_map_shuffle_seed;
  // DataLoader(sampler=LengthGroupedSampler(...)) (map-style only; `shuffle` is then false): what transformers.Trainer
  // builds under group_by_length. Its lengths must number dataset_len.
  std::optional<LengthGrouping> length_grouping;
  friend bool operator==(const DataLoaderArgs&, const DataLoaderArgs&) = default;
};

struct PrepareOptions {
  std::int64_t num_processes = 1;
  std::int64_t process_index = 0;
  bool split_batches = false;
  bool put_on_device = false;
  std::optional<bool> dispatch_batches;
  bool even_batches = true;
  bool use_seedable_sampler = false;
  // A Python int: SeedableRandomSampler adds the epoch to it before torch unpacks it.
  std::optional<PythonInt> data_seed;
  // torch.initial_seed() of the process (torch.manual_seed's last argument, or torch's default).
  std::uint64_t process_seed = kTorchDefaultSeed;
  // 32-bit words the process drew from its global generator between that seed and prepare (a model's
  // initialisation, say): prepare seeds a shuffled sampler's generator from what is left.
  std::uint64_t process_generator_draws = 0;
  // rng_types contains "generator": the sampler's / dataset's generator takes rank 0's state at the
  // start of every pass (Accelerator passes this by default).
  bool synchronize_generator = false;
  // rng_types contains "cuda", on a machine without a GPU (what every config describes): a DataLoaderShard's every
  // pass raises first (cuda_rng_unavailable); the dispatcher synchronises nothing.
  bool synchronize_cuda_rng = false;
  TorchVersion torch_version = TorchVersion::v2_6;
  // The processes form a torch.distributed group (Accelerate's distributed_type is not NO). False only for
  // an Accelerator's single process, which never starts one.
  bool process_group = true;
  // DataLoaderConfiguration(use_stateful_dataloader=True): the prepared loader wraps torchdata's
  // StatefulDataLoader (skip_first_batches' loaders never do).
  bool use_stateful_dataloader = false;
  // prepare_data_loader(torch_device_mesh=...): num_processes / process_index above stay the job's; the loaders
  // take theirs from the mesh (core/device_mesh.hpp), and a dispatcher replicates under "tp".
  std::optional<DeviceMesh> torch_device_mesh;
  // AcceleratorState's distributed_type is DEEPSPEED: the mesh is divided by tp alone.
  bool deepspeed = false;
  // The Accelerate release whose prepare_data_loader runs (core/accelerate_release.hpp: its named rules).
  AccelerateRelease release = kDefaultRelease;
  friend bool operator==(const PrepareOptions&, const PrepareOptions&) = default;
};

using PreparedLoader = std::variant<DataLoaderShard, DataLoaderDispatcher>;

// What prepare_data_loader does with a datasets.IterableDataset (data_loader.py): with several processes and batches
// not dispatched, `dataset.shard(num_processes, process_index)` (whole contiguous shards per rank, no padding) when
// batches are not split and the release's hf_shard_rule takes it (1.14: at least num_processes shards), otherwise an
// IterableDatasetShard around it; a dispatcher's rank 0 reads it whole; a single process reads it as it is.
enum class HfDatasetPath { Shard, IterableDatasetShard, Dispatched, Unsharded };
const char* hf_dataset_path_name(HfDatasetPath path) noexcept;
// Requires loader.hf_dataset.
HfDatasetPath hf_dataset_path(const DataLoaderArgs& loader, const PrepareOptions& options);
// The datasets.IterableDataset rank options.process_index's loader iterates: the user's, split by node for that
// rank when the script did, then .shard() on that path (raising what it raises). Requires loader.hf_dataset.
HfIterableDataset hf_rank_dataset(const DataLoaderArgs& loader, const PrepareOptions& options);

// The options the loaders are built from: with a torch_device_mesh, num_processes and process_index as
// prepare_data_loader rewrites them from it (the dispatcher alone keeps the job's); `options` itself otherwise.
PrepareOptions loader_options(const PrepareOptions& options);

// dispatch_batches as prepare_data_loader resolves it (None -> iterable and put_on_device).
bool resolve_dispatch_batches(const DataLoaderArgs& loader, const PrepareOptions& options);

// The epoch order rank 0's loader draws on its pass number `pass` (0 = the first), as its sampler or
// dataset generator produces it: what every rank shares unless an unsynchronised shuffle differs.
// `before_any_prepared_pass`: this pass and every earlier one are run by skip_first_batches' loaders. With
// use_stateful_dataloader the prepared loader drew its first iterator's _base_seed at prepare, so such a pass
// comes one _base_seed later; from the first prepared pass on (which reuses that iterator) nothing differs.
SampleOrder pass_order(const DataLoaderArgs& loader, const PrepareOptions& options, std::int64_t pass,
                       bool before_any_prepared_pass = false);

// pass_order(loader, options, pass).size() when that order is a permutation of the dataset (every id once), raising
// what drawing it raises, in O(1) without drawing it; nullopt when it is not a permutation (sampling with
// replacement, num_samples != len), which only the draw itself tells apart. The coverage counts of a permutation
// follow from the loaders' structure alone (core/coverage.hpp), so a caller that needs no ids needs no draw.
std::optional<std::int64_t> permutation_pass_length(const DataLoaderArgs& loader, const PrepareOptions& options,
                                                    std::int64_t pass);

// Whether pass_order() gives both configs the same order. It reads neither the batch size, drop_last,
// even_batches, split_batches nor the rank, so variants of one config that differ only there share
// one shuffle, which a caller comparing them can draw once.
bool same_pass_order(const DataLoaderArgs& a, const PrepareOptions& a_options, const DataLoaderArgs& b,
                     const PrepareOptions& b_options);

// What decides the order of a shuffled map-style loader under the release's rules (rank 0's sampler as prepare builds
// it): `fixed`: nothing that varies between runs or ranks (a user generator, data_seed, an unseeded generator, 0.24's
// frozen seed); else the process's torch seed, `synchronised` when rank 0's generator is broadcast every pass;
// `global_draws`: the script's draws from the global generator before prepare (or between passes) move the ids.
struct ShuffleSeeding {
  bool fixed = true;
  bool synchronised = false;
  bool global_draws = false;
};
ShuffleSeeding shuffle_seeding(const DataLoaderArgs& loader, const PrepareOptions& options);

// Raises AccelerateError (where = "prepare_data_loader" or "DataLoader") for rejected configs.
PreparedLoader prepare_data_loader(const DataLoaderArgs& loader, const PrepareOptions& options);

}  // namespace accel
