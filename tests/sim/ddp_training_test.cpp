// The DDP training loop's collectives: where uneven ranks block, what join_uneven_inputs and gradient
// accumulation change, and that the prediction agrees with the what-if's lock-step analysis.
#include "sim/ddp_training.hpp"

#include <gtest/gtest.h>

#include "sim/simulator.hpp"

#include "tests/support/loader_configs.hpp"

namespace accel::sim {
namespace {

using testing::map_case;

trace::LoaderCase uneven(std::int64_t ranks, std::int64_t len, std::int64_t batch) {
  trace::LoaderCase c = map_case(ranks, len, batch);
  c.prepare.even_batches = false;
  return c;
}

TEST(DdpTraining, UnevenRanksBlockInTheGradientAllReduceOfTheShortRanksMissingStep) {
  // 10 samples in batches of 2 over 3 ranks: ranks 0-1 get 2 batches, rank 2 one.
  const auto ranks = simulate_training_ranks(uneven(3, 10, 2), {});
  const TrainingVerdict v = training_verdict(ranks);
  EXPECT_FALSE(v.completed);
  EXPECT_EQ(v.waiting_ranks, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(v.finished_ranks, (std::vector<std::int64_t>{2}));
  ASSERT_TRUE(v.hang);
  EXPECT_EQ(v.hang->epoch, 0);
  EXPECT_EQ(v.hang->step, 1);
  EXPECT_EQ(v.hang->collective, "gradient all_reduce");
  EXPECT_EQ(v.hang->missing_ranks, (std::vector<std::int64_t>{2}));
  EXPECT_NE(describe(v, ranks).find("ranks 0, 1 wait forever in the gradient all_reduce at epoch 0 step 1; rank 2 "
                                    "finished its loop after 1 micro-step"),
            std::string::npos)
      << describe(v, ranks);
}

TEST(DdpTraining, EvenBatchesKeepEveryRankInStep) {
  const auto ranks = simulate_training_ranks(map_case(3, 10, 2), {});
  const TrainingVerdict v = training_verdict(ranks);
  EXPECT_TRUE(v.completed);
  EXPECT_FALSE(v.out_of_step);
  for (const auto& r : ranks) EXPECT_EQ(r.gradient_all_reduces, 2);
}

TEST(DdpTraining, JoinUnevenInputsLetsTheShortRankShadowUntilAllJoin) {
  TrainingLoop loop;
  loop.join_uneven_inputs = true;
  const auto ranks = simulate_training_ranks(uneven(3, 10, 2), loop);
  const TrainingVerdict v = training_verdict(ranks);
  EXPECT_TRUE(v.completed) << describe(v, ranks);
  EXPECT_EQ(ranks[2].shadowed_all_reduces, 1);
  EXPECT_EQ(ranks[0].gradient_all_reduces, 2);
}

TEST(DdpTraining, JoinIsDisabledWhileEvenBatchesIsTrueAsAccelerateDoes) {
  // Accelerator.join_uneven_inputs: enable_join = not even_batches (the override, else the Accelerator's).
  TrainingLoop loop;
  loop.join_uneven_inputs = true;
  EXPECT_FALSE(join_enabled(map_case(3, 10, 2), loop));
  EXPECT_TRUE(join_enabled(uneven(3, 10, 2), loop));
  loop.join_even_batches = false;
  EXPECT_TRUE(join_enabled(map_case(3, 10, 2), loop));
  EXPECT_FALSE(loader_under_loop(map_case(3, 10, 2), loop).prepare.even_batches);
  loop.join_even_batches = true;
  EXPECT_FALSE(join_enabled(uneven(3, 10, 2), loop));
  // Accelerator.multi_device: on MULTI_CPU join_uneven_inputs does nothing, the override included.
  loop.join_even_batches = false;
  loop.multi_device = false;
  EXPECT_FALSE(join_enabled(uneven(3, 10, 2), loop));
  EXPECT_TRUE(loader_under_loop(map_case(3, 10, 2), loop).prepare.even_batches);
  EXPECT_FALSE(training_verdict(simulate_training_ranks(uneven(3, 10, 2), loop)).completed);
  loop.multi_device = true;
  loop.join_even_batches = true;
  EXPECT_TRUE(simulate_training_ranks(uneven(3, 10, 2), loop).size() == 3);
  EXPECT_TRUE(training_verdict(simulate_training_ranks(uneven(3, 10, 2), loop)).completed);
}

TEST(DdpTraining, AccumulationCanPairDifferentStepsInsteadOfHanging) {
  // With 2 accumulation steps rank 2 syncs on its only (last) batch, ranks 0-1 on their second: one
  // gradient all_reduce each, so nothing blocks, but the all_reduce averages step 0 with step 1.
  TrainingLoop loop;
  loop.gradient_accumulation_steps = 2;
  const auto ranks = simulate_training_ranks(uneven(3, 10, 2), loop);
  const TrainingVerdict v = training_verdict(ranks);
  EXPECT_TRUE(v.completed);
  ASSERT_TRUE(v.out_of_step);
  EXPECT_EQ(v.out_of_step->epoch, 0);
}

TEST(DdpTraining, SyncEachBatchAllReducesEveryMicroStep) {
  TrainingLoop loop;
  loop.gradient_accumulation_steps = 2;
  loop.sync_each_batch = true;
  const auto ranks = simulate_training_ranks(uneven(3, 10, 2), loop);
  const TrainingVerdict v = training_verdict(ranks);
  EXPECT_FALSE(v.completed);
  ASSERT_TRUE(v.hang);
  EXPECT_EQ(v.hang->step, 1);
  EXPECT_EQ(ranks[0].optimizer_steps, 0);  // blocked before its sync step completed
}

TEST(DdpTraining, PredictionAgreesWithTheLockstepAnalysisWithoutAccumulation) {
  for (std::int64_t R : {2, 3, 5, 8}) {
    for (std::int64_t len : {7, 10, 23, 41}) {
      for (std::int64_t b : {1, 2, 3}) {
        const trace::LoaderCase c = uneven(R, len, b);
        const TrainingVerdict v = training_verdict(simulate_training_ranks(c, {}));
        const auto lock = simulate_lockstep(c);
        std::vector<std::int64_t> hung;
        std::optional<std::int64_t> step;
        for (const auto& r : lock) {
          if (r.hang) {
            hung.push_back(r.rank);
            step = r.hang_step;
          }
        }
        EXPECT_EQ(v.waiting_ranks, hung) << R << " " << len << " " << b;
        if (v.hang) {
          EXPECT_EQ(v.hang->step, step.value_or(-1)) << R << " " << len << " " << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace accel::sim
