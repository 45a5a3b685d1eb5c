#include "accelerated_scheduler.hpp"

#include "mutation.hpp"

namespace accel {

std::int64_t AcceleratedScheduler::step(const GradientState& state, std::span<const AcceleratedOptimizer> optimizers) {
  if (!options_.step_with_optimizer) {
    scheduler_.step();
    return 1;
  }
  if (!state.sync_gradients() && mutant(Mutation::SchedulerStepsDuringAccumulation)) { scheduler_.step(); return 1; }
  if (!state.sync_gradients()) {
    if (state.adjust_scheduler()) scheduler_.count_step();
    return 0;
  }
  for (const AcceleratedOptimizer& opt : optimizers) {
    if (opt.step_was_skipped() && !mutant(Mutation::SchedulerStepsAfterSkippedStep)) return 0;
  }
  if (options_.split_batches) {
    scheduler_.step();
    return 1;
  }
  std::int64_t calls = 0;
  const auto total = scheduler_.total_steps();
  for (std::int64_t i = 0; i < options_.num_processes; ++i) {
    // Accelerate's guard for OneCycleLR, whose last optimizer steps can ask for more scheduler steps than
    // total_steps (a loader padded to a multiple of num_processes); torch would raise on them.
    if (total && scheduler_.step_count() > *total && !mutant(Mutation::OneCycleGuardMissing)) continue;
    scheduler_.step();
    ++calls;
  }
  return calls;
}

}  // namespace accel
