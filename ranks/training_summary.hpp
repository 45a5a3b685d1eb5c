// How rank 0's verdict states the outcome of the training loop on real ranks: sim::describe's words, except
// for a completed job's counts, which are per rank. A rank that ran out of batches and joined early (torch's
// Join) made fewer optimizer steps than the others, so one number "per rank" would not be true of it.
#pragma once

#include <string>
#include <vector>

#include "sim/ddp_training.hpp"

namespace accel::ranks {

// "completed: 2 optimizer steps, 2 gradient all_reduces, 2 scheduler steps per rank" when every rank made the
// same; otherwise the ranks grouped by their counts, runs compressed: "completed: ranks 0, 1: 2 optimizer
// steps, 2 gradient all_reduces, 2 scheduler steps; rank 2: 1 optimizer step, 1 gradient all_reduce (+1
// shadowed by Join), 1 scheduler step". Anything but a completed job: sim::describe as it is.
std::string training_summary(const sim::TrainingVerdict& verdict, const std::vector<sim::TrainingRank>& ranks);

}  // namespace accel::ranks
