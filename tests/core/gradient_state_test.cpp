// GradientState's settings as GradientAccumulationPlugin hands them over, and the dataloader it follows.
#include <gtest/gtest.h>

#include "core/gradient_state.hpp"

namespace accel {
namespace {

TEST(GradientState, PluginDefaultsAreDroppedAndGradientStateDefaultsApply) {
  // GradientAccumulationPlugin(num_steps=4): adjust_scheduler=True is the plugin default, dropped by
  // to_kwargs(), and GradientState's own default for it is False.
  const GradientState s = GradientState::from_plugin({.num_steps = 4});
  EXPECT_EQ(s.num_steps(), 4);
  EXPECT_FALSE(s.adjust_scheduler());
  EXPECT_TRUE(s.sync_with_dataloader());
  EXPECT_FALSE(GradientState::from_plugin({.num_steps = 2, .adjust_scheduler = false}).adjust_scheduler());
  EXPECT_FALSE(GradientState::from_plugin({.num_steps = 2, .adjust_scheduler = true}).adjust_scheduler());
  EXPECT_FALSE(GradientState::from_plugin({.num_steps = 2, .sync_with_dataloader = false}).sync_with_dataloader());
  EXPECT_EQ(GradientState::from_plugin({}).num_steps(), 1);  // num_steps=None
  // Set directly, the True branch exists.
  EXPECT_TRUE(GradientState(GradientState::Settings{.adjust_scheduler = true}).adjust_scheduler());
}

TEST(GradientState, EndOfDataloaderFollowsTheInnermostActiveLoader) {
  GradientState s;
  EXPECT_TRUE(s.sync_gradients());
  EXPECT_FALSE(s.in_dataloader());
  EXPECT_FALSE(s.end_of_dataloader());
  EXPECT_EQ(s.remainder(), -1);
  s.begin_dataloader();
  s.update_dataloader(true, 3);
  EXPECT_TRUE(s.end_of_dataloader());
  EXPECT_EQ(s.remainder(), 3);
  s.begin_dataloader();  // an evaluation loader inside the training loop
  EXPECT_FALSE(s.end_of_dataloader());
  s.end_dataloader();
  EXPECT_TRUE(s.end_of_dataloader());
  s.end_dataloader();
  EXPECT_FALSE(s.end_of_dataloader());
}

}  // namespace
}  // namespace accel
