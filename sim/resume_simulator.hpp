// The resume family simulated: the uninterrupted job, the checkpoint Accelerator.save_state takes after S
// batches of epoch E, and a fresh job that load_state's it and continues, rank by rank.
//
// What crosses the checkpoint is what every modelled release (0.14.0 - 1.15.0, read in each one's checkpointing.py
// and recorded in golden/cases-releases/*/rel-resume-*) really saves: each process's
// default torch generator (torch.get_rng_state, restored per process index), a StatefulDataLoader's
// state_dict when use_stateful_dataloader is on, and nothing else that decides the order: not the
// prepared loader's iteration counter, not a RandomSampler's own generator, and not a map-style
// SeedableRandomSampler's epoch (save_accelerator_state only saves the sampler of an IterableDatasetShard).
// The StatefulDataLoader's state goes through one file all ranks write (core/stateful_loader_state.hpp).
#pragma once

#include <vector>

#include "core/stateful_loader_state.hpp"
#include "trace/resume_case.hpp"

namespace accel::sim {

// Raises trace::ConfigError when the checkpoint cannot be taken (S past the end of epoch E on a rank). Where the
// release raises (an option Accelerator lacks, set_epoch before 0.24.0, skip_first_batches before 0.16.0, prepare's
// own errors), each rank of the group that raised records it (where "first_group" / "second_group"), as recorded.
// With use_stateful_dataloader, every rank restores the state config.resume.state_writer wrote; ConfigError
// when the ranks' states differ and it is not given (then the real outcome is a race).
trace::ResumeTrace simulate_resume(const trace::ResumeCase& config);

// The StatefulDataLoader state each rank of the first job writes at the checkpoint (index = rank).
std::vector<StatefulLoaderState> saved_loader_states(const trace::ResumeCase& config);

}  // namespace accel::sim
