// The `trainer` family's JSON: its config (transformers TrainingArguments that decide the data, and an
// optional resume) and its trace (each rank's optimizer steps and the micro-batches they accumulated).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trace_json.hpp"
#include "trainer_case.hpp"

namespace accel::trace {

bool is_trainer_config(const Json& config);

// What TrainingArguments says of the sampler, shared by the train and the evaluation configs: the strategy, and the
// dataset's lengths (non-null exactly with "group_by_length"). Raises ConfigError naming the field.
struct TrainerSampling {
  std::string strategy;
  std::shared_ptr<const std::vector<std::int64_t>> lengths;
};
class Fields;
// `sampler_built`: false for an IterableDataset, which Trainer gives no sampler (no lengths are then read).
TrainerSampling parse_trainer_sampling(const Fields& f, std::int64_t dataset_len, TransformersRelease release,
                                       bool sampler_built = true);

// TrainingArguments.accelerator_config as AcceleratorConfig defaults it, as an accelerator-family `accelerator`
// object; dispatch_batches true is refused unless the caller models it.
Json parse_trainer_accelerator_config(const Fields& f, bool dispatch_modelled);

// The TrainingArguments both Trainer configs open with: the transformers release, the dataset's length, the world
// size and the per-device batch size read from `batch_field` (per_device_train_batch_size or
// per_device_eval_batch_size). Raises ConfigError naming the field.
struct TrainingArgumentsHead {
  std::string version;
  TransformersRelease release{};
  std::int64_t dataset_len = 0;
  std::int64_t num_processes = 1;
  std::int64_t per_device_batch_size = 8;
};
TrainingArgumentsHead parse_training_arguments_head(const Fields& f, const std::string& batch_field);

// The accelerator-family script Trainer's loader amounts to, parsed; its ConfigErrors name the TrainingArguments
// field the user wrote (seed, `batch_field`, data_seed, accelerator_config.*), not the script's.
LoaderCase parse_trainer_script(const Json& script, const std::string& batch_field);

// Raises ConfigError naming the field and the rule.
TrainerCase parse_trainer_config(const Json& config);

// The accelerator-family script a Trainer job of this shape runs (the resumed job's: another world size,
// per-device batch size, accumulation; the last sizes a LengthGroupedSampler's megabatches).
LoaderCase trainer_job(const TrainerCase& c, std::int64_t num_processes, std::int64_t per_device_batch_size,
                       std::int64_t gradient_accumulation_steps);

Json trainer_to_json(const std::string& case_name, const Json& config, const TrainerTrace& trace);

}  // namespace accel::trace
