#include "cli/loader_flags.hpp"

#include "trace/decimal_integer.hpp"

#include "cli/integer_flag.hpp"
#include "cli/seed_text.hpp"
#include "cli/text_flag.hpp"
#include "core/accelerate_release.hpp"
#include "core/device_mesh.hpp"
#include "core/hf_iterable_dataset.hpp"
#include "core/torch_release.hpp"
#include "core/torch_rng_state.hpp"
#include "trace/input_limits.hpp"

namespace accel::cli {
namespace {

using trace::ConfigError;
using trace::Json;

bool given(const CLI::App& cmd, const char* flag) { return cmd.count(flag) > 0; }

// --help lists the flags by what they describe, each option with its default, instead of 40 flags flat. Each is
// grouped where it is added: a lookup by name afterwards scans every option (issue 25: 10 % of a what-if's start).
constexpr const char* kDataLoader = "The user's DataLoader";
constexpr const char* kPrepared = "How it is prepared (Accelerator / prepare_data_loader)";
constexpr const char* kSeeds = "Seeds";
constexpr const char* kPasses = "Passes";

}  // namespace

void LoaderFlags::add_to(CLI::App& app) {
  app.add_option("--api", api,
                 "accelerator: Accelerator(...).prepare(dl) with its defaults (default); prepare_data_loader: a direct "
                 "call with that function's defaults; trainer: transformers.Trainer's loader and loop")
      ->check(CLI::IsMember({"accelerator", "prepare_data_loader", "trainer"}))
      ->capture_default_str()
      ->group(kPrepared);
  add_integer(app, "--ranks,--num-processes,--num_processes", ranks, "number of ranks (num_processes)")
      ->capture_default_str()
      ->group(kPrepared);
  add_integer(app, "--dataset-len", dataset_len, "number of samples in the dataset")->group(kDataLoader);
  add_integer(app, "--batch-size,--batch_size", batch_size, "batch_size of the user's DataLoader")
      ->capture_default_str()
      ->group(kDataLoader);
  app.add_flag("--split-batches,--split_batches", split_batches, "split_batches=True")->group(kPrepared);
  app.add_flag("--even-batches,--even_batches", even_on_, "even_batches=True (the default)")->group(kPrepared);
  app.add_flag("--no-even-batches", even_off_, "even_batches=False")->group(kPrepared);
  app.add_flag("--drop-last,--drop_last", drop_last, "drop_last=True on the user's DataLoader")->group(kDataLoader);
  app.add_flag("--shuffle", shuffle,
               "shuffle=True: torch's RandomSampler (SeedableRandomSampler with --use-seedable-sampler)")
      ->group(kDataLoader);
  app.add_flag("--replacement", replacement, "RandomSampler(replacement=True) (with --shuffle)")->group(kDataLoader);
  add_integer(app, "--num-samples,--num_samples", num_samples, "RandomSampler(num_samples=N) (with --shuffle)")
      ->group(kDataLoader);
  app.add_option("--generator-seed,--generator_seed", generator_seed,
                 "DataLoader(generator=torch.Generator().manual_seed(N)): the loader's own generator")
      ->group(kDataLoader);
  app.add_flag("--use-seedable-sampler,--use_seedable_sampler", seedable_on_, "use_seedable_sampler=True")
      ->group(kPrepared);
  app.add_flag("--no-seedable-sampler", seedable_off_,
               "use_seedable_sampler=False (the default: torch's RandomSampler)")
      ->group(kPrepared);
  app.add_option("--seed,--data-seed,--data_seed", seed, "data_seed (the seedable sampler's seed)")->group(kSeeds);
  app.add_option("--set-seed,--torch-seed", torch_seed,
                 "set_seed(N) at the top of every process (torch.manual_seed(N)); without any seed a shuffle differs "
                 "every run")
      ->group(kSeeds);
  app.add_flag("--set-seed-device-specific,--seed-per-rank", seed_per_rank,
               "set_seed(N, device_specific=True): every rank seeds N + its rank")
      ->group(kSeeds);
  add_integer(app, "--rng-draws", rng_draws,
              "32-bit words the script draws from torch's global generator between set_seed and prepare (its "
              "model's initialisation): prepare seeds a shuffled sampler from what is left")
      ->group(kSeeds);
  app.add_option("--rng-state", rng_state_file,
                 "the global generator's state just before prepare, saved by the script with "
                 "torch.get_rng_state().numpy().tofile(FILE): gives --rng-draws exactly")
      ->check(non_empty("a FILE"))
      ->group(kSeeds);
  add_integer(app, "--skip-batches", skip_batches, "skip_first_batches(k) on the first pass (a resume)")
      ->group(kPasses);
  add_integer(app, "--epochs", epochs, "passes over the loader")->capture_default_str()->group(kPasses);
  app.add_option("--accelerate-version,--accelerate_version", accelerate_version,
                 std::string("the Accelerate release to simulate: ") + kAccelerateReleasesModelled + " (default " +
                     kAccelerateVersion + "; golden/releases.md)")
      ->type_name("X.Y.Z")
      ->check(non_empty("a release X.Y.Z"))
      ->group(kPrepared);
  app.add_option("--torch-version", torch_version,
                 "torch whose shuffle to reproduce: 2.6 (the rule of torch >= 2.6, the default), 2.15 (recorded; "
                 "2.6's rule) or 1.13")
      ->check(
          [](const std::string& v) -> std::string { return torch_release_rules(v) ? std::string() : torch_refusal(v); })
      ->type_name("TEXT:{2.6,2.15,1.13}")
      ->capture_default_str()
      ->group(kPasses);
  app.add_option("--dataset", dataset,
                 "map (map-style, the default), iterable (an IterableDataset), hf-iterable (a HuggingFace "
                 "datasets.IterableDataset of shards: --num-shards / --shard-sizes) or hf-map (a datasets.Dataset, "
                 "shuffled with --hf-shuffle SEED)")
      ->check(CLI::IsMember({"map", "iterable", "hf-iterable", "hf-map"}))
      ->capture_default_str()
      ->group(kDataLoader);
  app.add_flag("--dispatch-batches,--dispatch_batches", dispatch_on,
               "dispatch_batches=True (default None: dispatch iterable datasets when batches go to the device)")
      ->group(kPrepared);
  app.add_flag("--no-dispatch-batches", dispatch_off, "dispatch_batches=False")->group(kPrepared);
  app.add_flag("--put-on-device,--device-placement", put_on_device,
               "put batches on the device (the Accelerator's default; prepare_data_loader's put_on_device=True)")
      ->group(kPrepared);
  app.add_flag("--no-device-placement", no_device_placement, "Accelerator(device_placement=False)")->group(kPrepared);
  app.add_option(
         "--rng-types", rng_types,
         "generator (rank 0's sampler generator is broadcast every pass) or none; default: generator with --api "
         "accelerator (the Accelerator's rng_types), none with --api prepare_data_loader (rng_types=None)")
      ->check(CLI::IsMember({"generator", "none"}))
      ->group(kPrepared);
  app.add_flag("--dataset-generator", dataset_generator,
               "the iterable dataset owns a torch.Generator and yields a fresh randperm every pass")
      ->group(kDataLoader);
  add_integer(app, "--num-workers,--num_workers", num_workers,
              "DataLoader(num_workers=W): W worker processes, each iterating its own copy of the dataset")
      ->capture_default_str()
      ->group(kDataLoader);
  app.add_option("--worker-split", worker_split,
                 "how the iterable dataset uses get_worker_info(): none (every worker yields everything), strided "
                 "(islice(worker_id, None, W)) or contiguous (the worker's block)")
      ->check(CLI::IsMember({"none", "strided", "contiguous"}))
      ->capture_default_str()
      ->group(kDataLoader);
  app.add_flag("--persistent-workers,--persistent_workers", persistent_workers,
               "DataLoader(persistent_workers=True): the workers and their dataset copies live across passes")
      ->group(kDataLoader);
  app.add_option("--shard-sizes", shard_sizes,
                 "hf-iterable: the examples of each shard, a,b,c (they add up to --dataset-len, which they imply)")
      ->check(non_empty("a list of sizes"))
      ->group(kDataLoader);
  add_integer(app, "--num-shards", num_shards,
              "hf-iterable: S shards of --dataset-len examples, as equal as they divide (the first ones one larger)")
      ->group(kDataLoader);
  app.add_option("--hf-shuffle", hf_shuffle, "hf-iterable: IterableDataset.shuffle(seed=SEED, buffer_size=B)")
      ->group(kDataLoader);
  add_integer(app, "--buffer-size", buffer_size, "hf-iterable: the shuffle buffer's size (datasets' default 1000)")
      ->group(kDataLoader);
  add_integer(app, "--max-buffer-input-shards", max_buffer_input_shards,
              "hf-iterable: shuffle(max_buffer_input_shards=K), datasets 5.x (default 10)")
      ->group(kDataLoader);
  app.add_flag("--split-by-node", split_by_node,
               "hf-iterable: the script calls datasets.distributed.split_dataset_by_node(ds, rank, world_size) on "
               "every rank before prepare")
      ->group(kDataLoader);
  app.add_option(
         "--datasets-version", datasets_version,
         std::string("hf-iterable: the datasets release whose rules to apply (") + kDatasetsVersionsModelled + ")")
      ->capture_default_str()
      ->group(kDataLoader);
  app.add_flag("--non-blocking,--non_blocking", non_blocking,
               "DataLoaderConfiguration(non_blocking=True): no effect on order")
      ->group(kPrepared);
  app.add_flag("--use-stateful-dataloader,--use_stateful_dataloader", use_stateful_dataloader,
               "DataLoaderConfiguration(use_stateful_dataloader=True): torchdata's StatefulDataLoader")
      ->group(kPrepared);
  app.add_option("--config-file,--config_file", config_file,
                 "the YAML (or JSON) `accelerate config` writes: num_processes, distributed_type, mixed_precision, "
                 "use_cpu, deepspeed_config.gradient_accumulation_steps; flags win over it, ACCELERATE_* variables too")
      ->check(non_empty("a FILE"))
      ->check(CLI::ExistingFile)
      ->group(kPrepared);
  app.add_option("--parallelism", parallelism,
                 "ParallelismConfig sizes, e.g. dp_shard=2,tp=4 (names dp_replicate, dp_shard, tp, cp, sp; each >= 1): "
                 "ranks of one tp/cp group share their batches")
      ->check(non_empty("NAME=SIZE,..."))
      ->group(kPrepared);
  app.add_option("--device-mesh", device_mesh,
                 "a DeviceMesh of your own given to prepare_data_loader(torch_device_mesh=...): name=size,... "
                 "outermost first, e.g. tp=2,dp_shard=2 (needs --api prepare_data_loader)")
      ->check(non_empty("NAME=SIZE,..."))
      ->group(kPrepared);
  // launch and run have their own --distributed-type (what the real ranks are), which this one must not shadow.
  if (app.get_option_no_throw("--distributed-type") == nullptr) {
    app.add_option("--distributed-type", distributed_type,
                   "MULTI_GPU (the default) or DEEPSPEED, whose branch divides the mesh by tp alone")
        ->check(CLI::IsMember({"MULTI_GPU", "DEEPSPEED"}))
        ->group(kPrepared);
  }
  app.add_option("--mixed-precision,--mixed_precision", mixed_precision,
                 "no, fp16, bf16 or fp8 (fp16 off the CPU means a loss scaler that can skip optimizer steps)")
      ->check(CLI::IsMember({"no", "fp16", "bf16", "fp8"}))
      ->capture_default_str()
      ->group(kPrepared);
}

void LoaderFlags::apply(const AccelerateConfigFile& file, const CLI::App& cmd) {
  rng_types_given_ = given(cmd, "--rng-types");
  datasets_version_given_ = given(cmd, "--datasets-version");
  if (file.num_processes && !given(cmd, "--ranks")) ranks = *file.num_processes;
  if (file.mixed_precision && !given(cmd, "--mixed-precision")) mixed_precision = *file.mixed_precision;
  if (file.use_cpu) use_cpu = *file.use_cpu;
  if (file.xla()) xla = true;
  if (file.parallelism && !given(cmd, "--parallelism")) parallelism = *file.parallelism;
  if (file.distributed_type == "DEEPSPEED" && !parallelism.empty() && !given(cmd, "--distributed-type")) {
    distributed_type = "DEEPSPEED";
  }
}

namespace {

// "a=1,b=2" in the order given, each name once and each size a decimal integer in [1, 65536].
std::vector<std::pair<std::string, std::int64_t>> name_sizes(const std::string& text, const std::string& flag) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError(flag + ": each entry must be NAME=SIZE, got '" + item + "'");
    }
    const std::string name = item.substr(0, eq);
    for (const auto& [seen, size] : out) {
      if (seen == name) throw ConfigError(flag + ": names '" + name + "' twice");
    }
    const trace::DecimalInteger size = trace::read_decimal_integer(item.substr(eq + 1), 1, trace::kMaxRanks);
    if (!size.value) throw ConfigError(flag + ": the size of '" + name + "' " + size.problem);
    out.emplace_back(name, *size.value);
    begin = end + 1;
  }
  return out;
}

}  // namespace

std::uint64_t LoaderFlags::hf_shuffle_seed() const {
  const auto seed = trace::read_numpy_seed(*hf_shuffle);
  if (!seed.value) throw ConfigError("--hf-shuffle: " + seed.problem);
  return *seed.value;
}

void LoaderFlags::hf_dataset_json(Json& c) const {
  if (dataset == "hf-map") {
    const char* stream_flag = !shard_sizes.empty() ? "--shard-sizes" : num_shards ? "--num-shards" : buffer_size ? "--buffer-size"
                              : max_buffer_input_shards ? "--max-buffer-input-shards" : split_by_node ? "--split-by-node"
                                                                                                       : nullptr;
    if (stream_flag) throw ConfigError(std::string(stream_flag) + ": needs --dataset hf-iterable (a stream of shards)");
    if (hf_shuffle) c["hf_shuffle"] = {{"seed", hf_shuffle_seed()}};
    c["datasets_version"] = datasets_version;
    return;
  }
  const bool hf = dataset == "hf-iterable";
  const char* given = !shard_sizes.empty()      ? "--shard-sizes"
                      : num_shards              ? "--num-shards"
                      : hf_shuffle              ? "--hf-shuffle"
                      : buffer_size             ? "--buffer-size"
                      : max_buffer_input_shards ? "--max-buffer-input-shards"
                      : split_by_node           ? "--split-by-node"
                                                : nullptr;
  if (!hf) {
    if (given) throw ConfigError(std::string(given) + ": needs --dataset hf-iterable");
    if (datasets_version_given_) {
      throw ConfigError(
          "--datasets-version: only a HuggingFace dataset follows the datasets release; it needs "
          "--dataset hf-iterable or hf-map (this job's dataset is a torch " +
          dataset + " dataset)");
    }
    return;
  }
  if (!shard_sizes.empty() && num_shards) throw ConfigError("--shard-sizes: conflicts with --num-shards");
  Json sizes = Json::array();
  if (!shard_sizes.empty()) {
    std::int64_t total = 0;
    std::size_t begin = 0;
    while (begin <= shard_sizes.size()) {
      const std::size_t end = std::min(shard_sizes.find(',', begin), shard_sizes.size());
      const std::string item = shard_sizes.substr(begin, end - begin);
      const auto size = trace::read_decimal_integer(item, 0, trace::kMaxHfStreamExamples);
      if (!size.value) throw ConfigError("--shard-sizes: '" + item + "' " + size.problem);
      sizes.push_back(*size.value);
      total += *size.value;
      if (total > trace::kMaxHfStreamExamples) {
        throw ConfigError("--shard-sizes: must add up to at most " + std::to_string(trace::kMaxHfStreamExamples) +
                          " examples (input limit)");
      }
      begin = end + 1;
    }
    if (dataset_len >= 0 && dataset_len != total) {
      throw ConfigError("--dataset-len: " + std::to_string(dataset_len) + " is not the sum of --shard-sizes (" +
                        std::to_string(total) + ")");
    }
    c["dataset_len"] = total;
  } else {
    if (!num_shards) throw ConfigError("--dataset hf-iterable: needs --num-shards S or --shard-sizes a,b,...");
    if (dataset_len < 0) throw ConfigError("--dataset-len: is required (a number >= 0)");
    if (*num_shards < 1 || *num_shards > trace::kMaxHfShards) {
      throw ConfigError("--num-shards: must be in [1, " + std::to_string(trace::kMaxHfShards) + "]");
    }
    for (std::int64_t s = 0; s < *num_shards; ++s)
      sizes.push_back(dataset_len / *num_shards + (s < dataset_len % *num_shards));
  }
  c["shard_sizes"] = sizes;
  if (hf_shuffle) {
    Json sh;
    sh["seed"] = hf_shuffle_seed();
    sh["buffer_size"] = buffer_size.value_or(1000);
    if (max_buffer_input_shards) sh["max_buffer_input_shards"] = *max_buffer_input_shards;
    c["hf_shuffle"] = sh;
  } else if (buffer_size || max_buffer_input_shards) {
    throw ConfigError(std::string(buffer_size ? "--buffer-size" : "--max-buffer-input-shards") +
                      ": needs --hf-shuffle SEED");
  }
  c["split_by_node"] = split_by_node;
  c["datasets_version"] = datasets_version;
}

Json LoaderFlags::config() const {
  if (api == "trainer") {
    throw ConfigError("--api trainer: is the what-if's and check's (accel-sim [check] --api trainer ...); this command "
                      "takes a trainer-family config file (--config FILE)");
  }
  if (dataset_len < 0 && !(dataset == "hf-iterable" && !shard_sizes.empty())) {
    throw ConfigError("--dataset-len: is required (a number >= 0)");
  }
  if (dispatch_on && dispatch_off) throw ConfigError("--dispatch-batches: conflicts with --no-dispatch-batches");
  if (even_on_ && even_off_) throw ConfigError("--even-batches: conflicts with --no-even-batches");
  if (seedable_on_ && seedable_off_) throw ConfigError("--use-seedable-sampler: conflicts with --no-seedable-sampler");
  if (dataset_generator && dataset != "iterable") throw ConfigError("--dataset-generator: needs --dataset iterable");
  const bool accelerator = api == "accelerator";
  if (!accelerator && (no_device_placement || non_blocking || use_stateful_dataloader)) {
    throw ConfigError(std::string(no_device_placement ? "--no-device-placement" : non_blocking ? "--non-blocking"
                                                                                               : "--use-stateful-dataloader") +
                      ": is an Accelerator option; it needs --api accelerator");
  }
  if (accelerator && put_on_device && no_device_placement) {
    throw ConfigError("--put-on-device: conflicts with --no-device-placement");
  }
  const bool even_batches = !even_off_;
  // Off unless asked for, as in both real functions: prepare_data_loader(use_seedable_sampler=False) and
  // DataLoaderConfiguration(use_seedable_sampler=False) (issue 25: this CLI used to turn it on for
  // --api prepare_data_loader; golden/cases/pdl-defaults-* pin the default).
  const bool seedable = seedable_on_;
  if (xla && shuffle && !seedable) {
    throw ConfigError("config_file.distributed_type: XLA gives a shuffled RandomSampler a generator of its own in "
                      "prepare_data_loader, which this project does not model; use --use-seedable-sampler");
  }
  if (seed_per_rank && !torch_seed) throw ConfigError("--set-seed-device-specific: needs --set-seed N");
  if ((replacement || num_samples) && !shuffle) {
    throw ConfigError(std::string(replacement ? "--replacement" : "--num-samples") + ": is a RandomSampler option; it needs --shuffle");
  }
  const Json data_seed = seed ? seed_json(parse_seed(*seed, "--seed")) : Json(nullptr);
  const Json global_seed = torch_seed ? seed_json(parse_seed(*torch_seed, "--set-seed")) : Json(nullptr);
  const std::optional<std::uint64_t> draws_before_prepare = global_draws(torch_seed);

  Json c;
  c["api"] = accelerator ? "accelerator" : skip_batches ? "prepare_data_loader+skip_first_batches" : "prepare_data_loader";
  c["dataset_kind"] = dataset;
  c["dataset_len"] = dataset_len;
  hf_dataset_json(c);
  c["batch_size"] = batch_size;
  c["num_processes"] = ranks;
  c["drop_last"] = drop_last;
  c["shuffle"] = shuffle;
  c["dataset_generator"] = dataset_generator;
  if (num_workers != 0) c["num_workers"] = num_workers;
  if (worker_split != "none") {
    if (dataset != "iterable") {
      throw ConfigError(std::string("--worker-split: needs --dataset iterable (") +
                        (dataset == "hf-iterable" ? "a datasets.IterableDataset gives each worker its shards itself"
                                                  : "a map-style dataset is indexed by the sampler") +
                        ")");
    }
    if (num_workers == 0) throw ConfigError("--worker-split: needs --num-workers W > 0");
    c["worker_split"] = worker_split;
  }
  if (persistent_workers) {
    if (num_workers == 0) throw ConfigError("--persistent-workers: needs --num-workers W > 0 (torch's rule)");
    c["persistent_workers"] = true;
  }
  if (replacement) c["replacement"] = true;
  if (num_samples) c["num_samples"] = *num_samples;
  if (generator_seed) c["generator_seed"] = seed_json(parse_seed(*generator_seed, "--generator-seed"));
  const Json dispatch = dispatch_on ? Json(true) : dispatch_off ? Json(false) : Json(nullptr);
  const Json rng = rng_types == "none" ? Json::array() : Json::array({rng_types});
  if (accelerator) {
    Json a;
    a["device_placement"] = !no_device_placement && !xla;
    a["rng_types"] = rng;
    a["split_batches"] = split_batches;
    a["dispatch_batches"] = dispatch;
    a["even_batches"] = even_batches;
    a["use_seedable_sampler"] = seedable;
    a["data_seed"] = data_seed;
    a["non_blocking"] = non_blocking;
    a["use_stateful_dataloader"] = use_stateful_dataloader;
    if (!parallelism.empty()) a["parallelism_config"] = parallelism_json();
    if (!device_mesh.empty()) {
      throw ConfigError(
          "--device-mesh: an Accelerator builds its mesh from its ParallelismConfig (--parallelism); a "
          "DeviceMesh of your own reaches only prepare_data_loader: add --api prepare_data_loader");
    }
    c["accelerator"] = a;
    c["set_seed"] = global_seed;
    c["set_seed_device_specific"] = seed_per_rank;
    // An Accelerator's ranks are processes (the recorder runs them as a gloo group).
    c["multiprocess"] = ranks > 1;
  } else {
    c["split_batches"] = split_batches;
    c["even_batches"] = even_batches;
    c["use_seedable_sampler"] = shuffle && seedable;
    c["data_seed"] = data_seed;
    c["torch_manual_seed"] = global_seed;
    c["dispatch_batches"] = dispatch;
    c["put_on_device"] = put_on_device;
    // prepare_data_loader's own default is rng_types=None: nothing synchronised unless the flag says so.
    c["rng_types"] = rng_types == "none" || !rng_types_given_ ? Json(nullptr) : rng;
    c["seed_per_rank"] = seed_per_rank;
    c["multiprocess"] = false;
  }
  c["epochs"] = epochs;
  // Checked here as well as in parse_config: the schedule below has one entry per epoch.
  if (epochs > trace::kMaxEpochs) {
    throw ConfigError("config.epochs: must be <= " + std::to_string(trace::kMaxEpochs) + " (input limit), got " +
                      std::to_string(epochs));
  }
  Json schedule = Json::array();
  for (std::int64_t e = 0; e < epochs; ++e) schedule.push_back(skip_batches && e == 0 ? "skipped" : "prepared");
  c["schedule"] = schedule;
  c["set_epoch"] = nullptr;
  c["skip_first_batches"] = skip_batches ? Json(*skip_batches) : Json(nullptr);
  c["torch_version"] = torch_version;
  if (!accelerator) {
    if (!parallelism.empty() && !device_mesh.empty()) throw ConfigError("--parallelism: conflicts with --device-mesh");
    if (!device_mesh.empty()) {
      Json mesh = Json::array();
      for (const auto& [name, size] : name_sizes(device_mesh, "--device-mesh")) mesh.push_back({name, size});
      c["device_mesh"] = mesh;
    } else if (!parallelism.empty()) {
      // The mesh ParallelismConfig.build_device_mesh would build, handed to prepare_data_loader.
      const Json pc = parallelism_json();
      ParallelismConfig config{pc["dp_replicate_size"], pc["dp_shard_size"], pc["tp_size"], pc["cp_size"],
                               pc["sp_size"]};
      if (const auto mesh = build_device_mesh(config)) {
        Json dims = Json::array();
        for (const MeshDim& d : mesh->dims) dims.push_back({d.name, d.size});
        c["device_mesh"] = dims;
      }
    }
  }
  if (!distributed_type.empty()) {
    if (parallelism.empty() && device_mesh.empty()) {
      throw ConfigError(
          "--distributed-type: changes only how a mesh is divided; it needs --parallelism or --device-mesh");
    }
    c["distributed_type"] = distributed_type;
  }
  if (draws_before_prepare) c["global_rng_draws"] = *draws_before_prepare;
  if (!accelerate_version.empty()) {
    try {
      (void)modelled_release(accelerate_version);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string("--accelerate-version: ") + e.what());
    }
    c["accelerate_version"] = accelerate_version;
    // An option left at its default is not passed to a release that lacks it (passing it raises TypeError there,
    // which the simulation reproduces when the flag is given).
    if (const auto release = parse_accelerate_release(accelerate_version)) {
      if (skip_batches && !has_skip_first_batches(*release)) {
        throw ConfigError("--skip-batches: Accelerate " + release->name() +
                          " has no skip_first_batches (it arrives in 0.16.0)");
      }
      trace::drop_keywords_the_release_lacks(accelerator ? c["accelerator"] : c, *release);
    }
  }
  return c;
}

Json LoaderFlags::parallelism_json() const {
  Json pc = {{"dp_replicate_size", 1}, {"dp_shard_size", 1}, {"tp_size", 1}, {"cp_size", 1}, {"sp_size", 1}};
  for (const auto& [name, size] : name_sizes(parallelism, "--parallelism")) {
    if (name != "dp_replicate" && name != "dp_shard" && name != "tp" && name != "cp" && name != "sp") {
      throw ConfigError("--parallelism: '" + name +
                        "' is not a ParallelismConfig size (dp_replicate, dp_shard, tp, cp, sp)");
    }
    pc[name + "_size"] = size;
  }
  return pc;
}

std::optional<std::uint64_t> LoaderFlags::global_draws(const std::optional<std::string>& set_seed) const {
  if (rng_state_file.empty()) return rng_draws ? std::optional<std::uint64_t>(*rng_draws) : std::nullopt;
  if (rng_draws) throw ConfigError("--rng-draws: conflicts with --rng-state (the state gives the draws)");
  const std::string text = trace::read_input(rng_state_file);
  GeneratorState state;
  try {
    state = generator_state_from_torch_rng_state(std::as_bytes(std::span(text.data(), text.size())));
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--rng-state: " + rng_state_file + " " + e.what());
  }
  const std::string seeded =
      rng_state_file + " was seeded with " + std::to_string(state.seed) + " (torch.initial_seed())";
  if (!set_seed)
    throw ConfigError("--rng-state: " + seeded + "; give the seed the script sets: --set-seed " +
                      std::to_string(state.seed));
  const PythonInt given = parse_seed(*set_seed, "--set-seed");
  if (given != static_cast<PythonInt>(state.seed)) {
    throw ConfigError("--rng-state: " + seeded + ", not --set-seed " + *set_seed +
                      " (save the state on rank 0, after set_seed)");
  }
  return state.draws;
}

}  // namespace accel::cli
