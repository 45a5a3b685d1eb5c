// Family `trainer` (golden/SCHEMA.md): transformers.Trainer trains a map-style dataset on R ranks, and
// optionally a second job resumes it from the checkpoint at a global step, perhaps on another world size,
// batch size or accumulation. Plain values; trainer_json reads and writes them.
#pragma once

#include <string>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/trainer_loop.hpp"
#include "trace.hpp"
#include "trainer_eval_case.hpp"

namespace accel::trace {

// The resumed job: trainer.train(resume_from_checkpoint=checkpoint-<global_step>) in fresh processes.
struct TrainerResumeSpec {
  std::int64_t global_step = 0;
  std::int64_t num_processes = 1;
  std::int64_t per_device_train_batch_size = 1;
  std::int64_t gradient_accumulation_steps = 1;
  bool ignore_data_skip = false;
};

struct TrainerCase {
  TransformersRelease release = TransformersRelease::v5_25;
  std::string version = "5.25";  // the release as given (kTransformersReleases): its rules are `release`'s
  // The DataLoader Trainer builds (batch_size per device, dataloader_drop_last, RandomSampler or
  // SequentialSampler) and the Accelerator it prepares it with (accelerator_config, data_seed), after
  // set_seed(seed) in Trainer.__init__: an accelerator-family script.
  LoaderCase job;
  TrainerLoopOptions loop;
  std::optional<TrainerResumeSpec> resume;
  // Where the processes run: the recordings are CPU gloo groups; a what-if defaults to GPUs. It decides only
  // resume_fails_on_cpu_group.
  bool on_cpu = true;
  // train_dataset is a torch IterableDataset yielding ids 0 .. n-1 every pass (golden/trainer-iterable.md): no
  // sampler, no drop_last, Accelerate's dispatcher by default; with __len__ (iterable_has_len) Trainer runs its
  // epoch-based loop, without it an epoch is one pass capped at max_steps; iterable_set_epoch: the dataset has
  // set_epoch(e), after which a pass yields (e + j) mod n.
  bool iterable = false;
  bool iterable_has_len = false;
  bool iterable_set_epoch = false;
  bool group_by_length_requested = false;  // train_sampling_strategy "group_by_length" (an iterable dataset ignores it)
  // trainer.evaluate() on an eval dataset (the what-if's `evaluation` object): the same TrainingArguments.
  std::optional<TrainerEvalCase> evaluation;
};

struct TrainerStepRecord {
  std::optional<std::int64_t> global_step;  // nullopt: micro-batches that never reached an optimizer step
  std::vector<Batch> batches;
  friend bool operator==(const TrainerStepRecord&, const TrainerStepRecord&) = default;
};

struct TrainerRankRecord {
  std::int64_t rank = 0;
  std::vector<TrainerStepRecord> steps;          // the first job, uninterrupted (empty for ranks it lacks)
  std::vector<TrainerStepRecord> resumed_steps;  // the resumed job (empty for ranks it lacks)
  std::optional<ErrorRecord> error;
};

struct TrainerTrace {
  std::optional<ErrorRecord> error;
  std::vector<TrainerRankRecord> ranks;
};

}  // namespace accel::trace
