// The trace model: typed configs and per-rank records of the golden schema (golden/SCHEMA.md).
//
// Plain values, no JSON: the simulator fills them, trace_json.hpp reads and writes them. Field names are
// the schema's, which are Accelerate's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/accelerator_options.hpp"
#include "core/batch.hpp"
#include "core/prepare_data_loader.hpp"
#include "metrics_trace.hpp"
#include "scheduler_trace.hpp"

namespace accel::trace {

inline constexpr int kSchemaVersion = 1;

struct ErrorRecord {
  std::string where;  // empty inside attr_errors, where the key says where
  std::string type;
  std::string message;
  // Multiprocess runs: the rank that reported a case-level error.
  std::optional<std::int64_t> rank;
  friend bool operator==(const ErrorRecord&, const ErrorRecord&) = default;
};

// Which loader object a pass iterated.
enum class LoaderRole { Prepared, Skipped };

// Families `map`, `iterable`, `seedable`, `skip`, `dispatch`: prepare_data_loader (+ skip_first_batches).
struct LoaderCase {
  // "prepare_data_loader" (+skip_first_batches), or "accelerator": Accelerator(...).prepare(dl), whose
  // options `accelerator` holds and `prepare` already resolves.
  std::string api = "prepare_data_loader";
  std::optional<AcceleratorOptions> accelerator;
  DataLoaderArgs loader;
  PrepareOptions prepare;  // process_index is set per rank by the simulator
  // A Python int; each process called torch.manual_seed with it (plus its rank with seed_per_rank).
  std::optional<PythonInt> torch_manual_seed;
  // Each process called torch.manual_seed(torch_manual_seed + rank) (set_seed(seed + process_index)).
  bool seed_per_rank = false;
  bool dataset_generator = false;
  std::int64_t epochs = 1;
  std::vector<LoaderRole> schedule;
  std::optional<std::vector<std::int64_t>> set_epoch;
  std::optional<std::int64_t> skip_first_batches;
  bool multiprocess = false;
  // The loader options the config passes by name (config.accelerator's keys with api "accelerator", else
  // prepare_data_loader's keyword arguments): a release without one raises TypeError for it
  // (core/accelerate_release.hpp check_keyword). prepare.release is the release (config.accelerate_version).
  std::vector<std::string> keywords;
};

// Family `bss_varying`: BatchSamplerShard over an explicit list of batches.
struct BatchSamplerShardCase {
  std::vector<Batch> batch_sampler;
  std::int64_t num_processes = 1;
  bool split_batches = false;
  bool even_batches = true;
  bool drop_last = false;
  std::int64_t epochs = 1;
};

// Family `randperm`: SeedableRandomSampler on its own.
struct RandpermCase {
  std::int64_t n = 0;
  std::uint64_t data_seed = 0;
  std::int64_t epochs = 1;
};

// Family `metrics`: an Accelerator case (api "accelerator", one pass) whose loop gathers every step.
struct MetricsCase {
  LoaderCase loader;
  bool use_gather_object = false;
  std::optional<std::int64_t> break_after;  // the loop breaks when it reaches this step
};

using CaseConfig = std::variant<LoaderCase, BatchSamplerShardCase, RandpermCase, SchedulerCase, MetricsCase>;

struct LoaderAttributes {
  std::string loader_class;
  std::optional<std::int64_t> len;
  std::optional<std::int64_t> total_batch_size;
  std::optional<std::int64_t> total_dataset_length;
  std::map<std::string, ErrorRecord> attr_errors;
};

struct PassRecord {
  std::int64_t epoch = 0;
  LoaderRole loader = LoaderRole::Prepared;
  std::optional<std::int64_t> set_epoch;
  std::optional<LoaderAttributes> skipped_loader;
  std::vector<Batch> batches;
  std::vector<bool> end_of_dataloader;
  std::vector<std::int64_t> remainder;
  // null where the release's loaders have no `iteration` (before 0.24.0).
  std::optional<std::int64_t> iteration_after = 0;
  std::optional<std::int64_t> sampler_epoch_after;
  std::optional<ErrorRecord> error;
};

struct RankRecord {
  std::int64_t rank = 0;
  LoaderAttributes attributes;
  std::vector<PassRecord> epochs;
  std::optional<ErrorRecord> error;
};

struct ShardPassRecord {
  std::int64_t epoch = 0;
  std::vector<Batch> batches;
  std::optional<ErrorRecord> error;
};

struct ShardRankRecord {
  std::int64_t rank = 0;
  std::optional<std::int64_t> len;
  std::map<std::string, ErrorRecord> attr_errors;
  std::vector<ShardPassRecord> epochs;
};

struct RandpermRecord {
  std::vector<std::vector<std::int64_t>> permutations;  // one per epoch
  std::vector<std::int64_t> torch_randperm_seed;
};

using TraceBody = std::variant<std::vector<RankRecord>, std::vector<ShardRankRecord>, RandpermRecord,
                               std::vector<SchedulerRankRecord>, std::vector<MetricsRankRecord>>;

struct Trace {
  std::optional<ErrorRecord> error;
  TraceBody body;
};

}  // namespace accel::trace
