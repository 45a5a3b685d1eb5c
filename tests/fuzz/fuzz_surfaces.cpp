#include "fuzz_surfaces.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace fuzz {
namespace {

namespace fs = std::filesystem;

std::int64_t in(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}
bool coin(Rng& rng, int one_in = 2) { return rng() % static_cast<std::uint64_t>(one_in) == 0; }
template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng() % v.size()];
}
std::string str(std::int64_t v) { return std::to_string(v); }

void add(SurfaceCase& c, std::initializer_list<std::string> words) { c.args.insert(c.args.end(), words); }

// The value a rule refuses, swapped in for one flag: exactly one per refused case, so a refusal tests one rule.
void refuse(SurfaceCase& c, std::initializer_list<std::string> words) {
  add(c, words);
  c.refused = true;
}

// The what-if or the gate over the same job (a Trainer job judges no len-consistent).
void command(SurfaceCase& c, Rng& rng, bool trainer = false) {
  if (coin(rng, 3)) {
    add(c,
        {"check", "--require",
         pick(rng, std::vector<std::string>{"no-duplicates", "lockstep,no-drops",
                                            trainer ? "full-coverage,exact-resume" : "full-coverage,len-consistent"})});
  }
}

const std::vector<std::string> kSeeds = {"0", "1", "42", "18446744073709551615"};

SurfaceCase trainer(Rng& rng) {
  SurfaceCase c;
  command(c, rng, true);
  add(c, {"--api", "trainer", "--ranks", str(in(rng, 1, 4)), "--dataset-len", str(in(rng, 0, 60))});
  add(c, {coin(rng) ? "--batch-size" : "--per-device-batch-size", str(in(rng, 1, 4))});
  const bool iterable = coin(rng, 4);
  if (iterable) {
    add(c, {"--dataset", "iterable"});
    if (coin(rng))
      add(c, {"--iterable-has-len"});
    else
      add(c, {"--max-steps", str(in(rng, 1, 12))});
    if (coin(rng, 3)) add(c, {"--iterable-set-epoch"});
    if (coin(rng, 3)) add(c, {coin(rng) ? "--dispatch-batches" : "--no-dispatch-batches"});
  } else if (coin(rng, 3)) {
    add(c, {"--max-steps", str(in(rng, 1, 30))});
  }
  if (coin(rng, 3)) add(c, {"--grad-accum", str(in(rng, 1, 3))});
  if (coin(rng, 3)) add(c, {"--epochs", str(in(rng, 1, 3))});
  if (coin(rng, 4)) add(c, {"--transformers-version", coin(rng) ? "5.25" : "4.57"});
  if (coin(rng, 4)) add(c, {"--use-cpu"});
  if (coin(rng, 4)) add(c, {"--split-batches"});
  if (coin(rng, 4)) add(c, {"--no-even-batches"});
  if (coin(rng, 4)) add(c, {"--drop-last"});
  if (coin(rng, 4)) add(c, {"--set-seed", pick(rng, kSeeds)});
  if (coin(rng, 5)) add(c, {"--data-seed", pick(rng, kSeeds)});
  if (!iterable && coin(rng, 5)) add(c, {"--train-sampling-strategy", "sequential"});
  if (coin(rng, 3)) {
    add(c, {"--resume-at-step", str(in(rng, 1, 12))});
    if (coin(rng)) add(c, {"--resume-ranks", str(in(rng, 1, 4))});
    if (coin(rng, 3)) add(c, {"--resume-batch-size", str(in(rng, 1, 4))});
    if (coin(rng, 3)) add(c, {"--resume-grad-accum", str(in(rng, 1, 3))});
    if (coin(rng, 4)) add(c, {"--ignore-data-skip"});
  }
  if (coin(rng, 4)) {
    add(c, {"--eval-dataset-len", str(in(rng, 0, 30))});
    if (coin(rng)) add(c, {"--per-device-eval-batch-size", str(in(rng, 1, 4))});
    if (coin(rng, 3)) add(c, {"--compute-metrics"});
    if (coin(rng, 4)) add(c, {"--eval-use-gather-object"});
    if (coin(rng, 4)) add(c, {"--no-eval-concat-batches"});
    if (coin(rng, 4)) add(c, {"--num-evaluations", str(in(rng, 1, 3))});
  }
  if (coin(rng)) {
    switch (rng() % 8) {
      case 0:
        refuse(c, {"--shuffle"});
        break;
      case 1:
        refuse(c, {"--seed", "3"});
        break;
      case 2:
        refuse(c, {"--resume-at", "0:1"});
        break;
      case 3:
        refuse(c, {"--scheduler", "linear"});
        break;
      case 4:
        refuse(c, {"--eval"});
        break;
      case 5:
        refuse(c, {"--generator-seed", "5"});
        break;
      case 6:
        refuse(c, {"--num-workers", "2"});
        break;
      default:
        refuse(c, {"--transformers-version", pick(rng, std::vector<std::string>{"5.99", "", "4.57.6x", "6.0"})});
    }
  }
  return c;
}

SurfaceCase hf(Rng& rng) {
  SurfaceCase c;
  command(c, rng);
  const std::int64_t R = in(rng, 1, 4);
  add(c, {"--ranks", str(R)});
  if (coin(rng, 4)) {
    add(c, {"--dataset", "hf-map", "--dataset-len", str(in(rng, 0, 50))});
    if (coin(rng)) add(c, {"--hf-shuffle", pick(rng, kSeeds)});
    if (coin(rng, 3)) add(c, {"--datasets-version", pick(rng, std::vector<std::string>{"3.6", "4.8", "5.2"})});
    if (coin(rng, 3)) add(c, {"--shuffle"});
    if (coin(rng)) {
      if (coin(rng))
        refuse(c, {"--num-shards", "2"});
      else
        refuse(c, {"--split-by-node"});
    }
    return c;
  }
  add(c, {"--dataset", "hf-iterable"});
  if (coin(rng)) {
    const std::int64_t shards = in(rng, 1, 6);
    std::string sizes;
    for (std::int64_t s = 0; s < shards; ++s) sizes += (s ? "," : "") + str(in(rng, 0, 9));
    add(c, {"--shard-sizes", sizes});
  } else {
    add(c, {"--num-shards", str(in(rng, 1, 8)), "--dataset-len", str(in(rng, 0, 60))});
  }
  if (coin(rng)) {
    add(c, {"--hf-shuffle", pick(rng, kSeeds)});
    if (coin(rng)) add(c, {"--buffer-size", str(in(rng, 1, 20))});
    if (coin(rng, 3)) add(c, {"--max-buffer-input-shards", str(in(rng, 1, 4))});
  }
  if (coin(rng, 3)) add(c, {"--split-by-node"});
  if (coin(rng, 3)) add(c, {"--num-workers", str(in(rng, 1, 3))});
  if (coin(rng, 3)) add(c, {"--datasets-version", pick(rng, std::vector<std::string>{"3.6", "4.8", "5.2"})});
  if (coin(rng, 3)) add(c, {coin(rng) ? "--dispatch-batches" : "--no-dispatch-batches"});
  if (coin(rng, 4)) add(c, {"--split-batches"});
  if (coin(rng, 4)) add(c, {"--drop-last"});
  if (coin(rng, 4)) add(c, {"--epochs", str(in(rng, 1, 3))});
  if (coin(rng, 4)) add(c, {"--batch-size", str(in(rng, 1, 4))});
  if (coin(rng, 5)) {
    add(c, {"--accelerate-version",
            pick(rng, std::vector<std::string>{"1.4.0", "1.7.0", "1.8.1", "1.10.1", "1.13.0", "1.14.0", "1.15.0"})});
  }
  if (coin(rng)) {
    switch (rng() % 5) {
      case 0:
        refuse(c, {"--hf-shuffle", pick(rng, std::vector<std::string>{"-1", "18446744073709551616", "01", ""})});
        break;
      case 1:
        refuse(c, {"--worker-split", "strided"});
        break;
      case 2:
        refuse(c, {"--dataset-generator"});
        break;
      case 3:
        refuse(c, {"--datasets-version", "9.9"});
        break;
      default:
        refuse(c, {"--persistent-workers"});
        break;
    }
  }
  return c;
}

SurfaceCase workers(Rng& rng) {
  SurfaceCase c;
  command(c, rng);
  const int fault = coin(rng) ? static_cast<int>(1 + rng() % 4) : 0;
  c.refused = fault != 0;
  // ranks x workers past 2^20 (kMaxRankWorkers), or workers past 1,024 (kMaxWorkers): refused before any replay.
  const std::int64_t R = fault == 1 ? in(rng, 1025, 65536) : in(rng, 1, 4);
  const std::int64_t W = fault == 1 ? 1024 : fault == 2 ? 1025 : in(rng, 1, 4);
  add(c, {"--ranks", str(R), "--dataset-len", str(in(rng, 0, 60)), "--num-workers", str(W)});
  const bool iterable = fault != 3 && coin(rng, 4) != 0;
  if (iterable) add(c, {"--dataset", "iterable"});
  if (fault != 4 && iterable && coin(rng))
    add(c, {"--worker-split", pick(rng, std::vector<std::string>{"none", "strided", "contiguous"})});
  if (coin(rng, 3)) add(c, {"--persistent-workers"});
  if (coin(rng, 3)) add(c, {coin(rng) ? "--dispatch-batches" : "--no-dispatch-batches"});
  if (coin(rng, 4)) add(c, {"--use-stateful-dataloader"});
  if (coin(rng, 4)) add(c, {"--epochs", str(in(rng, 1, 3))});
  if (coin(rng, 4)) add(c, {"--batch-size", str(in(rng, 1, 4))});
  if (coin(rng, 5)) add(c, {"--skip-batches", str(in(rng, 0, 3))});
  if (coin(rng, 5)) add(c, {"--eval"});
  if (coin(rng, 5)) add(c, {"--split-batches"});
  if (fault == 3) add(c, {"--dataset-generator"});  // a map-style dataset: it needs --dataset iterable
  if (fault == 4) add(c, {"--worker-split", "bogus"});
  return c;
}

SurfaceCase mesh(Rng& rng) {
  SurfaceCase c;
  command(c, rng);
  const std::vector<std::string> names = {"dp_replicate", "dp_shard", "tp", "cp"};
  std::vector<std::string> chosen;
  for (const auto& n : names)
    if (coin(rng)) chosen.push_back(n);
  if (chosen.empty()) chosen.push_back("dp_shard");
  std::int64_t product = 1;
  std::string sizes;
  for (const auto& n : chosen) {
    const std::int64_t s = in(rng, 1, 3);
    product *= s;
    sizes += (sizes.empty() ? "" : ",") + n + "=" + str(s);
  }
  const bool own_mesh = coin(rng, 3);
  // A total size of 1 is Accelerate's "no parallelism" (dp_replicate becomes num_processes): only a larger one must
  // match num_processes.
  const bool bad_ranks = product > 1 && coin(rng, 3);
  add(c, {"--ranks", str(bad_ranks ? product + 1 : product), "--dataset-len", str(in(rng, 0, 60))});
  c.refused = bad_ranks;
  if (own_mesh)
    add(c, {"--api", "prepare_data_loader", "--device-mesh", sizes});
  else
    add(c, {"--parallelism", sizes});
  if (coin(rng)) add(c, {"--dataset", pick(rng, std::vector<std::string>{"map", "iterable"})});
  if (coin(rng, 3)) add(c, {coin(rng) ? "--dispatch-batches" : "--no-dispatch-batches"});
  if (coin(rng, 4)) add(c, {"--distributed-type", pick(rng, std::vector<std::string>{"MULTI_GPU", "DEEPSPEED"})});
  if (coin(rng, 4)) add(c, {"--batch-size", str(in(rng, 1, 4))});
  if (coin(rng, 4)) add(c, {"--skip-batches", str(in(rng, 0, 3))});
  if (coin(rng, 5)) add(c, {"--split-batches"});
  if (coin(rng, 5)) add(c, {"--accelerate-version", pick(rng, std::vector<std::string>{"1.13.0", "1.14.0", "1.15.0"})});
  if (!c.refused && coin(rng, 3)) {
    switch (rng() % 3) {
      case 0:
        refuse(c, {"--hf-shuffle", "1"});
        break;
      case 2:
        refuse(c, {"--rng-types", "bogus"});
        break;
      default:
        refuse(c, {"--mixed-precision", "fp4"});
        break;
    }
  }
  return c;
}

// Every published release 0.14.0 - 1.16.0 that golden/cases-releases records, and published ones between them.
const std::vector<std::string> kReleases = {"0.14.0", "0.16.0", "0.20.3", "0.22.0", "0.24.1", "0.25.0",
                                            "0.26.1", "0.27.2", "0.28.0", "0.29.3", "0.30.1", "0.34.2",
                                            "1.0.1",  "1.4.0",  "1.5.2",  "1.6.0",  "1.7.0",  "1.8.1",
                                            "1.10.1", "1.13.0", "1.14.0", "1.15.0", "1.16.0"};
const std::vector<std::string> kNotReleases = {"0.99.0",   "1.3.7",  "1.14.9", "0.20.99", "1.15",  "v1.15.0",
                                               "1.15.0.1", "0.13.2", "1.16.1", "1.17.0",  "2.0.0", ""};

SurfaceCase releases(Rng& rng) {
  SurfaceCase c;
  const int kind = static_cast<int>(rng() % 3);
  const bool bad = coin(rng);
  const auto version = [&](bool refused_here) { return refused_here ? pick(rng, kNotReleases) : pick(rng, kReleases); };
  if (kind == 0) {
    command(c, rng);
    add(c, {"--accelerate-version", version(bad)});
  } else if (kind == 1) {
    const bool first_bad = bad && coin(rng);
    add(c, {"upgrade", "--from", version(first_bad), "--to", version(bad && !first_bad)});
  } else {
    add(c,
        {"check", "--require", "lockstep,no-duplicates", "--accelerate-versions", version(false) + "," + version(bad)});
  }
  c.refused = bad;
  add(c, {"--ranks", str(in(rng, 1, 4)), "--dataset-len", str(in(rng, 0, 60))});
  if (coin(rng)) {
    add(c, {"--shuffle"});
    if (coin(rng)) add(c, {"--set-seed", pick(rng, kSeeds)});
  }
  if (coin(rng, 4)) add(c, {"--batch-size", str(in(rng, 1, 4))});
  if (coin(rng, 4)) add(c, {"--epochs", str(in(rng, 1, 3))});
  if (coin(rng, 5)) add(c, {"--no-even-batches"});
  if (coin(rng, 5)) add(c, {"--dataset", "iterable"});
  return c;
}

// A recording of R ranks: sequential batches of b ids over a dataset of n (each rank its strided share), then, in
// a refused case, one fault a rule covers.
SurfaceCase recorded(const std::string& dir, Rng& rng) {
  SurfaceCase c;
  c.max_valid_exit = 3;  // diff --recorded: "not compared" (exit 3)
  static int serial = 0;
  const std::string out = dir + "/recorded-" + str(serial++);
  fs::remove_all(out);
  fs::create_directories(out);
  const std::int64_t R = in(rng, 1, 3), n = in(rng, 1, 30), b = in(rng, 1, 3);
  const bool shuffle = coin(rng, 4);
  const int fault = coin(rng) ? static_cast<int>(1 + rng() % 7) : 0;
  c.refused = fault != 0;
  const std::int64_t faulty_rank = in(rng, 0, R - 1);
  for (std::int64_t r = 0; r < R; ++r) {
    if (fault == 1 && r == faulty_rank && R > 1) continue;  // a missing rank file
    std::string batches;
    std::int64_t steps = 0;
    for (std::int64_t start = r * b; start < n; start += R * b, ++steps) {
      batches += batches.empty() ? "[" : ",[";
      for (std::int64_t id = start; id < std::min(n, start + b); ++id) {
        if (id != start) batches += ',';
        batches += str(id);
      }
      batches += ']';
    }
    if (r == faulty_rank) {
      if (fault == 2) batches += std::string(batches.empty() ? "" : ",") + "[" + str(n + in(rng, 0, 5)) + "]";
      if (fault == 3) batches += std::string(batches.empty() ? "" : ",") + "[\"x\"]";
      if (fault == 4) batches += std::string(batches.empty() ? "" : ",") + "[-1]";
    }
    const std::int64_t len = fault == 5 && r == faulty_rank ? n + 1 : n;  // ids stay below both lengths
    const std::int64_t world = fault == 6 && r == faulty_rank ? R + 1 : R;
    std::ofstream f(out + "/rank-" + str(r) + ".json");
    f << R"({"case":"fuzz","family":")" << (fault == 7 && r == faulty_rank ? "accelerator" : "recorded")
      << R"(","config":{"api":"accelerator","dataset_kind":"map","dataset_len":)" << len << R"(,"batch_size":)" << b
      << R"(,"num_processes":)" << world << R"(,"shuffle":)" << (shuffle ? "true" : "false")
      << R"(,"drop_last":false,"accelerator":{"split_batches":false,"dispatch_batches":false,"even_batches":true,)"
      << R"("use_seedable_sampler":false,"data_seed":null},"modelled":true,"not_modelled":[]},)"
      << R"("reference":{"accelerate_version":"1.15.0"},"error":null,"ranks":[{"rank":)" << r
      << R"(,"loader_class":"DataLoaderShard","len":)" << steps << R"(,"epochs":[{"epoch":0,"segment":0,)"
      << R"("start_step":0,"batches":[)" << batches << R"(],"complete":true}]}]})";
  }
  if ((fault == 1 || fault == 5) && R == 1) c.refused = false;  // one file: nothing left out, nothing to disagree with
  if (coin(rng)) {
    add(c, {"check", "--recorded", out, "--require",
            pick(rng, std::vector<std::string>{"no-duplicates", "no-drops,lockstep", "full-coverage,len-consistent"})});
  } else {
    add(c, {"diff", "--recorded", out});
  }
  return c;
}

// An `accelerate config` file: the keys ClusterConfig has, with values its rules accept, or one fault.
SurfaceCase config_file(const std::string& dir, Rng& rng) {
  SurfaceCase c;
  static int serial = 0;
  const std::string path = dir + "/accelerate-" + str(serial++) + ".yaml";
  const std::int64_t machines = in(rng, 1, 2);
  const std::int64_t processes = machines * in(rng, 1, 3);
  std::map<std::string, std::string> keys = {
      {"compute_environment", "LOCAL_MACHINE"},
      {"distributed_type", pick(rng, std::vector<std::string>{"MULTI_GPU", "MULTI_CPU", "DEEPSPEED", "FSDP"})},
      {"num_processes", str(processes)},
      {"num_machines", str(machines)},
      {"machine_rank", "0"},
      {"mixed_precision", pick(rng, std::vector<std::string>{"'no'", "fp16", "bf16"})},
      {"use_cpu", coin(rng) ? "true" : "false"},
      {"main_training_function", "main"},
      {"rdzv_backend", "static"},
      {"same_network", "true"},
      {"debug", "false"},
      {"gpu_ids", "all"}};
  for (auto it = keys.begin(); it != keys.end();)
    it = coin(rng, 4) && it->first != "distributed_type" ? keys.erase(it) : std::next(it);
  std::string extra;
  const int fault = coin(rng) ? static_cast<int>(1 + rng() % 6) : 0;
  c.refused = fault != 0;
  switch (fault) {
    case 1:
      keys[pick(rng, std::vector<std::string>{"mixed_precison", "num_process", "distributed", "ipex_config"})] = "1";
      break;
    case 2:
      keys["num_processes"] = pick(rng, std::vector<std::string>{"010", "0x4", "-1", "1e3", "[1, 2]"});
      break;
    case 3:
      keys["mixed_precision"] = "fp4";
      break;
    case 4:
      keys["distributed_type"] = "MULTI_TPU";
      break;
    case 5:
      extra = "dynamo_config: " + std::string(static_cast<std::size_t>(in(rng, 65, 3000)), '[') + "\n";
      break;
    case 6:
      keys["num_machines"] = "2";
      keys["num_processes"] = "3";
      break;
    default:
      break;
  }
  if (!fault && coin(rng, 3)) extra = "deepspeed_config:\n  gradient_accumulation_steps: " + str(in(rng, 1, 4)) + "\n";
  if (!fault && coin(rng, 4)) extra += "parallelism_config:\n  parallelism_config_dp_shard_size: 1\n";
  std::ofstream f(path);
  for (const auto& [k, v] : keys) f << k << ": " << v << "\n";
  f << extra;
  f.close();
  command(c, rng);
  add(c, {"--config-file", path, "--dataset-len", str(in(rng, 0, 40))});
  if (coin(rng, 4))
    add(c, {"--grad-accum", str(in(rng, 1, 3)), "--scheduler", "linear", "--total-steps", str(in(rng, 1, 20))});
  return c;
}

}  // namespace

const std::vector<std::string>& surface_names() {
  static const std::vector<std::string> names = {"trainer",  "hf",       "workers",    "mesh",
                                                 "releases", "recorded", "config-file"};
  return names;
}

SurfaceCase make_surface_case(const std::string& name, const std::string& dir, Rng& rng) {
  if (name == "trainer") return trainer(rng);
  if (name == "hf") return hf(rng);
  if (name == "workers") return workers(rng);
  if (name == "mesh") return mesh(rng);
  if (name == "releases") return releases(rng);
  if (name == "recorded") return recorded(dir, rng);
  return config_file(dir, rng);
}

}  // namespace fuzz
