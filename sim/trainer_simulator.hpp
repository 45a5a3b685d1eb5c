// The trainer family simulated: transformers.Trainer's loop (core/trainer_loop) over the loader its
// Accelerator prepares (core/data_loader_shard), rank by rank; with a resume, a second job in fresh processes
// that trains from the checkpoint's global step on its own shape.
//
// What crosses Trainer's checkpoint and decides the order: the global step (trainer_state.json), from which the
// resumed job derives its epoch and skip with its own len(dataloader), and each process's RNG state
// (rng_state_{rank}.pth), loaded after the loader is prepared, so it reaches no sampler Accelerate seeded at
// prepare. A SeedableRandomSampler's order depends on seed + epoch alone, and Trainer calls set_epoch every epoch.
// What draws from the global generator does see it: a LengthGroupedSampler (group_by_length) draws its randperm
// there every pass, so its resumed job's orders follow where the state is loaded and which ranks find a file
// (core/trainer_loop: finds_rng_state, loads_rng_state_before_pass).
#pragma once

#include <vector>

#include "core/trainer_loop.hpp"
#include "trace/trainer_case.hpp"

namespace accel::sim {

// One job's schedule as rank `rank` computes it (len(train_dataloader) on that rank).
TrainerSchedule trainer_job_schedule(const trace::TrainerCase& config, bool resumed_job, std::int64_t rank = 0);

// An IterableDataset's pass: the batches rank `rank` reads in one pass of the job (the first or the resumed one).
std::int64_t iterable_pass_length(const trace::TrainerCase& config, bool resumed_job, std::int64_t rank = 0);

// The data epoch of each recorded step (the epoch of its last micro-batch), per rank, parallel to the trace's
// `steps` and `resumed_steps`: what the resume comparison groups by, which the recorded layout does not carry.
struct TrainerStepEpochs {
  std::vector<std::vector<std::int64_t>> first, resumed;
};

// AccelerateError where Accelerate rejects the loader becomes the ranks' error records, as the recorder's are.
trace::TrainerTrace simulate_trainer(const trace::TrainerCase& config, TrainerStepEpochs* epochs = nullptr);

}  // namespace accel::sim
