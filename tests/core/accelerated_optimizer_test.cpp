// AcceleratedOptimizer: steps only when syncing; a scaler overflow is a skipped step.
#include <gtest/gtest.h>

#include "core/accelerated_optimizer.hpp"

namespace accel {
namespace {

TEST(AcceleratedOptimizer, StepsAndZeroesOnlyWhenSyncing) {
  GradientState state;
  AcceleratedOptimizer opt;
  state.set_sync_gradients(false);
  opt.step(state);
  opt.zero_grad(state);
  EXPECT_EQ(opt.optimizer_steps(), 0);
  EXPECT_EQ(opt.zero_grads(), 0);
  state.set_sync_gradients(true);
  opt.step(state, /*found_inf=*/true);  // no scaler: nothing looks for overflows
  opt.zero_grad(state);
  EXPECT_EQ(opt.optimizer_steps(), 1);
  EXPECT_EQ(opt.zero_grads(), 1);
  EXPECT_FALSE(opt.step_was_skipped());
}

TEST(AcceleratedOptimizer, ScalerOverflowSkipsAndTheFlagIsStaleDuringAccumulation) {
  GradientState state;
  AcceleratedOptimizer opt(/*has_scaler=*/true);
  opt.step(state, true);
  EXPECT_TRUE(opt.step_was_skipped());
  EXPECT_EQ(opt.skipped_steps(), 1);
  state.set_sync_gradients(false);
  opt.step(state, false);  // accumulation: the scaler is not consulted, the flag keeps its value
  EXPECT_TRUE(opt.step_was_skipped());
  state.set_sync_gradients(true);
  opt.step(state, false);
  EXPECT_FALSE(opt.step_was_skipped());
  EXPECT_EQ(opt.optimizer_steps(), 2);
  EXPECT_EQ(opt.skipped_steps(), 1);
}

TEST(AcceleratedOptimizer, AnInjectedOverflowCountsOnlyOnSyncingSteps) {
  GradientState state;
  AcceleratedOptimizer opt;
  opt.step(state);
  opt.set_step_was_skipped(true);
  EXPECT_EQ(opt.skipped_steps(), 1);
  state.set_sync_gradients(false);
  opt.step(state);
  opt.set_step_was_skipped(true);
  EXPECT_EQ(opt.skipped_steps(), 1);
}

}  // namespace
}  // namespace accel
