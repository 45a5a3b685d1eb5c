// torch.optim.lr_scheduler for one param group: the state Accelerate reads and writes on the scheduler
// it wraps (last_epoch, _step_count, get_last_lr()[0], whether it has a `total_steps` attribute) and
// torch's arithmetic for the shapes accel-sim knows.
//
// The arithmetic follows torch's own order of operations, because traces compare learning rates to
// the last bits: LambdaLR multiplies base_lr by the lambda; StepLR is torch's chainable form (the
// current lr times gamma at every boundary), never the closed form; OneCycleLR interpolates phase by
// phase from float phase ends. The warm-up lambdas are transformers' get_*_schedule_with_warmup, the
// ones users hand to LambdaLR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "randperm.hpp"

namespace accel {

// LambdaLR with f(s) = s / max(1, w) while s < w, then max(0, (t - s) / max(1, t - w)).
struct LinearWarmupSchedule {
  double base_lr = 0.0;
  std::int64_t warmup_steps = 0;
  std::int64_t training_steps = 0;
};

// LambdaLR with the same warm-up, then max(0, (1 + cos(pi * 2 * num_cycles * progress)) / 2).
struct CosineWarmupSchedule {
  double base_lr = 0.0;
  std::int64_t warmup_steps = 0;
  std::int64_t training_steps = 0;
  double num_cycles = 0.5;
};

// LambdaLR with the same warm-up, then 1.
struct ConstantWarmupSchedule {
  double base_lr = 0.0;
  std::int64_t warmup_steps = 0;
};

// StepLR(step_size, gamma).
struct StepSchedule {
  double base_lr = 0.0;
  std::int64_t step_size = 1;
  double gamma = 0.1;
};

// OneCycleLR(anneal_strategy="linear", cycle_momentum=False, three_phase=False). The optimizer's own lr
// is overwritten with max_lr / div_factor, so it has no base_lr.
struct OneCycleLinearSchedule {
  double max_lr = 0.0;
  std::int64_t total_steps = 1;
  double pct_start = 0.3;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  // Only the overrun message differs: torch 1.13 counts the failing step from 1, torch 2 from 0.
  TorchVersion torch_version = TorchVersion::v2_6;
};

using ScheduleSpec = std::variant<LinearWarmupSchedule, CosineWarmupSchedule, ConstantWarmupSchedule, StepSchedule,
                                  OneCycleLinearSchedule>;

// torch's class name for a spec (the `where` of its constructor errors).
std::string scheduler_class_name(const ScheduleSpec& spec);

class LRScheduler {
 public:
  // Builds the scheduler and takes torch's construction-time step (last_epoch -1 -> 0, _step_count 0 -> 1).
  // Raises AccelerateError(ValueError) where torch's constructor raises (OneCycleLR's total_steps and
  // pct_start checks); a StepLR step_size < 1, which torch only trips over at its first real step
  // (ZeroDivisionError), is rejected here.
  explicit LRScheduler(ScheduleSpec spec);

  // scheduler.step(): _step_count and last_epoch advance first, then the new lr is computed. OneCycleLR
  // stepped past total_steps raises ValueError (where "scheduler.step") with both counters already
  // advanced and the lr left as it was, as torch leaves them.
  void step();

  // `scheduler._step_count += 1`, which AcceleratedScheduler does on accumulation steps when
  // GradientState.adjust_scheduler is set.
  void count_step() noexcept { ++step_count_; }

  std::int64_t last_epoch() const noexcept { return last_epoch_; }
  std::int64_t step_count() const noexcept { return step_count_; }
  double last_lr() const noexcept { return lr_; }
  // The `total_steps` attribute; only OneCycleLR has one, and AcceleratedScheduler looks for it.
  std::optional<std::int64_t> total_steps() const noexcept;
  const ScheduleSpec& spec() const noexcept { return spec_; }

 private:
  double next_lr() const;

  ScheduleSpec spec_;
  std::int64_t last_epoch_ = -1;
  std::int64_t step_count_ = 0;
  double lr_ = 0.0;
};

}  // namespace accel
