// core/trainer_loop against transformers' own arithmetic (trainer.py: set_initial_training_values,
// _init_training_state, the sync test in the loop), worked by hand for small shapes.
#include "core/trainer_loop.hpp"

#include <gtest/gtest.h>

namespace accel {
namespace {

std::vector<std::int64_t> step_sizes(const TrainerRun& run) {
  std::vector<std::int64_t> out;
  for (const auto& s : run.steps) out.push_back(static_cast<std::int64_t>(s.micro_batches.size()));
  return out;
}

TEST(TrainerLoop, ShortLastAccumulationStepPerEpoch) {
  // 7 batches per epoch, GA 3: ceil(7/3) = 3 updates, the last of 1 batch; 2 epochs.
  const TrainerSchedule s = trainer_schedule(7, {3, 2, -1});
  EXPECT_EQ(s.num_update_steps_per_epoch, 3);
  EXPECT_EQ(s.max_steps, 6);
  const TrainerRun run = run_trainer_loop(s, std::nullopt, [](std::int64_t, std::int64_t) { return 7; });
  EXPECT_EQ(step_sizes(run), (std::vector<std::int64_t>{3, 3, 1, 3, 3, 1}));
  EXPECT_TRUE(run.unsynced.empty());
  EXPECT_EQ(run.steps[3].micro_batches.front(), (MicroBatchRef{1, 0}));
}

TEST(TrainerLoop, MaxStepsCrossesEpochsAndStopsMidEpoch) {
  // 10 batches, GA 3 -> 4 updates per epoch; max_steps 7 -> ceil(7/4) = 2 epochs, stop after the 3rd of epoch 1.
  const TrainerSchedule s = trainer_schedule(10, {3, 1, 7});
  EXPECT_EQ(s.num_train_epochs, 2);
  const TrainerRun run = run_trainer_loop(s, std::nullopt, [](std::int64_t, std::int64_t) { return 10; });
  ASSERT_EQ(run.steps.size(), 7u);
  EXPECT_EQ(run.steps.back().micro_batches.back(), (MicroBatchRef{1, 8}));
}

TEST(TrainerLoop, ResumeSkipsWholeUpdatesOfItsOwnEpoch) {
  // nups 3, GA 3: global step 4 is epoch 1, (4 % 3) * 3 = 3 batches skipped; training goes on from step 5.
  const TrainerSchedule s = trainer_schedule(7, {3, 3, -1});
  const TrainerResumePosition p = resume_position(4, s, false);
  EXPECT_EQ(p.epochs_trained, 1);
  EXPECT_EQ(p.steps_trained_in_current_epoch, 3);
  const TrainerRun run = run_trainer_loop(s, p, [](std::int64_t, std::int64_t skip) { return 7 - skip; });
  ASSERT_FALSE(run.steps.empty());
  EXPECT_EQ(run.steps.front().global_step, 5);
  EXPECT_EQ(run.steps.front().micro_batches.front(), (MicroBatchRef{1, 3}));
  EXPECT_EQ(run.steps.back().global_step, 9);
}

TEST(TrainerLoop, IgnoreDataSkipRetrainsTheEpochHeadAndStopsAtMaxSteps) {
  const TrainerSchedule s = trainer_schedule(7, {3, 3, -1});
  const TrainerResumePosition p = resume_position(4, s, true);
  EXPECT_EQ(p.steps_trained_in_current_epoch, 0);
  const TrainerRun run = run_trainer_loop(s, p, [](std::int64_t, std::int64_t) { return 7; });
  EXPECT_EQ(run.steps.front().micro_batches.front(), (MicroBatchRef{1, 0}));
  EXPECT_EQ(run.steps.back().global_step, 9);  // max_steps: epoch 2's last updates are never trained
  EXPECT_EQ(run.steps.back().micro_batches.back(), (MicroBatchRef{2, 5}));
}

TEST(TrainerLoop, ReleaseRules) {
  EXPECT_TRUE(sets_epoch_before_skip(TransformersRelease::v4_57));
  EXPECT_FALSE(sets_epoch_before_skip(TransformersRelease::v5_25));
  EXPECT_TRUE(resume_fails_on_cpu_group(TransformersRelease::v4_57, 2));
  EXPECT_FALSE(resume_fails_on_cpu_group(TransformersRelease::v4_57, 1));
  EXPECT_FALSE(resume_fails_on_cpu_group(TransformersRelease::v5_25, 3));
  EXPECT_EQ(transformers_release_from_name("4.57"), TransformersRelease::v4_57);
  EXPECT_FALSE(transformers_release_from_name("4.40").has_value());
  // 5.24 is accepted, with 5.25's rules (recorded alike); 5.23 is not recorded.
  EXPECT_EQ(transformers_release_from_name("5.24"), TransformersRelease::v5_25);
  EXPECT_FALSE(transformers_release_from_name("5.23").has_value());
  EXPECT_NE(transformers_refusal("5.23").find("the nearest are 4.57 and 5.24"), std::string::npos);
  EXPECT_NE(transformers_refusal("6.0").find("the nearest is 5.25"), std::string::npos);
  EXPECT_NE(transformers_refusal("five").find("must be a transformers release"), std::string::npos);
}

}  // namespace
}  // namespace accel
