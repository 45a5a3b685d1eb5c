// core/trainer_evaluation and core/numpy_mean. Expected values are the real library's: numpy 1.24 (the reference
// venv) for the means, and the golden/cases-trainer-eval recordings (transformers 5.25 on gloo) for the loops.
#include "core/trainer_evaluation.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/numpy_mean.hpp"

namespace accel {
namespace {

TEST(NumpyMean, PairwiseSumAsNumpyAddsFloat32) {
  // np.full(300, np.float32(1)/np.float32(3)).sum() == 100.0; a running float32 sum drifts away from it.
  const std::vector<float> third(300, 1.0f / 3.0f);
  EXPECT_EQ(numpy_float32_sum(third), 100.0f);
  float running = 0;
  for (float v : third) running += v;
  EXPECT_NE(running, 100.0f);
  // (np.arange(1000, dtype=np.float32) * np.float32(0.1)).mean() == 49.95000076293945
  std::vector<float> tenths;
  for (int i = 0; i < 1000; ++i) tenths.push_back(static_cast<float>(i) * 0.1f);
  EXPECT_EQ(static_cast<double>(*numpy_float32_mean(tenths)), 49.95000076293945);
  EXPECT_FALSE(numpy_float32_mean({}).has_value());
}

std::vector<EvaluationStep> loop(std::vector<Batch> batches, std::int64_t remainder) {
  std::vector<EvaluationStep> out;
  for (std::size_t i = 0; i < batches.size(); ++i) out.push_back({batches[i], i + 1 == batches.size(), remainder});
  return out;
}

TEST(TrainerEvaluation, PaddedLastRoundBiasesEvalLoss) {
  // trainer-eval-v5.25-r2-n10-b4: predictions exact, eval_loss 3.7 instead of 4.5.
  const auto r = evaluation_loop({loop({{0, 1, 2, 3}, {8, 9, 0, 1}}, 2), loop({{4, 5, 6, 7}, {2, 3, 4, 5}}, 2)},
                                 {4, true, true, false});
  for (const auto& rank : r) {
    ASSERT_FALSE(rank.failure);
    EXPECT_EQ(rank.losses->rows.front(), (std::vector<float>{1.5, 1.5, 1.5, 1.5, 5.5, 5.5, 5.5, 5.5, 4.5, 4.5}));
    EXPECT_EQ(rank.predictions->rows.front(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(static_cast<double>(*rank.eval_loss), 3.700000047683716);
  }
}

TEST(TrainerEvaluation, WithoutComputeMetricsOnlyLossesAreGathered) {
  // trainer-eval-v5.25-r2-n14-b4-uneven-lossonly: unequal last batches, loss-only, exact 6.5.
  const auto r = evaluation_loop({loop({{0, 1, 2, 3}, {8, 9, 10, 11}}, 6), loop({{4, 5, 6, 7}, {12, 13}}, 6)},
                                 {4, false, true, false});
  for (const auto& rank : r) {
    ASSERT_FALSE(rank.failure);
    EXPECT_FALSE(rank.predictions);
    EXPECT_EQ(*rank.eval_loss, 6.5f);
  }
}

TEST(TrainerEvaluation, UnequalLogitsAbortTheRankThatReceivesMore) {
  // trainer-eval-v5.25-r2-n14-b4-uneven: rank 1 (2 logits) aborts on rank 0's 8-byte half, rank 0 reads a reset.
  const auto r = evaluation_loop({loop({{0, 1, 2, 3}, {8, 9, 10, 11}}, 6), loop({{4, 5, 6, 7}, {12, 13}}, 6)},
                                 {4, true, true, false});
  ASSERT_TRUE(r[0].failure && r[1].failure);
  EXPECT_EQ(r[0].failure->type, "RuntimeError");
  EXPECT_EQ(r[1].failure->type, "Crash");
  EXPECT_NE(r[1].failure->message.find("op.preamble.length <= op.nbytes. 8 vs 4."), std::string::npos);
  EXPECT_EQ(r[1].batches.size(), 2u);  // the batch it stopped at is kept
  EXPECT_FALSE(r[0].losses);
}

TEST(TrainerEvaluation, ARankWithAnExtraBatchWaitsWhileTheOthersReturnATruncatedResult) {
  // trainer-eval-v5.25-r2-n6-b2-uneven: rank 1 ends at step 0 and keeps remainder 2 of 4 values.
  std::vector<EvaluationStep> rank0{{{0, 1}, false, -1}, {{4, 5}, true, 2}};
  const auto r = evaluation_loop({rank0, loop({{2, 3}}, 2)}, {2, true, true, false});
  EXPECT_EQ(r[0].failure->type, "Hang");
  EXPECT_EQ(r[0].batches.size(), 2u);
  ASSERT_FALSE(r[1].failure);
  EXPECT_EQ(r[1].losses->rows.front(), (std::vector<float>{0.5, 0.5}));
  EXPECT_EQ(r[1].predictions->rows.front(), (std::vector<std::int64_t>{0, 1}));
}

TEST(TrainerEvaluation, GatherObjectPairsStepsElementByElement) {
  // trainer-eval-v5.25-r2-n10-b4-gatherobject-x2, first call: 2 lists of 2 survive the zip.
  const auto r = evaluation_loop({loop({{0, 1, 2, 3}, {8, 9, 0, 1}}, 2), loop({{4, 5, 6, 7}, {2, 3, 4, 5}}, 2)},
                                 {4, true, true, true});
  ASSERT_FALSE(r[0].failure);
  EXPECT_TRUE(r[0].losses->nested);
  EXPECT_EQ(r[0].losses->rows, (std::vector<std::vector<float>>{{1.5, 4.5}, {1.5, 4.5}}));
  EXPECT_EQ(r[0].predictions->rows, (std::vector<std::vector<std::int64_t>>{{0, 8}, {1, 9}}));
  EXPECT_EQ(*r[0].eval_loss, 3.0f);
  // One step leaves 0-d arrays that np.concatenate refuses (trainer-eval-v5.25-r2-n3-b2-gatherobject).
  const auto one = evaluation_loop({loop({{0, 1}}, 3), loop({{2, 0}}, 3)}, {2, true, true, true});
  EXPECT_EQ(one[0].failure->type, "ValueError");
  EXPECT_EQ(one[0].failure->message, "zero-dimensional arrays cannot be concatenated");
}

TEST(TrainerEvaluation, WithoutConcatEveryStepIsItsOwnArray) {
  const auto r = evaluation_loop({loop({{0, 1, 2}, {9, 0, 1}}, 1), loop({{3, 4, 5}, {2, 3, 4}}, 1),
                                  loop({{6, 7, 8}, {5, 6, 7}}, 1)},
                                 {3, true, false, false});
  ASSERT_FALSE(r[0].failure);
  EXPECT_TRUE(r[0].predictions->nested);
  EXPECT_EQ(r[0].predictions->rows, (std::vector<std::vector<std::int64_t>>{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {9}}));
  EXPECT_EQ(r[0].losses->rows.back(), (std::vector<float>{batch_loss({9, 0, 1})}));
}

TEST(TrainerEvaluation, ReleasesSeedTheEvalLengthGroupedSamplerDifferently) {
  EXPECT_TRUE(seeds_eval_length_grouped_sampler(TransformersRelease::v5_25));
  EXPECT_FALSE(seeds_eval_length_grouped_sampler(TransformersRelease::v4_57));
}

}  // namespace
}  // namespace accel
