// The resume what-if on sequential samplers, where what each rank trains on follows by hand from
// BatchSamplerShard (rank r of R takes batch r of every R consecutive batches): the extra and missing
// ids, the recipe it proposes and that the recipe is verified.
#include <gtest/gtest.h>

#include "analysis/resume_what_if.hpp"
#include "trace/resume_json.hpp"

namespace {

using accel::analysis::resume_what_if;
using accel::trace::Json;

accel::trace::ResumeCase sequential(int ranks, int len, int batch, int epochs, int e, int s, const char* mode) {
  Json c = {{"api", "resume"}, {"dataset_len", len}, {"batch_size", batch}, {"num_processes", ranks},
            {"multiprocess", true}, {"epochs", epochs},
            {"resume", {{"epoch", e}, {"step", s}, {"with", mode}, {"loop_set_epoch", false}}}};
  if (std::string(mode) == "stateful") c["accelerator"] = {{"use_stateful_dataloader", true}};
  return accel::trace::parse_resume_config(c);
}

TEST(ResumeWhatIf, NothingSkippedRepeatsTheBatchesBeforeTheCheckpoint) {
  // 2 ranks, batches of 2: steps 0 and 1 trained ids 0-7 before the checkpoint.
  const auto r = resume_what_if(sequential(2, 20, 2, 1, 0, 2, "none"));
  EXPECT_FALSE(r.outcome.identical);
  EXPECT_EQ(r.outcome.extra.count, 8);
  EXPECT_EQ(r.outcome.extra.first.first_ids(100), (std::vector<accel::SampleId>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.outcome.missing.count, 0);
  ASSERT_TRUE(r.recipe.found);
  ASSERT_EQ(r.recipe.changes.size(), 1u);
  EXPECT_EQ(r.recipe.changes[0].flag, "--resume-with skip_first_batches");
}

TEST(ResumeWhatIf, SkippingOnMoreRanksSkipsMoreSamples) {
  // 8 samples seen (2 steps x 2 ranks x 2); 3 ranks skip 2 steps of 6: ids 8-11 are never trained on, and
  // 8 is not a whole number of the new global batches, so only the original shape fixes it.
  auto c = sequential(2, 24, 2, 1, 0, 2, "skip_first_batches");
  c.resume.resume_ranks = 3;
  const auto r = resume_what_if(c);
  EXPECT_FALSE(r.outcome.same_shape);
  EXPECT_FALSE(r.outcome.identical);
  EXPECT_EQ(r.outcome.extra.count, 0);
  EXPECT_EQ(r.outcome.missing.count, 4);
  EXPECT_EQ(r.outcome.missing.first.first_ids(100), (std::vector<accel::SampleId>{8, 9, 10, 11}));
  ASSERT_TRUE(r.recipe.found);
  EXPECT_EQ(r.recipe.changes.back().flag, "drop --resume-ranks / --resume-batch-size");
}

TEST(ResumeWhatIf, ASkipCountInNewGlobalBatchesWhenItDivides) {
  // 8 samples seen; 4 ranks x 2 = 8 per step: skip 1 step, not 2.
  auto c = sequential(2, 24, 2, 1, 0, 2, "skip_first_batches");
  c.resume.resume_ranks = 4;
  const auto r = resume_what_if(c);
  EXPECT_EQ(r.outcome.missing.count, 8);
  ASSERT_TRUE(r.recipe.found);
  ASSERT_EQ(r.recipe.changes.size(), 1u);
  EXPECT_EQ(r.recipe.changes[0].flag, "--resume-skip 1");
  c.resume.skip = 1;
  EXPECT_TRUE(resume_what_if(c).outcome.identical);  // the recipe, applied by hand
}

TEST(ResumeWhatIf, SequentialStatefulResumeNeedsNothing) {
  const auto r = resume_what_if(sequential(3, 23, 3, 3, 1, 2, "stateful"));
  EXPECT_TRUE(r.outcome.identical);
  EXPECT_FALSE(r.recipe.needed);
  EXPECT_TRUE(r.reasons.empty());
  EXPECT_EQ(r.outcome.epochs.size(), 2u);
}

TEST(ResumeWhatIf, OptimizerStepToEpochAndStep) {
  // 4 optimizer steps of 2 micro-batches = 8 batches; 5 per epoch: epoch 1, batch 3.
  EXPECT_EQ(accel::analysis::epoch_and_step_of(4, 2, 5), (std::pair<std::int64_t, std::int64_t>{1, 3}));
  EXPECT_EQ(accel::analysis::epoch_and_step_of(5, 1, 5), (std::pair<std::int64_t, std::int64_t>{1, 0}));
}

}  // namespace
