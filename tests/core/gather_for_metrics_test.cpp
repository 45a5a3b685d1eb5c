// gather_for_metrics / gather on hand-built steps: the branches of Accelerator.gather_for_metrics
// (end_of_dataloader, remainder -1 / 0 / > 0, use_gather_object) and the unequal-size refusal.
#include "core/gather_for_metrics.hpp"

#include <gtest/gtest.h>

namespace accel {
namespace {

// Two ranks of a map loader with even_batches on its last step: rank 1's batch is padding (0, 1).
const std::vector<Batch> kPaddedLastStep = {{8, 9}, {0, 1}};

TEST(GatherForMetrics, BeforeTheEndReturnsEverything) {
  const auto g = gather_for_metrics(kPaddedLastStep, /*end_of_dataloader=*/false, 2, false, true);
  EXPECT_EQ(g.ids, (Batch{8, 9, 0, 1}));
  EXPECT_FALSE(g.logged_no_length);
}

TEST(GatherForMetrics, AtTheEndCutsToTheRemainder) {
  const auto g = gather_for_metrics(kPaddedLastStep, true, 2, false, true);
  EXPECT_EQ(g.ids, (Batch{8, 9}));
  const auto o = gather_for_metrics(kPaddedLastStep, true, 2, /*use_gather_object=*/true, true);
  EXPECT_EQ(o.ids, (Batch{8, 9}));
}

TEST(GatherForMetrics, RemainderZeroKeepsEverything) {
  EXPECT_EQ(gather_for_metrics(kPaddedLastStep, true, 0, false, true).ids, (Batch{8, 9, 0, 1}));
}

TEST(GatherForMetrics, UnknownRemainderKeepsEverythingAndLogsOnTheMainProcessOnly) {
  const auto main = gather_for_metrics(kPaddedLastStep, true, -1, false, true);
  EXPECT_EQ(main.ids, (Batch{8, 9, 0, 1}));
  EXPECT_TRUE(main.logged_no_length);
  EXPECT_FALSE(gather_for_metrics(kPaddedLastStep, true, -1, false, false).logged_no_length);
}

TEST(GatherForMetrics, RemainderPastTheEndKeepsEverything) {
  EXPECT_EQ(gather_for_metrics({{3}, {4}}, true, 7, false, true).ids, (Batch{3, 4}));
}

TEST(GatherForMetrics, UnequalSizesOnlyWithGatherObject) {
  const std::vector<Batch> ragged = {{4, 5}, {6}, {}};
  const auto t = gather_for_metrics(ragged, true, 3, false, true);
  EXPECT_FALSE(t.ids);
  ASSERT_TRUE(t.unequal_sizes);
  EXPECT_EQ(*t.unequal_sizes, "batch sizes per rank [2, 1, 0]: gloo's all_gather needs the same size on every rank");
  EXPECT_EQ(gather_for_metrics(ragged, true, 3, true, true).ids, (Batch{4, 5, 6}));
  EXPECT_FALSE(gather(ragged).ids);
  EXPECT_EQ(gather({{1, 2}, {3, 4}}).ids, (Batch{1, 2, 3, 4}));
}

}  // namespace
}  // namespace accel
