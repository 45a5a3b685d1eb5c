// The `scheduler` family run through the core: a training loop of
// `with accelerator.accumulate(model): optimizer.step(); scheduler.step(); optimizer.zero_grad()` over a
// rank's prepared DataLoader (or plain iterations), and AcceleratedScheduler.step() driven with an
// explicit sync_gradients pattern. Both record the wrapped scheduler after every micro-step.
//
// Every rank runs its own loop on its own state; in Accelerate they agree because the scheduler only
// reads world-wide values (num_processes) and, with even batches, every rank has the same length.
#pragma once

#include "trace/trace.hpp"

namespace accel::sim {

trace::Trace simulate(const trace::SchedulerCase& config);

// One rank of a training-loop case (rank 0 for a single-process case or a direct one).
trace::SchedulerRankRecord simulate_training_rank(const trace::SchedulerCase& config, std::int64_t rank);

}  // namespace accel::sim
