// AcceleratedScheduler.step(): when the scheduler Accelerator.prepare() wraps really steps
// (Accelerate 1.15, accelerate/scheduler.py).
//
//  - step_with_optimizer=False: every call steps the wrapped scheduler once, whatever the optimizer did.
//  - an accumulation step (sync_gradients False) never steps it; it only bumps its _step_count when
//    GradientState.adjust_scheduler is set (which the default plugin leaves False, see gradient_state.hpp);
//  - an optimizer step that was skipped (scaler overflow) does not step it;
//  - otherwise it steps once per optimizer step with split_batches, and num_processes times without:
//    Accelerate assumes the schedule was written for the single-process number of batches, which is
//    num_processes times the per-process count. Schedulers with a total_steps attribute (OneCycleLR)
//    get each of those steps only while _step_count <= total_steps; with split_batches nothing guards
//    them, and torch raises once they are stepped past total_steps.
#pragma once

#include <cstdint>
#include <span>

#include "accelerated_optimizer.hpp"
#include "gradient_state.hpp"
#include "lr_scheduler.hpp"

namespace accel {

struct AcceleratedSchedulerOptions {
  bool step_with_optimizer = true;   // Accelerator(step_scheduler_with_optimizer=...)
  bool split_batches = false;
  std::int64_t num_processes = 1;    // AcceleratorState().num_processes, read at every step
};

class AcceleratedScheduler {
 public:
  AcceleratedScheduler(LRScheduler scheduler, AcceleratedSchedulerOptions options)
      : scheduler_(std::move(scheduler)), options_(options) {}

  // scheduler.step() with the optimizers the scheduler was prepared with. Returns how many times the
  // wrapped scheduler stepped. An error from the wrapped scheduler (OneCycleLR past total_steps)
  // propagates with the scheduler's state as torch leaves it.
  std::int64_t step(const GradientState& state, std::span<const AcceleratedOptimizer> optimizers);
  std::int64_t step(const GradientState& state, const AcceleratedOptimizer& optimizer) {
    return step(state, std::span<const AcceleratedOptimizer>(&optimizer, 1));
  }

  // Wrapped-scheduler steps per optimizer step (num_processes unless split_batches).
  std::int64_t steps_per_optimizer_step() const noexcept {
    return options_.split_batches ? 1 : options_.num_processes;
  }

  const LRScheduler& scheduler() const noexcept { return scheduler_; }
  const AcceleratedSchedulerOptions& options() const noexcept { return options_; }

 private:
  LRScheduler scheduler_;
  AcceleratedSchedulerOptions options_;
};

}  // namespace accel
