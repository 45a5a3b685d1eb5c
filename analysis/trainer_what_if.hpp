// The Trainer what-if: what transformers.Trainer's loop trains on, rank by rank and optimizer step by step,
// and whether a job resumed from checkpoint-<global_step> (perhaps on another world size, per-device batch or
// accumulation, perhaps with ignore_data_skip) trains on what the uninterrupted job would have; if not, the
// smallest change that makes it so, found and verified by simulating it. One model for the report and the
// gate (--require); renderers (trainer_render) read only this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/requirements.hpp"
#include "analysis/resume_what_if.hpp"
#include "analysis/trainer_evaluation_report.hpp"
#include "analysis/warning.hpp"
#include "core/trainer_loop.hpp"
#include "trace/trainer_case.hpp"

namespace accel::analysis {

// One job (the first, or the resumed one) as Trainer runs it.
struct TrainerJobSummary {
  std::int64_t num_processes = 1;
  std::int64_t per_device_batch_size = 1;
  std::int64_t gradient_accumulation_steps = 1;
  TrainerSchedule schedule;          // rank 0's len(train_dataloader), num_update_steps_per_epoch, max_steps
  std::int64_t optimizer_steps = 0;  // rank 0's optimizer steps in this job
  std::int64_t last_global_step = 0;
  bool lockstep = true;                      // every rank takes the same number of optimizer steps
  std::int64_t short_last_step_batches = 0;  // micro-batches of an epoch's last, short accumulation step (0: none)
  // The first trained epoch, over every rank: occurrences beyond an id's first (even_batches padding) and ids
  // never trained (dataloader_drop_last).
  std::int64_t epoch_duplicated = 0;
  std::int64_t epoch_dropped = 0;
  std::int64_t unsynced_batches = 0;  // rank 0's micro-batches that never reach an optimizer step
  friend bool operator==(const TrainerJobSummary&, const TrainerJobSummary&) = default;
};

struct TrainerResumeReport {
  trace::TrainerResumeSpec spec;
  TrainerResumePosition position;  // as the resumed job derives it from global_step with its own len(dataloader)
  // Where global_step is in the first job: its epoch and the batches of that epoch already trained.
  std::int64_t first_job_epoch = 0;
  std::int64_t first_job_batches = 0;
  bool past_end = false;  // global_step >= the first job's max_steps: there is nothing left to train
  // An IterableDataset without __len__: the pass (epoch) the first job's step global_step ended in.
  std::optional<std::int64_t> first_job_pass;
  TrainerJobSummary resumed_job;
  std::optional<trace::ErrorRecord> error;  // the resumed job fails before its first batch (every rank)
  ResumeOutcome outcome;                    // epochs compared by data epoch, from the checkpoint on
  std::vector<std::string> reasons;         // why it is not identical
  ResumeRecipe recipe;
};

struct TrainerReport {
  trace::TrainerCase config;
  TrainerJobSummary job;
  std::optional<trace::ErrorRecord> error;  // Accelerate rejects the loader (rank 0's error)
  std::optional<TrainerResumeReport> resume;
  std::optional<TrainerEvalReport> evaluation;  // trainer.evaluate() on the eval dataset, when one is given
  std::vector<std::string> notes;  // what Trainer does differently from a hand-written Accelerate loop
  std::vector<Warning> findings;   // errors first; the gate judges the same model
  std::string verdict;             // one line: the first finding, or what holds
};

// Compares the resumed job with the uninterrupted one after global_step, per data epoch (the job's shape given,
// batch by batch on each rank; another shape, sample multisets per epoch).
ResumeOutcome compare_trainer_resume(const trace::TrainerCase& config);

TrainerReport trainer_what_if(const trace::TrainerCase& config);

// The first job's summary without replaying a sample (a job without a resume over a map-style dataset whose pass 0
// every rank trains whole), or nullopt where only the replay knows; and the replay's, which it must equal.
std::optional<TrainerJobSummary> trainer_job_closed_form(const trace::TrainerCase& config);
TrainerJobSummary trainer_job_replayed(const trace::TrainerCase& config);

// The gate over the same report: no-duplicates, no-drops, full-coverage (both), lockstep (the first job's epoch),
// exact-resume (the resumed job), exact-metrics (every evaluate() call). Raises std::invalid_argument naming the requirements Trainer can be judged on.
CheckReport judge_trainer(const TrainerReport& report, const std::vector<std::string>& requirements);

}  // namespace accel::analysis
