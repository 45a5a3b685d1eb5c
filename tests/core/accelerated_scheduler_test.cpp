// AcceleratedScheduler.step()'s rules (Accelerate 1.15, accelerate/scheduler.py). Expected values come
// from the rule and torch's formulas written out here, not from running the implementation.
#include <gtest/gtest.h>

#include "core/accelerated_scheduler.hpp"
#include "core/accumulate.hpp"
#include "core/error.hpp"

namespace accel {
namespace {

double linear_lambda(std::int64_t s, std::int64_t w, std::int64_t t) {
  if (s < w) return double(s) / double(std::max<std::int64_t>(1, w));
  return std::max(0.0, double(t - s) / double(std::max<std::int64_t>(1, t - w)));
}

AcceleratedScheduler linear(std::int64_t num_processes, bool split_batches) {
  return AcceleratedScheduler(LRScheduler(LinearWarmupSchedule{0.1, 3, 30}),
                              {.step_with_optimizer = true, .split_batches = split_batches, .num_processes = num_processes});
}

TEST(AcceleratedScheduler, EachOptimizerStepStepsTheSchedulerNumProcessesTimes) {
  for (std::int64_t n : {1, 2, 3, 4, 8}) {
    AcceleratedScheduler s = linear(n, false);
    GradientState state;
    AcceleratedOptimizer opt;
    for (std::int64_t step = 1; step <= 3; ++step) {
      EXPECT_EQ(s.step(state, opt), n);
      EXPECT_EQ(s.scheduler().last_epoch(), step * n);
      EXPECT_EQ(s.scheduler().step_count(), 1 + step * n);
      EXPECT_EQ(s.scheduler().last_lr(), 0.1 * linear_lambda(step * n, 3, 30));
    }
    EXPECT_EQ(s.steps_per_optimizer_step(), n);
  }
}

TEST(AcceleratedScheduler, SplitBatchesStepsOncePerOptimizerStep) {
  AcceleratedScheduler s = linear(4, true);
  GradientState state;
  AcceleratedOptimizer opt;
  for (std::int64_t step = 1; step <= 5; ++step) {
    EXPECT_EQ(s.step(state, opt), 1);
    EXPECT_EQ(s.scheduler().last_epoch(), step);
    EXPECT_EQ(s.scheduler().last_lr(), 0.1 * linear_lambda(step, 3, 30));
  }
  EXPECT_EQ(s.steps_per_optimizer_step(), 1);
}

TEST(AcceleratedScheduler, NoMovementDuringAccumulation) {
  // K = 4 over 8 plain micro-steps on 2 processes: only micro-steps 3 and 7 sync, each stepping twice.
  AcceleratedScheduler s = linear(2, false);
  GradientState state = GradientState::from_plugin({.num_steps = 4});
  Accumulator acc;
  AcceleratedOptimizer opt;
  for (std::int64_t micro = 0; micro < 8; ++micro) {
    const bool sync = acc.do_sync(state);
    opt.step(state);
    const std::int64_t calls = s.step(state, opt);
    EXPECT_EQ(sync, micro % 4 == 3);
    EXPECT_EQ(calls, sync ? 2 : 0);
    const std::int64_t optimizer_steps = (micro + 1) / 4;
    EXPECT_EQ(s.scheduler().last_epoch(), 2 * optimizer_steps);
    EXPECT_EQ(s.scheduler().step_count(), 1 + 2 * optimizer_steps);  // adjust_scheduler is False here
    EXPECT_EQ(s.scheduler().last_lr(), 0.1 * linear_lambda(2 * optimizer_steps, 3, 30));
  }
}

TEST(AcceleratedScheduler, AdjustSchedulerOnlyCountsAccumulationSteps) {
  AcceleratedScheduler s = linear(2, false);
  GradientState state(GradientState::Settings{.adjust_scheduler = true});
  AcceleratedOptimizer opt;
  state.set_sync_gradients(false);
  EXPECT_EQ(s.step(state, opt), 0);
  EXPECT_EQ(s.step(state, opt), 0);
  EXPECT_EQ(s.scheduler().last_epoch(), 0);
  EXPECT_EQ(s.scheduler().step_count(), 3);
  EXPECT_EQ(s.scheduler().last_lr(), 0.0);
}

TEST(AcceleratedScheduler, ASkippedOptimizerStepLeavesTheLrUnchanged) {
  AcceleratedScheduler s = linear(2, false);
  GradientState state;
  AcceleratedOptimizer opt(/*has_scaler=*/true);
  opt.step(state);
  s.step(state, opt);
  const double lr = s.scheduler().last_lr();
  EXPECT_EQ(lr, 0.1 * linear_lambda(2, 3, 30));
  opt.step(state, /*found_inf=*/true);
  EXPECT_EQ(s.step(state, opt), 0);
  EXPECT_EQ(s.scheduler().last_lr(), lr);
  EXPECT_EQ(s.scheduler().last_epoch(), 2);
  EXPECT_EQ(s.scheduler().step_count(), 3);
  // Any of several optimizers being skipped is enough.
  const AcceleratedOptimizer both[] = {AcceleratedOptimizer(), opt};
  EXPECT_EQ(s.step(state, both), 0);
}

TEST(AcceleratedScheduler, WithoutStepWithOptimizerEveryCallStepsOnce) {
  AcceleratedScheduler s(LRScheduler(LinearWarmupSchedule{0.1, 3, 30}),
                         {.step_with_optimizer = false, .split_batches = false, .num_processes = 4});
  GradientState state;
  state.set_sync_gradients(false);
  AcceleratedOptimizer opt(true);
  opt.set_step_was_skipped(true);
  EXPECT_EQ(s.step(state, opt), 1);
  EXPECT_EQ(s.scheduler().last_epoch(), 1);
}

TEST(AcceleratedScheduler, OneCycleGuardNeverStepsPastTotalSteps) {
  // total_steps = 12 on 4 processes: _step_count goes 1 -> 13 in three optimizer steps, then the guard
  // (_step_count <= total_steps) lets no more through; last_epoch stops at total_steps.
  AcceleratedScheduler s(LRScheduler(OneCycleLinearSchedule{1.0, 12, 0.25, 25.0, 1e4}), {.num_processes = 4});
  GradientState state;
  AcceleratedOptimizer opt;
  for (int step = 0; step < 10; ++step) EXPECT_NO_THROW(s.step(state, opt));
  EXPECT_EQ(s.scheduler().last_epoch(), 12);
  EXPECT_EQ(s.scheduler().step_count(), 13);
  // On 5 processes the guard cuts an optimizer step short: 1 + 5 + 5 = 11, then 2 more reach 13.
  AcceleratedScheduler five(LRScheduler(OneCycleLinearSchedule{1.0, 12, 0.25, 25.0, 1e4}), {.num_processes = 5});
  EXPECT_EQ(five.step(state, opt), 5);
  EXPECT_EQ(five.step(state, opt), 5);
  EXPECT_EQ(five.step(state, opt), 2);
  EXPECT_EQ(five.step(state, opt), 0);
  EXPECT_EQ(five.scheduler().last_epoch(), 12);
}

TEST(AcceleratedScheduler, SplitBatchesHasNoGuardAndTorchRaisesOnOverrun) {
  AcceleratedScheduler s(LRScheduler(OneCycleLinearSchedule{1.0, 12, 0.25, 25.0, 1e4}),
                         {.split_batches = true, .num_processes = 2});
  GradientState state;
  AcceleratedOptimizer opt;
  for (int step = 0; step < 12; ++step) s.step(state, opt);  // last_epoch 12 == total_steps is allowed
  EXPECT_EQ(s.scheduler().last_epoch(), 12);
  try {
    s.step(state, opt);
    FAIL() << "expected torch's ValueError";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::ValueError);
    EXPECT_EQ(e.where(), "scheduler.step");
    EXPECT_EQ(e.message(), "Tried to step 13 times. The specified number of total steps is 12");  // torch >= 2 counts from 0
  }
}

}  // namespace
}  // namespace accel
