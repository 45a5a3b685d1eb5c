// The trainer-eval family simulated: every evaluate() call's loader (core/data_loader_shard or the dispatcher,
// through the simulator) fed to Trainer's evaluation_loop (core/trainer_evaluation), rank by rank.
//
// Trainer builds and prepares a new eval loader in every evaluate(). A loader whose order comes from a seeded
// generator (5.25's LengthGroupedSampler) or from no generator at all reads the same order every call; 4.57's
// LengthGroupedSampler draws from the process's global generator, so call k reads what pass k of one loader reads.
// Only the first call gathers with eval_use_gather_object: evaluation_loop then resets Trainer's gather function.
#pragma once

#include <optional>
#include <vector>

#include "trace/trainer_eval_case.hpp"

namespace accel::sim {

// Which rank's batch at which step each gathered loss value averages, per call and rank (nullopt where that rank
// returned nothing): what the analysis weighs samples by, which the recorded layout does not carry.
using EvalLossSources = std::vector<std::vector<std::optional<EvalArrays<LossSource>>>>;

trace::TrainerEvalTrace simulate_trainer_eval(const trace::TrainerEvalCase& config, EvalLossSources* sources = nullptr);

}  // namespace accel::sim
