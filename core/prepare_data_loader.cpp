#include "prepare_data_loader.hpp"

#include <string>

#include "error.hpp"
#include "mutation.hpp"

namespace accel {
namespace {

[[noreturn]] void value_error(const std::string& where, const std::string& message) {
  throw AccelerateError(PyErrorType::ValueError, where, message);
}

void check_options(const DataLoaderArgs& loader, const PrepareOptions& options, bool dispatch) {
  if (options.num_processes < 1) value_error("prepare_data_loader", "num_processes must be >= 1");
  if (options.process_index < 0 || options.process_index >= options.num_processes) {
    value_error("prepare_data_loader", "process_index must be in [0, num_processes)");
  }
  // torch's DataLoader.__init__ refuses this before it builds any sampler (so before the checks below).
  if (loader.dataset_kind == DatasetKind::Iterable && loader.shuffle) {
    value_error("DataLoader",
                "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True");
  }
  if (loader.batch_size < 1) {
    value_error("DataLoader", "batch_size should be a positive integer value, but got batch_size=" +
                                  std::to_string(loader.batch_size));
  }
  const std::int64_t drawn = loader.num_samples.value_or(loader.dataset_len);
  if (loader.shuffle && drawn <= 0) {
    value_error("DataLoader", "num_samples should be a positive integer value, but got num_samples=" + std::to_string(drawn));
  }
  // Options the release does not have (the trace layer raises these first, with the caller's own message).
  if (options.use_seedable_sampler) check_keyword(options.release, KeywordSite::PrepareDataLoader, "use_seedable_sampler");
  if (options.data_seed) check_keyword(options.release, KeywordSite::PrepareDataLoader, "data_seed");
  if (options.use_stateful_dataloader) {
    check_keyword(options.release, KeywordSite::PrepareDataLoader, "use_stateful_dataloader");
  }
  if (dispatch && !options.put_on_device) {
    value_error("prepare_data_loader", "Using `dispatch_batches=True` requires `put_on_device=True`.");
  }
  // batch_size == 1 passes this check on purpose in Accelerate; BatchSamplerShard rejects it later. It reads the
  // count the mesh rewrote.
  const std::int64_t loaders = loader_options(options).num_processes;
  if (options.split_batches && loader.batch_size > 1 && loader.batch_size % loaders != 0) {
    value_error("prepare_data_loader",
                "To use a `DataLoader` in `split_batches` mode, the batch size (" + std::to_string(loader.batch_size) +
                    ") needs to be a round multiple of the number of processes (" + std::to_string(loaders) + ").");
  }
}

// With a mesh, the rewritten process index must name one of the loaders' processes: an index past them comes from a
// mesh with dimensions Accelerate does not divide by, whose shards this project does not simulate.
void check_mesh_options(const PrepareOptions& options, bool dispatch) {
  if (!dispatch && options.num_processes != 1 && options.process_index >= options.num_processes) {
    throw UnmodelledMesh("the mesh gives process_index " + std::to_string(options.process_index) +
                         " but num_processes " + std::to_string(options.num_processes) +
                         ": a loader whose index falls outside its processes is not simulated");
  }
}

[[noreturn]] void raise_no_default_device() {
  throw AccelerateError(PyErrorType::AttributeError, "prepare_data_loader",
                        "module 'torch' has no attribute 'get_default_device'");
}

// 1.5.0 - 1.5.1 build the generators below with torch.get_default_device(), which torch 1.13 lacks.
void check_default_device(const PrepareOptions& options) {
  if (calls_get_default_device(options.release) && options.torch_version == TorchVersion::v1_13) {
    raise_no_default_device();
  }
}

// The seed of the generator prepare_data_loader gives a generator-less sampler (a RandomSampler, or a
// LengthGroupedSampler through the same hasattr(sampler, "generator") branch) when sharding, by the release's
// shuffle rule; nullopt: it gives none, and the sampler draws from the global generator.
std::optional<std::uint64_t> prepared_generator_seed(const PrepareOptions& options) {
  switch (shuffle_generator_rule(options.release)) {
    case ShuffleGeneratorRule::UnseededSynchronised:
      // 0.14.0 - 0.23.0, 0.30.0 - 1.5.2: torch.Generator(), never seeded.
      check_default_device(options);
      if (!mutant(Mutation::UnseededGeneratorSeededFromGlobal)) return kTorchDefaultSeed;
      [[fallthrough]];
    case ShuffleGeneratorRule::SeededFromGlobalAtPrepare: {
      // 1.6.0 on: seeded from the global generator, so every rank that seeded torch alike shuffles alike.
      TorchGenerator global(options.process_seed);
      global.discard(mutant(Mutation::PreparedDrawsIgnored) ? 0 : options.process_generator_draws);
      return draw_seed(global);
    }
    case ShuffleGeneratorRule::SeedableFrozenEpoch:    // 0.24.x: a seedable sampler instead (RandomSampler only)
    case ShuffleGeneratorRule::SeedableAccumulating:   // 0.25.0: likewise
    case ShuffleGeneratorRule::GlobalGeneratorPerEpoch:  // 0.26.0 - 0.29.3: no generator
      return std::nullopt;
  }
  return std::nullopt;
}

// Whether the release replaces the user's RandomSampler with a SeedableRandomSampler, and how that one seeds.
std::optional<SeedableSeeding> seedable_seeding(const PrepareOptions& options, bool sharding) {
  if (options.use_seedable_sampler) {
    switch (seedable_sampler_rule(options.release)) {
      case SeedableSamplerRule::Absent:  // before 0.26.0: check_options refuses the option
        break;
      case SeedableSamplerRule::Accumulating:  // 0.26.0 - 0.27.1: 0.25.0's sampler
        return SeedableSeeding::Accumulating;
      case SeedableSamplerRule::InertOnShards:  // 0.27.2 - 0.28.0: stored on the BatchSamplerShard, not iterated
        if (!sharding) return SeedableSeeding::InitialSeedPlusEpoch;
        break;
      case SeedableSamplerRule::EpochSeeded:
        return SeedableSeeding::InitialSeedPlusEpoch;
    }
  }
  switch (shuffle_generator_rule(options.release)) {
    case ShuffleGeneratorRule::SeedableFrozenEpoch:  // 0.24.x: only when sharding
      if (sharding) return SeedableSeeding::FrozenEpoch;
      break;
    case ShuffleGeneratorRule::SeedableAccumulating:  // 0.25.0: every RandomSampler
      return SeedableSeeding::Accumulating;
    default:
      break;
  }
  return std::nullopt;
}

SamplerOptions sampler_for(const DataLoaderArgs& loader, const PrepareOptions& options, bool dispatch) {
  SamplerOptions s;
  s.dataset_len = loader.dataset_len;
  s.torch_version = options.torch_version;
  s.seed = options.process_seed;
  s.seed_draws = options.process_generator_draws;
  const bool sharding = options.num_processes != 1 && !dispatch;
  if (loader.length_grouping) {
    // Not a RandomSampler, so use_seedable_sampler does not replace it and data_seed never reaches it. It has a
    // `generator` attribute (None), which prepare_data_loader fills as a RandomSampler's when the seedable sampler
    // is off (the same branch below): then rng_types' "generator" keeps the ranks' randperms alike; otherwise every
    // rank draws from its own global generator, alike only while the ranks drew alike since set_seed.
    s.kind = SamplerKind::LengthGrouped;
    s.length_grouping = loader.length_grouping;
    if (loader.length_grouping->generator_seed) {
      // A sampler built with its own generator keeps it (prepare fills only a None one).
      s.generator_seed = loader.length_grouping->generator_seed;
      return s;
    }
    if (!options.use_seedable_sampler && sharding) s.generator_seed = prepared_generator_seed(options);
    return s;
  }
  if (!loader.shuffle && !(mutant(Mutation::ShuffleRuleReachesSequential) && options.release != kDefaultRelease)) return s;
  s.replacement = loader.replacement;
  s.num_samples = loader.num_samples;
  if (const auto seeding = seedable_seeding(options, sharding)) {
    // 1.5.0 - 1.5.1: the SeedableRandomSampler's default generator is built with torch.get_default_device().
    check_default_device(options);
    s.kind = SamplerKind::SeedableRandom;
    s.seeding = *seeding;
    if (*seeding == SeedableSeeding::FrozenEpoch) {
      // 0.24.x: seed = epoch + generator.initial_seed() when the sampler has a generator (the user's), else epoch.
      s.initial_seed = PythonInt{loader.generator_seed.value_or(0)};
    } else if (loader.generator_seed && !seedable_sampler_ignores_user_generator(options.release)) {
      // 0.25.0 - 0.27.1: a user generator's initial_seed is the sampler's seed.
      s.initial_seed = PythonInt{*loader.generator_seed};
    } else {
      s.initial_seed = mutant(Mutation::DataSeedIgnored) ? PythonInt{options.process_seed}
                                                         : options.data_seed.value_or(PythonInt{options.process_seed});
    }
    return s;
  }
  s.kind = SamplerKind::Random;
  s.generator_seed = loader.generator_seed;
  // The dispatcher is built without the user's `generator` keyword, so its iterator draws _base_seed
  // from the global generator; a DataLoaderShard keeps it.
  s.loader_shares_generator = loader.generator_seed.has_value() && !dispatch;
  // prepare_data_loader gives a generator-less RandomSampler one by the release's rule (shuffle_generator_rule). It
  // skips this for the dispatcher, whose rank 0 then draws a fresh seed from its global generator every pass.
  if (!s.generator_seed && sharding) s.generator_seed = prepared_generator_seed(options);
  return s;
}

}  // namespace

const char* hf_dataset_path_name(HfDatasetPath path) noexcept {
  switch (path) {
    case HfDatasetPath::Shard:
      return "shard";
    case HfDatasetPath::IterableDatasetShard:
      return "IterableDatasetShard";
    case HfDatasetPath::Dispatched:
      return "dispatched";
    case HfDatasetPath::Unsharded:
      return "unsharded";
  }
  return "?";
}

namespace {

HfIterableDataset hf_user_dataset(const DataLoaderArgs& loader, std::int64_t rank, std::int64_t world_size) {
  return loader.hf_split_by_node ? loader.hf_dataset->split_dataset_by_node(rank, world_size) : *loader.hf_dataset;
}

}  // namespace

HfDatasetPath hf_dataset_path(const DataLoaderArgs& loader, const PrepareOptions& job_options) {
  if (resolve_dispatch_batches(loader, job_options)) return HfDatasetPath::Dispatched;
  const PrepareOptions options = loader_options(job_options);
  if (options.num_processes == 1) return HfDatasetPath::Unsharded;
  // n_shards of the dataset as the script hands it over: every rank's split has as many shards.
  const HfIterableDataset user = hf_user_dataset(loader, 0, job_options.num_processes);
  if (options.split_batches || mutant(Mutation::HfShardPathIgnored)) return HfDatasetPath::IterableDatasetShard;
  switch (hf_shard_rule(options.release)) {
    case HfShardRule::MoreShardsThanRanks:
      if (user.n_shards() > options.num_processes) return HfDatasetPath::Shard;
      break;
    case HfShardRule::AtLeastAsManyShards:
      if (user.n_shards() >= options.num_processes) return HfDatasetPath::Shard;
      break;
    case HfShardRule::None:
    case HfShardRule::ReadsMissingNShard:  // prepare_data_loader raises before it takes any path
      break;
  }
  return HfDatasetPath::IterableDatasetShard;
}

HfIterableDataset hf_rank_dataset(const DataLoaderArgs& loader, const PrepareOptions& job_options) {
  // split_dataset_by_node takes the job's rank and size: the script calls it with its own process group's.
  HfIterableDataset ds = hf_user_dataset(loader, job_options.process_index, job_options.num_processes);
  if (hf_dataset_path(loader, job_options) == HfDatasetPath::Shard) {
    const PrepareOptions options = loader_options(job_options);
    ds = ds.shard(options.num_processes, options.process_index);
  }
  return ds;
}

PrepareOptions loader_options(const PrepareOptions& options) {
  if (!options.torch_device_mesh) return options;
  PrepareOptions out = options;
  const LoaderProcess p =
      mesh_loader_process(*options.torch_device_mesh, options.num_processes, options.process_index, options.deepspeed);
  out.num_processes = p.num_processes;
  out.process_index = p.process_index;
  out.torch_device_mesh.reset();
  return out;
}

SampleOrder pass_order(const DataLoaderArgs& loader, const PrepareOptions& job_options, std::int64_t pass,
                       bool before_any_prepared_pass) {
  const PrepareOptions options = loader_options(job_options);
  if (loader.hf_dataset) {
    // The rank's own stream in the main process (a datasets.IterableDataset orders itself, per rank).
    HfIterableDataset ds = resolve_dispatch_batches(loader, job_options)
                               ? hf_user_dataset(loader, 0, job_options.num_processes)
                               : hf_rank_dataset(loader, job_options);
    ds.set_epoch(pass);
    return SampleOrder::of(ds.stream());
  }
  if (loader.dataset_kind == DatasetKind::Iterable) {
    if (!loader.dataset_generator_seed) return SampleOrder::sequential(loader.dataset_len);
    TorchGenerator gen(*loader.dataset_generator_seed);
    const bool reseeded = options.num_processes != 1 && !resolve_dispatch_batches(loader, options);
    const DataLoaderWorkers& w = loader.workers;
    if (reseeded) {
      // IterableDatasetShard reseeds with the epoch; persistent workers' copies keep the first pass's.
      gen.manual_seed(static_cast<std::uint64_t>(w.active() && w.persistent_workers ? 0 : pass));
    } else if (w.active() && !w.persistent_workers) {
      // Every pass's workers copy the main process's generator, which no worker advances.
    } else {
      for (std::int64_t p = 0; p < pass; ++p) skip_randperm_draws(loader.dataset_len, gen, options.torch_version);
    }
    return randperm_order(loader.dataset_len, gen, options.torch_version);
  }
  PrepareOptions rank0 = options;
  rank0.process_index = 0;
  Sampler sampler(sampler_for(loader, rank0, resolve_dispatch_batches(loader, options)));
  if (options.use_stateful_dataloader && before_any_prepared_pass &&
      !mutant(Mutation::StatefulInitialIteratorIgnored)) {
    sampler.build_loader_iterator();
  }
  // Persistent workers keep the first pass's iterator: no later pass draws a _base_seed.
  const bool persistent = loader.workers.active() && loader.workers.persistent_workers;
  const auto iterate = [&](std::int64_t p) {
    return persistent && p > 0 ? sampler.iterate() : sampler.iterate_in_loader();
  };
  const auto examples = [&](SampleOrder order) {
    if (!loader.hf_map_shuffle_seed) return order;
    return order.through(hf_dataset_shuffle_indices(loader.dataset_len, *loader.hf_map_shuffle_seed));
  };
  // A seedable sampler seeded initial_seed + epoch is reached by set_epoch(pass); 0.24.x's frozen epoch and 0.25's
  // accumulating seed depend on the passes before, which the loop below replays.
  if (sampler.is_seedable() && sampler.options().seeding == SeedableSeeding::InitialSeedPlusEpoch) {
    sampler.set_epoch(pass);
    return examples(iterate(pass));
  }
  for (std::int64_t p = 0; p < pass; ++p) iterate(p);
  return examples(iterate(pass));
}

std::optional<std::int64_t> permutation_pass_length(const DataLoaderArgs& loader, const PrepareOptions& job_options,
                                                    std::int64_t pass) {
  const PrepareOptions options = loader_options(job_options);
  // A datasets.IterableDataset's ranks read streams of their own: no one order stands for the job.
  if (loader.hf_dataset) return std::nullopt;
  // An iterable dataset's order is sequential or a fresh randperm(dataset_len): a permutation either way.
  if (loader.dataset_kind == DatasetKind::Iterable) return loader.dataset_len;
  PrepareOptions rank0 = options;
  rank0.process_index = 0;
  Sampler sampler(sampler_for(loader, rank0, resolve_dispatch_batches(loader, options)));
  if (!sampler.yields_permutation()) return std::nullopt;
  // pass_order's seedable sampler raises on its epoch's seed; a RandomSampler's passes raise nothing when each
  // is a permutation (only an empty dataset does, which the constructor has refused).
  sampler.set_epoch(sampler.is_seedable() ? pass : 0);
  sampler.check_iterate();
  return sampler.size();
}

namespace {

// The inputs pass_order() reads, with everything it ignores set to one value.
std::pair<DataLoaderArgs, PrepareOptions> order_inputs(DataLoaderArgs loader, PrepareOptions options) {
  loader.batch_size = 1;
  loader.drop_last = false;
  options.process_index = 0;
  options.even_batches = true;
  options.split_batches = false;
  return {loader, options};
}

}  // namespace

bool same_pass_order(const DataLoaderArgs& a, const PrepareOptions& a_options, const DataLoaderArgs& b,
                     const PrepareOptions& b_options) {
  return order_inputs(a, a_options) == order_inputs(b, b_options);
}

ShuffleSeeding shuffle_seeding(const DataLoaderArgs& loader, const PrepareOptions& job_options) {
  if (!loader.shuffle || loader.dataset_kind != DatasetKind::Map) return {};
  PrepareOptions options = loader_options(job_options);
  options.process_index = 0;
  SamplerOptions s;
  try {
    s = sampler_for(loader, options, resolve_dispatch_batches(loader, options));
  } catch (const AccelerateError&) {
    return {};  // prepare raises (1.5.0 - 1.5.1 on torch 1.13): no order at all
  }
  if (s.kind == SamplerKind::SeedableRandom) {
    const bool own_seed = s.seeding == SeedableSeeding::FrozenEpoch || options.data_seed.has_value() ||
                          (loader.generator_seed && !seedable_sampler_ignores_user_generator(options.release));
    return {own_seed, false, false};
  }
  if (s.kind != SamplerKind::Random) return {};
  if (loader.generator_seed) return {};  // the user's generator, seeded alike on every rank
  if (s.generator_seed) {
    // prepare gave it a generator: never seeded (fixed), or seeded from the global generator at prepare.
    if (shuffle_generator_rule(options.release) == ShuffleGeneratorRule::UnseededSynchronised) return {};
    return {false, options.synchronize_generator, true};
  }
  return {false, false, true};  // a fresh seed from the global generator every pass
}

bool resolve_dispatch_batches(const DataLoaderArgs& loader, const PrepareOptions& options) {
  if (options.dispatch_batches) return *options.dispatch_batches;
  return options.put_on_device && loader.dataset_kind == DatasetKind::Iterable;
}

PreparedLoader prepare_data_loader(const DataLoaderArgs& loader, const PrepareOptions& job_options) {
  const bool dispatch = resolve_dispatch_batches(loader, job_options);
  check_options(loader, job_options, dispatch);
  const PrepareOptions options = loader_options(job_options);
  check_mesh_options(options, dispatch);
  const bool sharded = options.num_processes != 1;
  try {
    if (dispatch) {
      DispatcherOptions d;
      d.iterable = loader.dataset_kind == DatasetKind::Iterable;
      if (d.iterable) {
        d.sampler.dataset_len = loader.dataset_len;
      } else {
        d.sampler = sampler_for(loader, options, true);
      }
      d.sampler.torch_version = options.torch_version;
      d.batch_size = loader.batch_size;
      d.drop_last = loader.drop_last;
      d.split_batches = options.split_batches;
      // The dispatcher fetches and slices for the job's processes (AcceleratorState's), whatever the mesh says.
      d.num_processes = job_options.num_processes;
      d.process_index = job_options.process_index;
      if (job_options.torch_device_mesh) d.mesh = dispatcher_mesh(*job_options.torch_device_mesh);
      d.dataset_generator_seed = loader.dataset_generator_seed;
      d.process_group = options.process_group;
      d.stateful = options.use_stateful_dataloader;
      d.workers = loader.workers;
      d.snapshot_raises = snapshot_raises(options.release, options.use_stateful_dataloader, loader.workers.active(),
                                          job_options.num_processes);
      d.release = options.release;
      if (loader.hf_map_shuffle_seed) {
        d.index_map = std::make_shared<const std::vector<std::int64_t>>(
            hf_dataset_shuffle_indices(loader.dataset_len, *loader.hf_map_shuffle_seed));
      }
      // Only rank 0 iterates: its dataset, split for rank 0 when the script split it by node.
      if (loader.hf_dataset) d.hf_dataset = hf_user_dataset(loader, 0, job_options.num_processes);
      return DataLoaderDispatcher(d);
    }
    if (loader.dataset_kind == DatasetKind::Iterable) {
      IterableLoaderOptions it;
      it.dataset_len = loader.dataset_len;
      it.shard = IterableShardOptions{loader.batch_size, loader.drop_last, options.num_processes, options.process_index,
                                      options.split_batches};
      it.sharded = sharded;
      it.dataset_generator_seed = loader.dataset_generator_seed;
      it.torch_version = options.torch_version;
      it.workers = loader.workers;
      it.release = options.release;
      it.snapshot_raises = snapshot_raises(options.release, options.use_stateful_dataloader, loader.workers.active(),
                                           job_options.num_processes);
      if (loader.hf_dataset) {
        if (sharded && !options.split_batches && hf_shard_rule(options.release) == HfShardRule::ReadsMissingNShard) {
          throw AccelerateError(PyErrorType::AttributeError, "prepare_data_loader",
                                "'IterableDataset' object has no attribute 'n_shard'");
        }
        it.hf_dataset = hf_rank_dataset(loader, job_options);
        // .shard() replaces the IterableDatasetShard: the loader batches the rank's own dataset.
        if (hf_dataset_path(loader, job_options) == HfDatasetPath::Shard) it.sharded = false;
      }
      DataLoaderShard shard(it);
      shard.set_synchronize_generator(options.synchronize_generator);
      shard.set_synchronize_cuda_rng(options.synchronize_cuda_rng);
      shard.set_synchronize_cuda_rng(options.synchronize_cuda_rng);
      return shard;
    }
    MapLoaderOptions map;
    map.sampler = sampler_for(loader, options, false);
    map.batch_sampler = BatchSampler{loader.batch_size, loader.drop_last};
    map.shard = ShardOptions{options.num_processes, options.process_index, options.split_batches, options.even_batches};
    map.sharded = sharded;
    map.stateful = options.use_stateful_dataloader;
    map.persistent_workers = loader.workers.active() && loader.workers.persistent_workers;
    map.release = options.release;
    map.snapshot_raises = snapshot_raises(options.release, options.use_stateful_dataloader, loader.workers.active(),
                                          job_options.num_processes);
    if (loader.hf_map_shuffle_seed) {
      map.index_map = std::make_shared<const std::vector<std::int64_t>>(
          hf_dataset_shuffle_indices(loader.dataset_len, *loader.hf_map_shuffle_seed));
    }
    DataLoaderShard shard(map);
    shard.set_synchronize_generator(options.synchronize_generator);
    shard.set_synchronize_cuda_rng(options.synchronize_cuda_rng);
    return shard;
  } catch (const AccelerateError& e) {
    // The wrappers' own checks (BatchSamplerShard, the DataLoader's batch size) fire inside
    // prepare_data_loader: batch_size == 1 slips past its first check.
    throw AccelerateError(e.type(), "prepare_data_loader", e.message());
  }
}

}  // namespace accel
