// accel-sim's loader flags: the user's DataLoader and how it is prepared, named after Accelerate's options
// (and also spelled as Accelerate's own `--num_processes`-style arguments), gathered into one golden-schema
// config.
//
// `--api accelerator` (the default) describes Accelerator(...).prepare(dl) with the Accelerator's defaults
// (device placement on, rng_types ["generator"], torch's RandomSampler for --shuffle); `--api
// prepare_data_loader` describes a direct prepare_data_loader call with its own defaults. The config
// carries the options as the user gave them; trace::parse_config resolves them, once, for everything
// downstream.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "cli/accelerate_config_file.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {

struct LoaderFlags {
  std::string api = "accelerator";
  std::int64_t ranks = 1;
  std::int64_t dataset_len = -1;
  std::int64_t batch_size = 1;
  bool split_batches = false;
  bool drop_last = false;
  bool shuffle = false;
  bool replacement = false;                     // RandomSampler(replacement=True)
  std::optional<std::int64_t> num_samples;      // RandomSampler(num_samples=N)
  std::optional<std::string> generator_seed;    // DataLoader(generator=torch.Generator().manual_seed(N))
  std::optional<std::string> seed;         // data_seed; Python ints, cli/seed_text.hpp reads them
  std::optional<std::string> torch_seed;   // set_seed / torch.manual_seed on every process
  bool seed_per_rank = false;              // set_seed(..., device_specific=True)
  std::optional<std::int64_t> rng_draws;   // words drawn from the global generator between set_seed and prepare
  std::string rng_state_file;              // torch.get_rng_state() saved just before prepare
  std::optional<std::int64_t> skip_batches;
  std::int64_t epochs = 1;
  std::string torch_version = "2.6";
  std::string dataset = "map";
  bool dispatch_on = false;
  bool dispatch_off = false;
  bool put_on_device = false;
  bool no_device_placement = false;
  std::string rng_types = "generator";  // with --api accelerator; prepare_data_loader's default is None
  bool dataset_generator = false;
  std::int64_t num_workers = 0;
  std::string worker_split = "none";
  bool persistent_workers = false;
  // --dataset hf-iterable: a HuggingFace datasets.IterableDataset of shards.
  std::string shard_sizes;                  // --shard-sizes a,b,c
  std::optional<std::int64_t> num_shards;   // --num-shards S: S shards as equal as dataset_len allows
  std::optional<std::string> hf_shuffle;    // --hf-shuffle SEED: IterableDataset.shuffle(seed=SEED, ...)
  std::optional<std::int64_t> buffer_size;  // --buffer-size B (default 1000)
  std::optional<std::int64_t> max_buffer_input_shards;
  bool split_by_node = false;  // --split-by-node: split_dataset_by_node(ds, rank, world) before prepare
  std::string datasets_version = "5.2";
  bool non_blocking = false;
  bool use_stateful_dataloader = false;
  std::string mixed_precision = "no";      // only the training section reads it
  bool use_cpu = false;                    // from a config file or ACCELERATE_USE_CPU
  bool xla = false;                        // distributed_type XLA (from a config file)
  std::string config_file;                 // --config-file: what `accelerate config` wrote
  // --parallelism dp_replicate=A,dp_shard=B,tp=C,cp=D,sp=E: Accelerator(parallelism_config=ParallelismConfig(...)),
  // or (--api prepare_data_loader) the mesh that config builds, as torch_device_mesh.
  std::string parallelism;
  std::string device_mesh;       // --device-mesh name=size,...: a user's own DeviceMesh, outermost first
  std::string distributed_type;  // --distributed-type DEEPSPEED: prepare_data_loader's DeepSpeed branch
  std::string accelerate_version;  // --accelerate-version X.Y.Z: config.accelerate_version (empty: the newest)

  void add_to(CLI::App& app);

  // Fills what the command line left unset from an `accelerate config` file (and Accelerate's own
  // ACCELERATE_* environment variables, which win over the file). `cmd` tells which flags were given.
  void apply(const AccelerateConfigFile& file, const CLI::App& cmd);

  trace::Json config() const;

 private:
  // The hf-iterable keys (shard_sizes, hf_shuffle, split_by_node, datasets_version) into `c`.
  void hf_dataset_json(trace::Json& c) const;
  // {dp_replicate_size, ...} from --parallelism.
  trace::Json parallelism_json() const;
  // --rng-draws, or the draws --rng-state's file holds (its seed checked against --set-seed).
  std::optional<std::uint64_t> global_draws(const std::optional<std::string>& set_seed) const;
  // Each on/off pair is two flags, so that giving both is refused rather than settled by their order.
  bool even_on_ = false;
  bool even_off_ = false;
  bool seedable_on_ = false;
  bool seedable_off_ = false;
  std::uint64_t hf_shuffle_seed() const;  // --hf-shuffle by the config's hf_shuffle.seed rule
  bool datasets_version_given_ = false;   // set by apply(): only a HuggingFace dataset reads it
  bool rng_types_given_ = false;  // set by apply(): prepare_data_loader defaults to rng_types=None
};

}  // namespace accel::cli
