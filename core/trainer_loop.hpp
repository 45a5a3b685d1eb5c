// transformers.Trainer's training loop over the train loader it prepares: how many optimizer steps an epoch
// has, which of the epoch's batches each optimizer step accumulates, where a run stops, and where a run
// resumed from a checkpoint at a global step starts reading. Trainer does not use accelerator.accumulate():
// it syncs on its own micro-step counter, so these rules are its own (transformers' trainer.py), not
// GradientState's.
//
// The counts come from len(train_dataloader) (one rank's batches per epoch) alone, so a job on another
// world size, batch size or accumulation maps the same global_step to another epoch and batch: that silent
// remapping is what resume_position makes visible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accel {

// The transformers releases whose loop is modelled. Where they differ it is a named rule below.
enum class TransformersRelease {
  v4_57,  // the last 4.x
  v5_25,
};

const char* release_name(TransformersRelease release);  // "4.57" / "5.25": the release that names the rules

// The transformers releases accel-sim accepts, as data: each recorded, and the rules it follows. A release is
// accepted only when listed here; 5.24 follows 5.25's rules because the transformers release watch recorded every
// golden/cases-trainer* config on it and found each trace alike (golden/cases-trainer*/trainer*-v5.24-*).
struct TransformersReleaseEntry {
  const char* name;  // "X.Y", as config.transformers_version and --transformers-version give it
  TransformersRelease rules;
};
inline constexpr TransformersReleaseEntry kTransformersReleases[] = {
    {"4.57", TransformersRelease::v4_57},
    {"5.24", TransformersRelease::v5_25},
    {"5.25", TransformersRelease::v5_25},
};
// "4.57, 5.24 and 5.25".
std::string transformers_releases_text();

std::optional<TransformersRelease> transformers_release_from_name(const std::string& name);
// Why `name` is refused: not a release "X.Y", or a release not in kTransformersReleases, with the nearest recorded
// ones below and above it: the rules between two recorded releases are not known without a recording.
std::string transformers_refusal(const std::string& name);

// Rule: on the resumed epoch 4.57 calls set_epoch(epoch) on the prepared loader and then skip_first_batches;
// 5.x skips first and calls set_epoch on the skipped loader (the prepared one keeps its own counter).
bool sets_epoch_before_skip(TransformersRelease release);

// Rule: 4.57 loads the optimizer's state with map_location=args.device when the world size is above 1, which
// Accelerate makes "cpu:0" on a CPU process group, and torch cannot restore storages tagged so: every rank of a
// multi-process resume on CPU raises this RuntimeError before its first batch (5.x maps to plain "cpu").
// Recorded on gloo; on GPUs the device is cuda:N and the resume runs.
bool resume_fails_on_cpu_group(TransformersRelease release, std::int64_t resumed_world_size);
inline constexpr const char* kIndexedCpuRestoreError =
    "don't know how to restore data location of torch.storage.UntypedStorage (tagged with cpu:0)";

struct TrainerLoopOptions {
  std::int64_t gradient_accumulation_steps = 1;
  std::int64_t num_train_epochs = 1;
  std::int64_t max_steps = -1;  // > 0 overrides num_train_epochs
};

// set_initial_training_values for a loader that has a length.
struct TrainerSchedule {
  std::int64_t steps_in_epoch = 0;              // len(train_dataloader)
  std::int64_t num_update_steps_per_epoch = 0;  // max(ceil(steps_in_epoch / GA), 1)
  std::int64_t max_steps = 0;                   // max_steps, or num_train_epochs * num_update_steps_per_epoch
  std::int64_t num_train_epochs = 0;            // epochs the loop iterates (ceil(max_steps / nups) with max_steps)
  std::int64_t gradient_accumulation_steps = 1;
  friend bool operator==(const TrainerSchedule&, const TrainerSchedule&) = default;
};

// Raises AccelerateError(ValueError, "train") for len_dataloader 0 without max_steps, as Trainer does on every rank.
TrainerSchedule trainer_schedule(std::int64_t len_dataloader, const TrainerLoopOptions& options);

// set_initial_training_values without len(train_dataloader) (an IterableDataset without __len__; max_steps > 0, which
// Trainer requires then): num_update_steps_per_epoch = max_steps, steps_in_epoch = max_steps * GA, and
// num_train_epochs = sys.maxsize, an epoch being one pass of the iterator. A pass of L batches syncs floor(L / GA)
// times (its last L % GA micro-batches are not an accumulation boundary: they join the next pass's first step), so
// the schedule's num_train_epochs is the passes the run can need, not sys.maxsize. `batches_per_pass` > 0.
TrainerSchedule trainer_schedule_without_length(std::int64_t batches_per_pass, const TrainerLoopOptions& options);

// Rule: Trainer.__init__ refuses an IterableDataset without __len__ when max_steps <= 0 (ValueError, every rank);
// the releases word it differently.
std::string iterable_needs_max_steps_message(TransformersRelease release);

// Rule: 4.57 refuses group_by_length for an IterableDataset in __init__; 5.25 ignores train_sampling_strategy for one.
inline bool refuses_group_by_length_for_iterable(TransformersRelease release) {
  return release == TransformersRelease::v4_57;
}
inline constexpr const char* kGroupByLengthIterableMessage =
    "the `--group_by_length` option is only available for `Dataset`, not `IterableDataset";

// Rule (both releases): without len(train_dataloader), a pass of fewer batches than gradient_accumulation_steps
// never reaches a sync: global_step stays 0 and train() never returns (recorded as a Hang).
inline bool never_steps_without_length(std::int64_t batches_per_pass, std::int64_t gradient_accumulation_steps) {
  return batches_per_pass > 0 && batches_per_pass < gradient_accumulation_steps;
}

// _init_training_state for resume_from_checkpoint at `global_step`: epochs_trained = global_step // nups and,
// unless ignore_data_skip, (global_step % nups) * GA batches of that epoch are skipped.
struct TrainerResumePosition {
  std::int64_t global_step = 0;
  std::int64_t epochs_trained = 0;
  std::int64_t steps_trained_in_current_epoch = 0;  // batches skip_first_batches skips in that epoch
  bool ignore_data_skip = false;
};

TrainerResumePosition resume_position(std::int64_t global_step, const TrainerSchedule& schedule, bool ignore_data_skip);

// Rule (both releases): at a checkpoint every rank saves its process's RNG states (torch's global generator among
// them) as rng_state.pth when the world size is 1, rng_state_{rank}.pth otherwise (_save_rng_state), and a
// resumed rank loads the file of its own name (_load_rng_state); a rank that finds none keeps its generator, with
// an info-level log line only. So only R == R2 == 1, or R > 1 and R2 > 1 for ranks below R, load one. Whatever
// draws from the global generator (a LengthGroupedSampler's randperm, a generator-less RandomSampler's seed, the
// DataLoader iterator's _base_seed) draws from the loaded state afterwards.
bool finds_rng_state(std::int64_t saved_world_size, std::int64_t world_size, std::int64_t rank);

// Rule (both releases): when the resumed epoch's first batches are skipped, the RNG state is loaded after the
// skipped loader yielded its first batches (rng_to_sync: so after that pass drew its order from the resumed
// process's own generator); when nothing is skipped (an epoch boundary, or ignore_data_skip), before its
// iterator is built, so that pass draws from the loaded state.
inline bool loads_rng_state_before_pass(const TrainerResumePosition& position) {
  return position.steps_trained_in_current_epoch == 0;
}

// One optimizer step: the micro-batches it accumulated, as (epoch, batch index in that epoch's pass).
struct MicroBatchRef {
  std::int64_t epoch = 0;
  std::int64_t batch = 0;  // index in the epoch's pass, counting skipped batches
  friend bool operator==(const MicroBatchRef&, const MicroBatchRef&) = default;
};

struct TrainerStep {
  std::int64_t global_step = 0;  // after this step
  std::vector<MicroBatchRef> micro_batches;
};

// A fresh run's counts without listing its steps (issue 48: a 10^7-sample fine-tune is 10^5 steps per rank, and
// max_steps may cycle a small loader 10^6 times), when every pass of the rank yields `batches_per_pass`
// micro-batches, as a map-style loader's passes do: what run_trainer_loop(schedule, nullopt, ...) gives.
struct TrainerRunCounts {
  std::int64_t optimizer_steps = 0;   // == last_global_step for a fresh run
  std::int64_t unsynced_batches = 0;  // micro-batches after the run's last optimizer step
  // Pass 0 is trained whole within its own steps: its last micro-batch ends one of them, before max_steps stops
  // the run, so no micro-batch of it is carried into pass 1's first step (or the pass is empty).
  bool first_pass_whole = false;
  friend bool operator==(const TrainerRunCounts&, const TrainerRunCounts&) = default;
};
TrainerRunCounts trainer_run_counts(const TrainerSchedule& schedule, std::int64_t batches_per_pass);

// The loop's optimizer steps on one rank, and the micro-batches that never reached one.
struct TrainerRun {
  std::vector<TrainerStep> steps;
  std::vector<MicroBatchRef> unsynced;
};

// `batches_in_pass(epoch, skip)` says how many batches that epoch's pass yields after skipping `skip`; it is
// called once per epoch the loop runs, in order, so a caller can iterate its loader there. A micro-batch syncs
// when (step + 1) % GA == 0 or step + 1 == steps_in_epoch, `step` counting the epoch's batches from the skipped
// ones; micro-batches that do not sync (a pass shorter than len(dataloader)) stay accumulated into the next
// step, as Trainer's gradients do. The stop test (global_step >= max_steps) runs after each optimizer step
// only, so a run resumed at or past max_steps still takes one step when its epoch range is not empty.
// `start`: a resume (nullopt: a fresh run from global step 0).
template <typename BatchesInPass>
TrainerRun run_trainer_loop(const TrainerSchedule& schedule, const std::optional<TrainerResumePosition>& start,
                            BatchesInPass batches_in_pass) {
  TrainerRun run;
  const std::int64_t ga = schedule.gradient_accumulation_steps;
  std::int64_t global_step = start ? start->global_step : 0;
  const std::int64_t first_epoch = start ? start->epochs_trained : 0;
  for (std::int64_t epoch = first_epoch; epoch < schedule.num_train_epochs; ++epoch) {
    const std::int64_t skip = (start && epoch == first_epoch) ? start->steps_trained_in_current_epoch : 0;
    const std::int64_t yielded = batches_in_pass(epoch, skip);
    for (std::int64_t j = 0; j < yielded; ++j) {
      const std::int64_t step = skip + j;
      run.unsynced.push_back({epoch, step});
      if ((step + 1) % ga == 0 || step + 1 == schedule.steps_in_epoch) {
        run.steps.push_back({++global_step, std::move(run.unsynced)});
        run.unsynced.clear();
        if (global_step >= schedule.max_steps) return run;
      }
    }
  }
  return run;
}

}  // namespace accel
