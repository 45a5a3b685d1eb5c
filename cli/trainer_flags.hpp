// `--api trainer`: the flags that describe a transformers.Trainer job (TrainingArguments' data fields, a
// resume_from_checkpoint at a global step) and the trainer-family config they resolve to (golden/SCHEMA.md
// `## trainer`), the one input of the Trainer what-if and of its gate.
//
// The loader flags keep their meaning where Trainer has the same field (--ranks, --dataset-len, --drop-last as
// dataloader_drop_last, --split-batches / --even-batches / --use-seedable-sampler as accelerator_config,
// --set-seed as seed, --data-seed as data_seed, --epochs as num_train_epochs, --grad-accum); TrainingArguments'
// defaults replace accel-sim's where they differ (batch 8, 3 epochs, seed 42, the seedable sampler on). A flag
// Trainer has no counterpart for is refused by name.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/loader_flags.hpp"
#include "cli/resume_flags.hpp"
#include "cli/training_flags.hpp"
#include "trace/trace_json.hpp"

namespace accel::cli {

struct TrainerFlags {
  std::optional<std::int64_t> per_device_batch_size;  // --per-device-batch-size (or --batch-size)
  std::optional<std::int64_t> max_steps;
  std::string train_sampling_strategy = "random";
  std::string transformers_version = "5.25";
  std::optional<std::int64_t> resume_grad_accum;
  bool ignore_data_skip = false;
  bool use_cpu = false;
  std::string lengths_file;  // --lengths FILE: one length per sample, for group_by_length
  // trainer.evaluate() on an eval dataset (--eval-dataset-len N turns it on).
  std::optional<std::int64_t> eval_dataset_len;
  std::optional<std::int64_t> per_device_eval_batch_size;
  std::optional<std::int64_t> num_evaluations;
  bool compute_metrics = false;
  bool eval_use_gather_object = false;
  bool no_eval_concat_batches = false;
  std::string eval_lengths_file;
  // --dataset iterable: the train dataset is a torch IterableDataset (no __len__ unless --iterable-has-len).
  bool iterable_has_len = false;
  bool iterable_set_epoch = false;

  void add_to(CLI::App& app);

  // The trainer-family config; ConfigError names the flag and the rule. `cmd` says which flags were given,
  // `args` is the command line (to tell --seed from --data-seed, which the loader flags spell alike).
  trace::Json config(const LoaderFlags& loader, const TrainingFlags& training, const ResumeFlags& resume,
                     const CLI::App& cmd, const std::vector<std::string>& args) const;

  // Without --api trainer: a Trainer flag given to the loader what-if or check would be ignored (the report would
  // describe another job), so it is refused by name.
  static void refuse_without_trainer(const CLI::App& cmd);
};

}  // namespace accel::cli
