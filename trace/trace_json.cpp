#include "trace_json.hpp"

#include "config_fields.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <unordered_set>

#include <sys/stat.h>

#include "core/accelerate_release.hpp"
#include "core/saturating.hpp"
#include "core/torch_release.hpp"
#include "core/torch_rng_state.hpp"
#include "decimal_integer.hpp"
#include "excerpt.hpp"
#include "metrics_json.hpp"
#include "scheduler_json.hpp"
#include "trainer_eval_json.hpp"
#include "trainer_json.hpp"

namespace accel::trace {
namespace {

// The seed of the generator the golden recorder's iterable dataset owns (dataset_generator: true).
constexpr std::uint64_t kDatasetGeneratorSeed = kTorchDefaultSeed;  // a fresh torch.Generator()

// api "accelerator": Accelerator(**config.accelerator).prepare(dl) after set_seed(config.set_seed). The
// options are resolved here, once, into the prepare_data_loader arguments the simulator reads.
void parse_accelerator(const Fields& f, const Json& c, LoaderCase& lc) {
  for (const char* key : {"split_batches", "even_batches", "use_seedable_sampler", "data_seed", "dispatch_batches",
                          "put_on_device", "rng_types", "torch_manual_seed", "seed_per_rank"}) {
    if (f.find(key)) {
      fail(key, "is a prepare_data_loader argument; with api \"accelerator\" give it in config.accelerator "
                "(or set_seed / set_seed_device_specific for the seeds)");
    }
  }
  AcceleratorOptions a;
  if (const Json* obj = f.find("accelerator")) {
    if (!obj->is_object()) fail("accelerator", "must be an object of Accelerator / DataLoaderConfiguration options");
    const Fields o(*obj, "accelerator.");
    static const char* const known[] = {
        "device_placement",     "rng_types", "split_batches", "dispatch_batches",        "even_batches",
        "use_seedable_sampler", "data_seed", "non_blocking",  "use_stateful_dataloader", "parallelism_config"};
    for (const auto& [key, value] : obj->items()) {
      if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
        o.fail_on(key,
                  "is not an option this project models (known: device_placement, rng_types, split_batches, "
                  "dispatch_batches, even_batches, use_seedable_sampler, data_seed, non_blocking, "
                  "use_stateful_dataloader, parallelism_config)");
      }
    }
    a.device_placement = o.boolean("device_placement", true);
    if (const Json* rt = o.find("rng_types")) {
      if (!rt->is_array()) o.fail_on("rng_types", "must be null or a list of \"generator\" / \"torch\"");
      a.rng_types_include_generator = false;
      for (const Json& t : *rt) {
        if (t != "generator" && t != "torch" && t != "cuda" && t != "xla") o.fail_on("rng_types", "unknown rng type " + t.dump());
        if (t == "generator") a.rng_types_include_generator = true;
        // Accelerator(rng_types=["cuda"]) without a GPU: recorded only through prepare_data_loader (the recorder's
        // Accelerator path iterates where a plain script raises), so not guessed here.
        if (t == "cuda" || t == "xla")
          o.fail_on("rng_types", t.dump() +
                                     " in the Accelerator's rng_types is not simulated (not recorded; "
                                     "prepare_data_loader(rng_types=[\"cuda\"]) is)");
      }
    }
    auto& d = a.dataloader_config;
    d.split_batches = o.boolean("split_batches", false);
    if (o.find("dispatch_batches")) d.dispatch_batches = o.boolean("dispatch_batches", false);
    d.even_batches = o.boolean("even_batches", true);
    d.use_seedable_sampler = o.boolean("use_seedable_sampler", false);
    d.data_seed = o.python_seed("data_seed");
    d.non_blocking = o.boolean("non_blocking", false);
    d.use_stateful_dataloader = o.boolean("use_stateful_dataloader", false);
  }
  lc.accelerator = a;
  lc.prepare = prepare_options_of(a, lc.prepare.num_processes, 0);
  if (const Json* obj = f.find("accelerator")) {
    if (const auto pc = obj->find("parallelism_config"); pc != obj->end() && !pc->is_null()) {
      lc.prepare.torch_device_mesh =
          parse_parallelism_config(*pc, lc.prepare.num_processes, "accelerator.parallelism_config");
    }
  }
  // set_seed(N) seeds torch's global generator with N; device_specific adds the process index.
  lc.torch_manual_seed = f.python_seed("set_seed");
  lc.seed_per_rank = f.boolean("set_seed_device_specific", false);
  if (lc.seed_per_rank && !lc.torch_manual_seed) fail("set_seed_device_specific", "needs set_seed");
  (void)c;
}

// torch.get_rng_state()'s bytes, as the recorder writes them into a config: lowercase or uppercase hex.
std::vector<std::byte> hex_bytes(const std::string& text, const std::string& key) {
  if (text.size() % 2 != 0) fail(key, "must be an even number of hex digits, got " + std::to_string(text.size()));
  auto digit = [&](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    fail(key, std::string("must be hex digits, got '") + ch + "'");
  };
  std::vector<std::byte> out(text.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::byte>(digit(text[2 * i]) * 16 + digit(text[2 * i + 1]));
  }
  return out;
}

// What the script drew from the global generator between its seed and prepare: a count of 32-bit words
// (global_rng_draws), or the state it saw there (global_rng_state: torch.get_rng_state() in hex, which the
// recorder writes after building config.model_before_prepare). Both given: they must agree.
void parse_global_draws(const Fields& f, LoaderCase& lc) {
  if (const Json* m = f.find("model_before_prepare")) {
    if (!m->is_string() || (*m != "linear" && *m != "mlp")) {
      fail("model_before_prepare", "must be null, \"linear\" or \"mlp\" (what the recorder builds), got " + m->dump());
    }
  }
  std::optional<std::uint64_t> draws;
  if (f.find("global_rng_draws")) {
    draws =
        static_cast<std::uint64_t>(f.integer("global_rng_draws", 0, 0, static_cast<std::int64_t>(kMaxRngStateDraws)));
  }
  if (f.find("global_rng_state")) {
    const GeneratorState state = [&] {
      try {
        return generator_state_from_torch_rng_state(hex_bytes(f.string("global_rng_state"), "global_rng_state"));
      } catch (const std::invalid_argument& e) {
        fail("global_rng_state", e.what());
      }
    }();
    if (!lc.torch_manual_seed) {
      fail("global_rng_state",
           "needs the seed the script set (set_seed / torch_manual_seed): the state was seeded with " +
               std::to_string(state.seed));
    }
    try {
      const std::uint64_t seed =
          torch_seed_or_raise(*lc.torch_manual_seed, "torch.manual_seed", lc.prepare.torch_version);
      if (seed != state.seed) {
        fail("global_rng_state", "was seeded with " + std::to_string(state.seed) +
                                     " (torch.initial_seed()) but the "
                                     "config's seed gives " +
                                     std::to_string(seed) + " on rank 0");
      }
    } catch (const AccelerateError&) {
      // torch refuses that seed: the simulation records the error itself.
    }
    if (draws && *draws != state.draws) {
      fail("global_rng_draws", "is " + std::to_string(*draws) + " but global_rng_state is " +
                                   std::to_string(state.draws) + " draws past its seed");
    }
    draws = state.draws;
  }
  lc.prepare.process_generator_draws = draws.value_or(0);
}

// config.device_mesh: [[name, size], ...], outermost first, as init_device_mesh(shape, mesh_dim_names) takes it.
DeviceMesh parse_device_mesh(const Json& m, const LoaderCase& lc) {
  const char* rule = "must be a non-empty list of [name, size >= 1], outermost first";
  if (!m.is_array() || m.empty() || m.size() > 16) fail("device_mesh", rule);
  DeviceMesh mesh;
  std::int64_t size = 1;
  for (const Json& d : m) {
    if (!d.is_array() || d.size() != 2 || !d[0].is_string() || !d[1].is_number_integer() ||
        d[1].get<std::int64_t>() < 1 || d[1].get<std::int64_t>() > kMaxRanks) {
      fail("device_mesh", rule);
    }
    const std::string name = d[0].get<std::string>();
    if (mesh.dim_size(name)) fail("device_mesh", "names dimension \"" + name + "\" twice");
    mesh.dims.push_back({name, d[1].get<std::int64_t>()});
    size = sat_mul(size, mesh.dims.back().size);
  }
  if (size != lc.prepare.num_processes) {
    fail("device_mesh", "sizes multiply to " + std::to_string(size) + ", not num_processes (" +
                            std::to_string(lc.prepare.num_processes) + ")");
  }
  return mesh;
}

// config.num_workers, worker_split, persistent_workers, in_order, prefetch_factor: the DataLoader's worker processes
// (torch raises the ValueErrors below in DataLoader.__init__, before Accelerate sees the loader).
DataLoaderWorkers parse_workers(const Fields& f, const LoaderCase& lc) {
  DataLoaderWorkers w;
  w.num_workers = f.integer("num_workers", 0, 0, kMaxWorkers);
  const std::string split = f.string_or("worker_split", "none");
  if (split == "strided") {
    w.split = WorkerSplit::Strided;
  } else if (split == "contiguous") {
    w.split = WorkerSplit::Contiguous;
  } else if (split != "none") {
    fail("worker_split", "must be \"none\", \"strided\" or \"contiguous\", got \"" + split + "\"");
  }
  if (w.split != WorkerSplit::None && lc.loader.dataset_kind != DatasetKind::Iterable) {
    fail("worker_split", "applies to iterable datasets only (a map-style dataset is indexed by the sampler)");
  }
  if (w.split != WorkerSplit::None && w.num_workers == 0) {
    fail("worker_split", "needs num_workers > 0 (with no workers get_worker_info() is None)");
  }
  w.persistent_workers = f.boolean("persistent_workers", false);
  if (w.persistent_workers && w.num_workers == 0) fail("persistent_workers", "needs num_workers > 0 (torch's rule)");
  w.in_order = f.boolean("in_order", true);
  if (!w.in_order && w.num_workers > 0) {
    fail("in_order",
         "false yields each batch as its worker delivers it, so the order depends on the workers' timing: not "
         "simulated (use in_order=True, torch's default)");
  }
  if (f.find("prefetch_factor")) {
    if (w.num_workers == 0) fail("prefetch_factor", "needs num_workers > 0 (torch's rule)");
    w.prefetch_factor = f.integer("prefetch_factor", 2, 1, kMaxWorkers);
  }
  return w;
}

std::uint64_t numpy_seed(const Fields& s);

// config.dataset_kind "hf-iterable": a HuggingFace datasets.IterableDataset.from_generator over shards of
// shard_sizes (dataset_len is their sum), then hf_shuffle {seed, buffer_size, max_buffer_input_shards} and, with
// split_by_node, split_dataset_by_node(rank, num_processes) on every rank, as datasets_version does them.
void parse_hf_dataset(const Fields& f, LoaderCase& lc) {
  const Json* sizes = f.find("shard_sizes");
  if (!sizes || !sizes->is_array() || sizes->empty()) {
    fail("shard_sizes",
         "is required with dataset_kind \"hf-iterable\": a non-empty list of shard sizes (integers >= 0)");
  }
  if (sizes->size() > static_cast<std::size_t>(kMaxHfShards)) {
    fail("shard_sizes", "must have at most " + std::to_string(kMaxHfShards) + " shards (input limit)");
  }
  std::vector<std::int64_t> values;
  std::int64_t total = 0;
  for (const Json& v : *sizes) {
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > kMaxHfStreamExamples) ||
        v.get<std::int64_t>() < 0) {
      fail("shard_sizes",
           "entries must be integers in [0, " + std::to_string(kMaxHfStreamExamples) + "], got " + excerpt(v.dump()));
    }
    values.push_back(v.get<std::int64_t>());
    total += values.back();
    if (total > kMaxHfStreamExamples) {
      fail("shard_sizes", "must add up to at most " + std::to_string(kMaxHfStreamExamples) + " examples (input limit)");
    }
  }
  if (total != lc.loader.dataset_len) {
    fail("dataset_len", "must be the sum of shard_sizes (" + std::to_string(total) + "), got " +
                            std::to_string(lc.loader.dataset_len));
  }
  const std::string version = f.string_or("datasets_version", datasets_version(DatasetsRelease::v5_2));
  const std::optional<DatasetsRelease> release = datasets_release(version);
  if (!release) {
    fail("datasets_version", std::string("must be a modelled datasets release (") + kDatasetsVersionsModelled +
                                 "; each recorded in golden/hf-streams), got \"" + version + "\"");
  }
  HfIterableDataset ds = HfIterableDataset::from_shards(std::move(values), *release);
  if (const Json* sh = f.find("hf_shuffle")) {
    if (!sh->is_object()) fail("hf_shuffle", "must be null or an object {seed, buffer_size, max_buffer_input_shards}");
    const Fields s(*sh, "hf_shuffle.");
    HfShuffle options;
    options.seed = numpy_seed(s);
    options.buffer_size = s.integer("buffer_size", 1000, 1, kMaxHfExamples);
    options.max_buffer_input_shards = s.optional_integer("max_buffer_input_shards", 1, kMaxHfShards);
    s.refuse_unread();
    try {
      ds = ds.shuffle(options);
    } catch (const AccelerateError& e) {
      fail("hf_shuffle", e.message());
    }
    if (total > kMaxHfExamples) {
      fail("shard_sizes", "must add up to at most " + std::to_string(kMaxHfExamples) +
                              " examples with hf_shuffle (input limit: the shuffle buffer's order is replayed example "
                              "by example), got " +
                              std::to_string(total));
    }
  }
  lc.loader.hf_split_by_node = f.boolean("split_by_node", false);
  lc.loader.hf_dataset = std::move(ds);
}

// hf_shuffle.seed, by the --hf-shuffle flag's rule (trace/decimal_integer.hpp): missing is "required", anything else
// that is not in [0, 2^64) names the value.
std::uint64_t numpy_seed(const Fields& s) {
  const Json* seed = s.find("seed");
  if (!seed) s.fail_on("seed", std::string("is required: ") + kNumpySeedRule);
  if (!seed->is_number_integer() || (!seed->is_number_unsigned() && seed->get<std::int64_t>() < 0)) {
    s.fail_on("seed", std::string("must be ") + kNumpySeedRule + ", got " + excerpt(seed->dump()));
  }
  return seed->get<std::uint64_t>();
}

// config.dataset_kind "hf-map": a map-style datasets.Dataset (Dataset.from_dict({"id": range(dataset_len)})), shuffled
// with .shuffle(seed=hf_shuffle.seed) when hf_shuffle is given.
void parse_hf_map_dataset(const Fields& f, LoaderCase& lc) {
  if (const Json* sh = f.find("hf_shuffle")) {
    if (!sh->is_object()) fail("hf_shuffle", "must be null or an object {seed} (datasets.Dataset.shuffle's seed)");
    const Fields s(*sh, "hf_shuffle.");
    const std::uint64_t seed = numpy_seed(s);
    s.refuse_unread();
    if (lc.loader.dataset_len > kMaxHfExamples) {
      fail("dataset_len", "with a shuffled hf-map dataset must be <= " + std::to_string(kMaxHfExamples) + " (input limit)");
    }
    lc.loader.hf_map_shuffle_seed = seed;
  }
  const std::string version = f.string_or("datasets_version", datasets_version(DatasetsRelease::v5_2));
  if (!datasets_release(version)) {
    fail("datasets_version", std::string("must be a modelled datasets release (") + kDatasetsVersionsModelled +
                                 "; each recorded in golden/hf-streams), got \"" + version + "\"");
  }
}

// config.accelerate_version: the release whose rules the simulation follows (absent: the newest that runs on the
// config's torch, default_release; a golden recording without it names its own through config_as_recorded).
AccelerateRelease parse_release(const Fields& f, TorchVersion torch) {
  const Json* v = f.find("accelerate_version");
  if (!v) return default_release(torch);
  if (!v->is_string()) fail("accelerate_version", "must be a string \"X.Y.Z\", got " + v->dump());
  try {
    return modelled_release(v->get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail("accelerate_version", e.what());
  }
}

// What golden/cases-releases does not record for releases before the newest: refused rather than guessed.
void refuse_unmodelled_for_release(const LoaderCase& lc) {
  const AccelerateRelease r = lc.prepare.release;
  if (r == kBaselineRelease) return;
  const std::string with = " with accelerate_version " + r.name() + " is not simulated";
  // 1.16.0 declares torch >= 2.6 (recorded on torch 2.15): torch 1.13's shuffle never runs under it.
  if (r >= AccelerateRelease{1, 16, 0} && lc.prepare.torch_version == TorchVersion::v1_13) {
    fail("torch_version", "\"1.13\"" + with + ": Accelerate " + r.name() + " requires torch >= 2.6");
  }
  const bool hf = lc.loader.hf_dataset || lc.loader.hf_map_shuffle_seed;
  if (hf && r < kOldestHfDatasetsRelease) {
    fail("dataset_kind", "\"hf-iterable\" / \"hf-map\"" + with + ": golden/cases-releases records HuggingFace datasets from " +
                             kOldestHfDatasetsRelease.name() + " on");
  }
  if (lc.prepare.torch_device_mesh && r < kBaselineRelease) {
    fail("device_mesh", "a device mesh (parallelism_config)" + with + ": meshes are recorded with " +
                            kBaselineRelease.name() + " and " + kNewestRelease.name() + " only");
  }
  if (lc.loader.workers.active() && r < kOldestHfDatasetsRelease) {
    fail("num_workers", "num_workers > 0" + with + ": golden/cases-releases records workers from " +
                            kOldestHfDatasetsRelease.name() + " on");
  }
  if (lc.loader.length_grouping) {
    fail("dataset_kind",
         "a LengthGroupedSampler" + with + ": recorded with " + std::string(kBaselineVersion) + " only");
  }
}

LoaderCase parse_loader(const Json& c, const std::vector<std::string>& read_by_caller) {
  const Fields f(c, "");
  LoaderCase lc;
  lc.api = f.string_or("api", "prepare_data_loader");
  const std::string kind = f.string_or("dataset_kind", "map");
  if (kind != "map" && kind != "iterable" && kind != "hf-iterable" && kind != "hf-map") {
    fail("dataset_kind", "must be \"map\", \"iterable\", \"hf-iterable\" or \"hf-map\", got \"" + kind + "\"");
  }
  lc.loader.dataset_kind = kind == "map" || kind == "hf-map" ? DatasetKind::Map : DatasetKind::Iterable;
  lc.loader.dataset_len = f.integer("dataset_len", std::nullopt, 0);
  if (kind == "hf-iterable") parse_hf_dataset(f, lc);
  if (kind == "hf-map") parse_hf_map_dataset(f, lc);
  lc.loader.batch_size = f.integer("batch_size", 1, 1);
  lc.loader.drop_last = f.boolean("drop_last", false);
  lc.loader.shuffle = f.boolean("shuffle", false);
  lc.loader.replacement = f.boolean("replacement", false);
  lc.loader.num_samples = f.optional_integer("num_samples", 1);
  lc.loader.generator_seed = f.seed("generator_seed");
  lc.prepare.num_processes = f.integer("num_processes", std::nullopt, 1, kMaxRanks);
  if (lc.loader.batch_size > kMaxTotalBatch / lc.prepare.num_processes) {
    fail("batch_size", "times num_processes must be <= " + std::to_string(kMaxTotalBatch) + " (input limit)");
  }
  lc.prepare.split_batches = f.boolean("split_batches", false);
  lc.prepare.even_batches = f.boolean("even_batches", true);
  lc.prepare.use_seedable_sampler = f.boolean("use_seedable_sampler", false);
  lc.prepare.data_seed = f.python_seed("data_seed");
  lc.torch_manual_seed = f.python_seed("torch_manual_seed");
  lc.multiprocess = f.boolean("multiprocess", false);
  if (const Json* d = f.find("dispatch_batches"); d) lc.prepare.dispatch_batches = f.boolean("dispatch_batches", false);
  lc.prepare.put_on_device = f.boolean("put_on_device", lc.multiprocess || lc.prepare.dispatch_batches.value_or(false));
  const std::string torch_version = f.string_or("torch_version", "2.6");
  const auto torch_rules = torch_release_rules(torch_version);
  if (!torch_rules) fail("torch_version", torch_refusal(torch_version));
  lc.prepare.torch_version = *torch_rules;
  lc.dataset_generator = f.boolean("dataset_generator", false);
  if (lc.dataset_generator) {
    if (lc.loader.dataset_kind != DatasetKind::Iterable) fail("dataset_generator", "applies to iterable datasets only");
    lc.loader.dataset_generator_seed = f.seed("dataset_generator_seed").value_or(kDatasetGeneratorSeed);
  }
  lc.loader.workers = parse_workers(f, lc);
  if (lc.loader.hf_dataset) {
    if (lc.dataset_generator)
      fail("dataset_generator", "applies to the recorder's own iterable datasets, not hf-iterable");
    if (lc.loader.workers.split != WorkerSplit::None) {
      fail("worker_split", "does not apply to hf-iterable: a datasets.IterableDataset gives each worker its shards");
    }
    if (lc.loader.workers.persistent_workers)
      fail("persistent_workers", "with hf-iterable is not simulated (not recorded)");
  }
  lc.seed_per_rank = f.boolean("seed_per_rank", false);
  if (const Json* rt = f.find("rng_types"); rt) {
    if (!rt->is_array()) fail("rng_types", "must be null or a list of \"generator\" / \"torch\"");
    for (const Json& t : *rt) {
      if (t != "generator" && t != "torch" && t != "cuda" && t != "xla") fail("rng_types", "unknown rng type " + t.dump());
      if (t == "generator") lc.prepare.synchronize_generator = true;
      if (t == "cuda") lc.prepare.synchronize_cuda_rng = true;
      if (t == "xla") fail("rng_types", "\"xla\" is not simulated (not recorded)");
    }
  }
  const AccelerateRelease release = parse_release(f, lc.prepare.torch_version);
  if (lc.api == "accelerator") {
    const std::int64_t world = lc.prepare.num_processes;
    const TorchVersion torch = lc.prepare.torch_version;
    parse_accelerator(f, c, lc);
    lc.prepare.num_processes = world;
    lc.prepare.torch_version = torch;
  }
  // One process without `multiprocess` runs as a plain script: no process group is started, whichever api prepares
  // its loader (without a group, broadcast() hands a dispatched None back and the dispatcher raises ValueError).
  lc.prepare.process_group = lc.prepare.num_processes > 1 || lc.multiprocess;
  lc.prepare.release = release;
  // The options passed by name, which a release may not have (the simulation raises its TypeError).
  if (lc.api == "accelerator") {
    if (const Json* obj = f.find("accelerator"); obj && obj->is_object()) {
      for (const auto& [key, value] : obj->items()) lc.keywords.push_back(key);
    }
  } else {
    for (const char* key : {"split_batches", "even_batches", "use_seedable_sampler", "data_seed", "dispatch_batches",
                            "put_on_device", "rng_types"}) {
      if (c.contains(key)) lc.keywords.emplace_back(key);
    }
  }
  parse_global_draws(f, lc);
  if (const Json* m = f.find("device_mesh")) {
    if (lc.api == "accelerator") {
      fail("device_mesh",
           "is prepare_data_loader's torch_device_mesh; an Accelerator builds its mesh from "
           "accelerator.parallelism_config");
    }
    lc.prepare.torch_device_mesh = parse_device_mesh(*m, lc);
  }
  const std::string distributed_type = f.string_or("distributed_type", "MULTI_GPU");
  if (distributed_type != "MULTI_GPU" && distributed_type != "DEEPSPEED") {
    fail("distributed_type",
         "must be \"MULTI_GPU\" or \"DEEPSPEED\" (the branch prepare_data_loader takes with a mesh), got \"" +
             distributed_type + "\"");
  }
  lc.prepare.deepspeed = distributed_type == "DEEPSPEED";
  if (lc.loader.workers.active() && lc.prepare.use_stateful_dataloader && lc.loader.dataset_generator_seed &&
      lc.prepare.num_processes > 1 && !resolve_dispatch_batches(lc.loader, lc.prepare)) {
    // Recorded on torch 2.15 + torchdata 0.11: the StatefulDataLoader starts its workers when Accelerate reads its
    // state_dict at prepare, so their IterableDatasetShard copies predate set_epoch and the generator reseed raises.
    fail("num_workers",
         "with use_stateful_dataloader over a generator-owning iterable dataset is not simulated: the workers start "
         "at prepare, their IterableDatasetShard copies have no `epoch` yet, and a pass over them raises "
         "AttributeError in the worker (every pass with persistent_workers, the first one without)");
  }
  if (lc.loader.workers.num_workers > kMaxRankWorkers / lc.prepare.num_processes) {
    fail("num_workers", "times num_processes must be <= " + std::to_string(kMaxRankWorkers) +
                            " (input limit: every rank's every worker is replayed), got " +
                            std::to_string(lc.loader.workers.num_workers) + " x " +
                            std::to_string(lc.prepare.num_processes));
  }
  if (lc.loader.hf_dataset && (lc.loader.hf_dataset->is_shuffled() || lc.loader.hf_split_by_node)) {
    check_replay_limits(lc);
  }
  if (lc.loader.hf_dataset && lc.prepare.torch_device_mesh) {
    fail("dataset_kind", "\"hf-iterable\" with a device mesh is not simulated (not recorded)");
  }
  if (lc.loader.hf_dataset && lc.prepare.use_stateful_dataloader) {
    fail("dataset_kind", "\"hf-iterable\" with use_stateful_dataloader is not simulated (not recorded)");
  }
  // dispatch_batches=None is decided here, once (prepare_data_loader's rule: dispatch iterable datasets whose
  // batches go to the device), so the simulator, the what-if and the reports read one concrete value.
  lc.prepare.dispatch_batches = resolve_dispatch_batches(lc.loader, lc.prepare);
  lc.skip_first_batches = f.optional_integer("skip_first_batches", 0);
  lc.epochs = f.integer("epochs", 1, 0, kMaxEpochs);
  if (const Json* s = f.find("schedule")) {
    if (!s->is_array()) fail("schedule", "must be a list of \"prepared\" / \"skipped\"");
    for (const Json& role : *s) {
      if (role == "prepared") lc.schedule.push_back(LoaderRole::Prepared);
      else if (role == "skipped") lc.schedule.push_back(LoaderRole::Skipped);
      else fail("schedule", "entries must be \"prepared\" or \"skipped\", got " + role.dump());
    }
    if (static_cast<std::int64_t>(lc.schedule.size()) != lc.epochs) fail("schedule", "must have `epochs` entries");
  } else {
    const auto role = lc.skip_first_batches ? LoaderRole::Skipped : LoaderRole::Prepared;
    lc.schedule.assign(static_cast<std::size_t>(lc.epochs), role);
  }
  for (LoaderRole role : lc.schedule) {
    if (role == LoaderRole::Skipped && !lc.skip_first_batches) fail("skip_first_batches", "is required when schedule has \"skipped\"");
  }
  if ((lc.loader.hf_dataset || lc.loader.hf_map_shuffle_seed) && lc.skip_first_batches) {
    fail("skip_first_batches", "with dataset_kind \"hf-iterable\" is not simulated (not recorded)");
  }
  if (const Json* s = f.find("set_epoch")) {
    if (!s->is_array()) fail("set_epoch", "must be null or a list of integers");
    std::vector<std::int64_t> values;
    for (const Json& v : *s) {
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > kMaxSetEpoch) ||
          v.get<std::int64_t>() < -kMaxSetEpoch || v.get<std::int64_t>() > kMaxSetEpoch) {
        fail("set_epoch", "entries must be integers in [-2^40, 2^40] (input limit), got " + v.dump());
      }
      values.push_back(v.get<std::int64_t>());
    }
    if (static_cast<std::int64_t>(values.size()) != lc.epochs) fail("set_epoch", "must have `epochs` entries");
    lc.set_epoch = std::move(values);
  }
  for (const char* key : {"device_placement", "non_blocking", "use_stateful_dataloader"}) {
    if (c.contains(key)) {
      fail(key,
           "is an Accelerator / DataLoaderConfiguration option: give it in config.accelerator, with api "
           "\"accelerator\"");
    }
  }
  refuse_unmodelled_for_release(lc);
  f.refuse_unread(read_by_caller);
  return lc;
}

Json error_json(const ErrorRecord& e, bool with_where) {
  Json j = Json::object();
  if (with_where) j["where"] = e.where;
  j["type"] = e.type;
  j["message"] = e.message;
  if (e.rank) j["rank"] = *e.rank;
  return j;
}

Json optional_json(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

Json attr_errors_json(const std::map<std::string, ErrorRecord>& errors) {
  Json j = Json::object();
  // Accelerate's recorder reads len, total_batch_size, total_dataset_length in that order.
  for (const char* key : {"len", "total_batch_size", "total_dataset_length"}) {
    if (auto it = errors.find(key); it != errors.end()) j[key] = error_json(it->second, false);
  }
  return j;
}

Json rank_json(const RankRecord& r) {
  Json j;
  j["rank"] = r.rank;
  j["loader_class"] = r.attributes.loader_class;
  j["len"] = optional_json(r.attributes.len);
  j["total_batch_size"] = optional_json(r.attributes.total_batch_size);
  j["total_dataset_length"] = optional_json(r.attributes.total_dataset_length);
  j["attr_errors"] = attr_errors_json(r.attributes.attr_errors);
  Json epochs = Json::array();
  for (const PassRecord& p : r.epochs) {
    Json e;
    e["epoch"] = p.epoch;
    e["loader"] = p.loader == LoaderRole::Prepared ? "prepared" : "skipped";
    e["set_epoch"] = optional_json(p.set_epoch);
    if (p.skipped_loader) {
      const LoaderAttributes& s = *p.skipped_loader;
      Json sl;
      sl["len"] = optional_json(s.len);
      sl["total_batch_size"] = optional_json(s.total_batch_size);
      sl["total_dataset_length"] = optional_json(s.total_dataset_length);
      sl["attr_errors"] = attr_errors_json(s.attr_errors);
      sl["loader_class"] = s.loader_class;
      e["skipped_loader"] = std::move(sl);
    }
    e["batches"] = p.batches;
    e["end_of_dataloader"] = p.end_of_dataloader;
    e["remainder"] = p.remainder;
    e["iteration_after"] = optional_json(p.iteration_after);
    e["sampler_epoch_after"] = optional_json(p.sampler_epoch_after);
    e["error"] = p.error ? error_json(*p.error, true) : Json(nullptr);
    epochs.push_back(std::move(e));
  }
  j["epochs"] = std::move(epochs);
  if (r.error) j["error"] = error_json(*r.error, true);
  return j;
}

Json shard_rank_json(const ShardRankRecord& r) {
  Json j;
  j["rank"] = r.rank;
  j["len"] = optional_json(r.len);
  j["attr_errors"] = attr_errors_json(r.attr_errors);
  Json epochs = Json::array();
  for (const ShardPassRecord& p : r.epochs) {
    Json e;
    e["epoch"] = p.epoch;
    e["batches"] = p.batches;
    e["error"] = p.error ? error_json(*p.error, true) : Json(nullptr);
    epochs.push_back(std::move(e));
  }
  j["epochs"] = std::move(epochs);
  return j;
}

template <typename Record>
Json array_of(const std::vector<Record>& records, Json (*one)(const Record&)) {
  Json out = Json::array();
  for (const Record& r : records) out.push_back(one(r));
  return out;
}

// A list's objects whose values are all scalars (the scheduler's per-micro-step records) take one line each.
bool is_record_of_scalars(const Json& v) {
  if (!v.is_object() || v.empty()) return false;
  for (const Json& x : v) if (x.is_structured()) return false;
  return true;
}

void dump_one_line(std::ostream& os, const Json& v) {
  os << "{";
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    os << (first ? "" : ", ") << Json(it.key()).dump() << ": " << it.value().dump();
    first = false;
  }
  os << "}";
}

void dump_into(std::ostream& os, const Json& v, int indent) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  if (v.is_object()) {
    if (v.empty()) { os << "{}"; return; }
    os << "{\n";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) os << ",\n";
      first = false;
      os << pad << Json(it.key()).dump() << ": ";
      dump_into(os, it.value(), indent + 2);
    }
    os << "\n" << std::string(static_cast<std::size_t>(indent), ' ') << "}";
    return;
  }
  if (v.is_array()) {
    // Lists of scalars, and lists of lists of scalars (batches), stay on one line.
    bool flat = true;
    for (const Json& e : v) {
      if (e.is_object()) { flat = false; break; }
      if (e.is_array()) for (const Json& x : e) if (x.is_structured()) { flat = false; break; }
    }
    if (flat || v.empty()) { os << v.dump(); return; }
    os << "[\n";
    bool first = true;
    for (const Json& e : v) {
      if (!first) os << ",\n";
      first = false;
      os << pad;
      if (is_record_of_scalars(e)) dump_one_line(os, e);
      else dump_into(os, e, indent + 2);
    }
    os << "\n" << std::string(static_cast<std::size_t>(indent), ' ') << "]";
    return;
  }
  os << v.dump();
}

// A string field or its fallback: family_of runs before (and on configs without) field validation, so a
// null or a number where a string belongs must not throw here; parse_config names the field afterwards.
std::string string_field(const Json& config, const char* key, const char* fallback) {
  if (!config.is_object()) return fallback;
  const auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

}  // namespace

std::optional<DeviceMesh> parse_parallelism_config(const Json& j, std::int64_t world, const std::string& field) {
  if (!j.is_object()) fail(field, "must be an object of dp_replicate_size, dp_shard_size, tp_size, cp_size, sp_size");
  const Fields o(j, field + ".");
  ParallelismConfig pc;
  pc.dp_replicate = o.integer("dp_replicate_size", 1, 1, kMaxRanks);
  pc.dp_shard = o.integer("dp_shard_size", 1, 1, kMaxRanks);
  pc.tp = o.integer("tp_size", 1, 1, kMaxRanks);
  pc.cp = o.integer("cp_size", 1, 1, kMaxRanks);
  pc.sp = o.integer("sp_size", 1, 1, kMaxRanks);
  o.refuse_unread();
  if (sat_mul(sat_mul(sat_mul(pc.dp_replicate, pc.dp_shard), sat_mul(pc.tp, pc.cp)), pc.sp) > kMaxRanks) {
    fail(field, "sizes multiply past " + std::to_string(kMaxRanks) + " (input limit)");
  }
  try {
    validate(pc, world);
  } catch (const AccelerateError& e) {
    // Raised by the user's ParallelismConfig(...) / Accelerator(...), before any loader exists.
    fail(field, "Accelerate refuses it (" + e.where() + " raises ValueError: " + e.message() + ")");
  }
  return build_device_mesh(pc);
}

std::string family_of(const Json& config) {
  const std::string api = string_field(config, "api", "prepare_data_loader");
  if (api.rfind("Accelerator.prepare", 0) == 0 || api.rfind("AcceleratedScheduler", 0) == 0) return "scheduler";
  if (api == "accelerator") return "accelerator";
  if (api == kMetricsApi) return "metrics";
  if (api == "BatchSamplerShard") return "bss_varying";
  if (api == "SeedableRandomSampler") return "randperm";
  if (config.contains("dispatch_batches") && config["dispatch_batches"] == true) return "dispatch";
  const bool skip = config.contains("skip_first_batches") && !config["skip_first_batches"].is_null();
  if (skip) return "skip";
  if (string_field(config, "dataset_kind", "map") == "iterable") return "iterable";
  if (string_field(config, "dataset_kind", "map") == "hf-iterable") return "hf";
  if (string_field(config, "dataset_kind", "map") == "hf-map") return "hf";
  if (config.contains("use_seedable_sampler") && config["use_seedable_sampler"] == true) return "seedable";
  return "map";
}

CaseConfig parse_config(const Json& config) {
  if (!config.is_object()) throw ConfigError("config: must be a JSON object");
  const Fields f(config, "");
  const std::string api = f.string_or("api", "prepare_data_loader");
  static const char* const known[] = {"accelerator", "prepare_data_loader", "prepare_data_loader+skip_first_batches",
                                      "BatchSamplerShard", "SeedableRandomSampler",
                                      "Accelerator.prepare+AcceleratedScheduler", "AcceleratedScheduler.step(direct)",
                                      kMetricsApi};
  if (std::find(std::begin(known), std::end(known), api) == std::end(known)) {
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail("api", "unknown \"" + api + "\" (one of: " + list + ")");
  }
  const std::string family = family_of(config);
  if (family == "scheduler") return parse_scheduler_config(config);
  if (family == "metrics") return parse_metrics_config(config);
  if (f.find("scheduler")) {
    // Without this the loader fields alone would be simulated and the scheduler silently ignored.
    fail("api", "a config with `scheduler` must say api \"Accelerator.prepare+AcceleratedScheduler\" or "
                "\"AcceleratedScheduler.step(direct)\"");
  }
  if (family == "bss_varying") {
    BatchSamplerShardCase c;
    c.batch_sampler = f.batches("batch_sampler");
    c.num_processes = f.integer("num_processes", std::nullopt, 1, kMaxRanks);
    c.split_batches = f.boolean("split_batches", false);
    c.even_batches = f.boolean("even_batches", true);
    c.drop_last = f.boolean("drop_last", false);
    c.epochs = f.integer("epochs", 1, 0, kMaxEpochs);
    f.refuse_unread();
    return c;
  }
  if (family == "randperm") {
    RandpermCase c;
    c.n = f.integer("n", std::nullopt, 0);
    c.data_seed = f.seed("data_seed").value_or(0);
    c.epochs = f.integer("epochs", 1, 0, kMaxEpochs);
    f.refuse_unread();
    return c;
  }
  return parse_loader(config, {});
}

void check_replay_limits(const LoaderCase& lc) {
  if (!lc.loader.hf_dataset) return;
  if (lc.loader.dataset_len > kMaxHfExamples) {
    fail("dataset_len", "must be <= " + std::to_string(kMaxHfExamples) +
                            " with dataset_kind \"hf-iterable\" where every example is replayed (input limit: a "
                            "trace, a shuffled or split_dataset_by_node stream, resumes, later epochs), got " +
                            std::to_string(lc.loader.dataset_len));
  }
  if (lc.loader.dataset_len > kMaxHfRankExamples / lc.prepare.num_processes) {
    fail("dataset_len", "times num_processes must be <= " + std::to_string(kMaxHfRankExamples) +
                            " with dataset_kind \"hf-iterable\" where every example is replayed (input limit: with "
                            "IterableDatasetShard every rank reads the whole stream), got " +
                            std::to_string(lc.loader.dataset_len) + " x " + std::to_string(lc.prepare.num_processes));
  }
}

LoaderCase parse_loader_config(const Json& config, const std::vector<std::string>& read_by_caller) {
  if (!config.is_object()) throw ConfigError("config: must be a JSON object");
  return parse_loader(config, read_by_caller);
}

Json trace_head(const std::string& case_name, const std::string& family, const Json& config) {
  Json j;
  j["case"] = case_name;
  j["family"] = family;
  j["config"] = config;
  Json ref;
  ref["generator"] = "accel-sim";
  ref["schema_version"] = kSchemaVersion;
  j["reference"] = std::move(ref);
  return j;
}

Json error_record_json(const ErrorRecord& e) { return error_json(e, true); }

Json to_json(const std::string& case_name, const Json& config, const Trace& trace) {
  Json j = trace_head(case_name, family_of(config), config);
  j["error"] = trace.error ? error_json(*trace.error, true) : Json(nullptr);
  if (const auto* ranks = std::get_if<std::vector<RankRecord>>(&trace.body)) {
    j["ranks"] = array_of(*ranks, rank_json);
  } else if (const auto* shards = std::get_if<std::vector<ShardRankRecord>>(&trace.body)) {
    j["ranks"] = array_of(*shards, shard_rank_json);
  } else if (const auto* sched = std::get_if<std::vector<SchedulerRankRecord>>(&trace.body)) {
    j["ranks"] = scheduler_ranks_json(*sched);
  } else if (const auto* metrics = std::get_if<std::vector<MetricsRankRecord>>(&trace.body)) {
    j["ranks"] = metrics_ranks_json(*metrics);
  } else {
    const auto& rp = std::get<RandpermRecord>(trace.body);
    Json epochs = Json::array();
    for (std::size_t e = 0; e < rp.permutations.size(); ++e) {
      Json ej;
      ej["epoch"] = e;
      ej["permutation"] = rp.permutations[e];
      epochs.push_back(std::move(ej));
    }
    j["epochs"] = std::move(epochs);
    j["torch_randperm_seed"] = rp.torch_randperm_seed;
  }
  return j;
}

void write_trace(std::ostream& os, const std::string& case_name, const Json& config, const Trace& trace,
                 const std::optional<Json>& family) {
  const auto* ranks = std::get_if<std::vector<RankRecord>>(&trace.body);
  const auto* shards = std::get_if<std::vector<ShardRankRecord>>(&trace.body);
  if (!ranks && !shards) {  // the other families' traces are small: one document
    Json j = to_json(case_name, config, trace);
    if (family) j["family"] = *family;
    os << dump(j);
    return;
  }
  // Everything but the ranks as to_json() has it, then the ranks one at a time, in dump()'s layout: an
  // object per line of "ranks", each written as dump_into() writes it at that depth.
  Json head = to_json(case_name, config, Trace{trace.error, RandpermRecord{}});
  head.erase("epochs");
  head.erase("torch_randperm_seed");
  if (family) head["family"] = *family;
  os << "{\n";
  for (auto it = head.begin(); it != head.end(); ++it) {
    os << "  " << Json(it.key()).dump() << ": ";
    dump_into(os, it.value(), 2);
    os << ",\n";
  }
  os << "  \"ranks\": ";
  const std::size_t count = ranks ? ranks->size() : shards->size();
  if (count == 0) {
    os << "[]";
  } else {
    os << "[\n";
    for (std::size_t i = 0; i < count; ++i) {
      const Json r = ranks ? rank_json((*ranks)[i]) : shard_rank_json((*shards)[i]);
      os << (i ? ",\n" : "") << "    ";
      if (is_record_of_scalars(r))
        dump_one_line(os, r);
      else
        dump_into(os, r, 4);
    }
    os << "\n  ]";
  }
  os << "\n}\n";
}

Json id_ranges_json(const IdRanges& ids) {
  Json out = Json::array();
  for (const IdRange& r : ids.ranges()) out.push_back({r.first, r.last});
  return out;
}

std::string dump(const Json& value) {
  std::ostringstream os;
  dump_into(os, value, 0);
  os << "\n";
  return os.str();
}

namespace {

// Where in `text` the first thing parse_text refuses after a successful tokenisation sits: a nesting past
// kMaxJsonDepth, a repeated key in one object, or a number beyond a double. nlohmann's callback sees values,
// not offsets, so this second, lexical pass finds the line and column for the message.
std::string location_of_refusal(const std::string& text) {
  std::size_t line = 1, column = 1;
  const auto at = [&] { return " at line " + std::to_string(line) + ", column " + std::to_string(column); };
  struct Open {
    bool object;
    bool expect_key;
    std::unordered_set<std::string> keys;
  };
  std::vector<Open> open;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      open.push_back({c == '{', c == '{', {}});
      // nlohmann counts the outermost value as depth 0: the first refused open is number kMaxJsonDepth + 2.
      if (static_cast<int>(open.size()) > kMaxJsonDepth + 1) return at();
    } else if (c == '}' || c == ']') {
      if (!open.empty()) open.pop_back();
    } else if (c == ',') {
      if (!open.empty() && open.back().object) open.back().expect_key = true;
    } else if (c == '"') {
      const std::size_t start_line = line, start_column = column;
      std::string raw;
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') {
        if (text[j] == '\\' && j + 1 < text.size()) raw += text[j++];
        raw += text[j++];
      }
      if (!open.empty() && open.back().object && open.back().expect_key) {
        if (!open.back().keys.insert(raw).second) {
          line = start_line;
          column = start_column;
          return at();
        }
        open.back().expect_key = false;
      }
      column += j + 1 - i;
      i = j + 1;
      continue;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i;
      while (j < text.size() && std::strchr("+-.eE0123456789", text[j]) != nullptr) ++j;
      const std::string number = text.substr(i, j - i);
      if (std::isinf(std::strtod(number.c_str(), nullptr))) return at();
      column += j - i;
      i = j;
      continue;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  }
  return "";
}

}  // namespace

Json parse_text(const std::string& text, const std::string& source_name) {
  // The keys seen so far in each open object, innermost last: the parser itself keeps the last of two
  // equal keys, which would silently drop what the user wrote first.
  // Hashed: a generated config of 100k keys is read in linear time, not quadratic.
  std::vector<std::unordered_set<std::string>> open_keys;
  const auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxJsonDepth) {
      throw ConfigError(source_name + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels" +
                        location_of_refusal(text));
    }
    switch (event) {
      case Json::parse_event_t::object_start: open_keys.emplace_back(); break;
      case Json::parse_event_t::object_end: if (!open_keys.empty()) open_keys.pop_back(); break;
      case Json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        if (open_keys.back().size() >= kMaxJsonObjectKeys) {
          throw ConfigError(source_name + ": a JSON object with more than " + std::to_string(kMaxJsonObjectKeys) +
                            " keys (input limit; a config object has a few dozen)");
        }
        if (!open_keys.back().insert(key).second) {
          throw ConfigError(source_name + ": duplicate key \"" + excerpt(key) + "\" in one object" +
                            location_of_refusal(text));
        }
        break;
      }
      default: break;
    }
    return true;
  };
  try {
    return Json::parse(text, check);
  } catch (const Json::parse_error& e) {
    throw ConfigError(source_name + ": not valid JSON (" + e.what() + ")");
  } catch (const Json::out_of_range& e) {
    // 1e400 and the like: nlohmann reports a number it cannot hold as out_of_range, not parse_error.
    throw ConfigError(source_name + ": a number outside the range of a double" + location_of_refusal(text) + " (" +
                      e.what() + ")");
  } catch (const Json::exception& e) {
    throw ConfigError(source_name + ": not valid JSON (" + e.what() + ")");
  }
}

void drop_keywords_the_release_lacks(Json& options, AccelerateRelease release) {
  for (const char* key : {"use_seedable_sampler", "data_seed", "use_stateful_dataloader"}) {
    const auto since = keyword_since(key);
    if (since && release < *since && options.contains(key) && (options[key] == false || options[key].is_null())) {
      options.erase(key);
    }
  }
}

Json config_as_recorded(const Json& trace_file) {
  if (!trace_file.is_object() || !trace_file.contains("config")) return Json();
  Json config = trace_file["config"];
  const auto ref = trace_file.find("reference");
  if (!config.is_object() || ref == trace_file.end() || !ref->is_object()) return config;
  if (is_trainer_config(config) || is_trainer_eval_config(config)) return config;
  const std::string family = family_of(config);
  if (family == "scheduler" || family == "bss_varying" || family == "randperm") return config;
  if (!config.contains("accelerate_version") && ref->contains("accelerate_version") &&
      (*ref)["accelerate_version"].is_string()) {
    std::string version = (*ref)["accelerate_version"].get<std::string>();
    const auto end = version.find_first_of("+");
    if (end != std::string::npos) version.erase(end);
    if (const auto dev = version.find(".dev"); dev != std::string::npos) version.erase(dev);
    config["accelerate_version"] = version;
    return config;  // the golden sets without a release name no torch either: their torch_version is their own
  }
  if (config.contains("torch_version") || !config.contains("accelerate_version")) return config;
  if (ref->contains("torch") && (*ref)["torch"].is_string() && (*ref)["torch"].get<std::string>().rfind("1.13", 0) == 0)
    config["torch_version"] = "1.13";
  return config;
}

std::string torch_shuffle_version(const std::string& torch_version) {
  int major = 0, minor = 0;
  if (std::sscanf(torch_version.c_str(), "%d.%d", &major, &minor) != 2) return "2.6";
  return major > 2 || (major == 2 && minor >= 6) ? "2.6" : "1.13";
}

std::string read_input(const std::string& path) {
  if (path != "-") {
    // Checked before the open: opening a FIFO for reading blocks until a writer comes, which may be never.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw ConfigError(path + ": cannot be read (" + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode)) {
      throw ConfigError(path + ": is not a regular file (" +
                        (S_ISDIR(st.st_mode)    ? std::string("a directory")
                         : S_ISFIFO(st.st_mode) ? std::string("a FIFO")
                         : S_ISCHR(st.st_mode)  ? std::string("a character device")
                                                : std::string("not a plain file")) +
                        "); give a config or trace file, or - for stdin");
    }
  }
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) throw ConfigError(path + ": cannot be read (" + std::strerror(errno) + ")");
  std::string out;
  char buf[65536];
  bool too_big = false;
  while (true) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n == 0) break;
    if (out.size() + n > kMaxInputBytes) {
      too_big = true;
      break;
    }
    out.append(buf, n);
  }
  const bool failed = std::ferror(f) != 0;
  if (f != stdin) std::fclose(f);
  if (too_big) {
    throw ConfigError(path + ": larger than " + std::to_string(kMaxInputBytes >> 20) +
                      " MiB, the limit on a config or trace");
  }
  if (failed) throw ConfigError(path + ": cannot be read");
  return out;
}

}  // namespace accel::trace
