// The what-if's evaluation section: figures derived by hand from Accelerate's gather_for_metrics and the
// loaders' tails, on Accelerator configs as the CLI builds them.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/eval_metrics.hpp"
#include "trace/trace_json.hpp"

namespace accel::analysis {
namespace {

trace::MetricsCase accelerator_case(trace::Json config, bool use_gather_object = false,
                                    std::optional<std::int64_t> break_after = std::nullopt) {
  config["api"] = "accelerator";
  if (!config.contains("batch_size")) config["batch_size"] = 1;
  trace::MetricsCase m;
  m.loader = std::get<trace::LoaderCase>(trace::parse_config(config));
  m.use_gather_object = use_gather_object;
  m.break_after = break_after;
  return m;
}

bool has_fix(const EvalReport& r, const std::string& label) {
  return std::any_of(r.verified_fixes.begin(), r.verified_fixes.end(), [&](const EvalFix& f) { return f.label == label; });
}

TEST(Eval, SixtyFourRanksOverOneThousandAndOneSamplesAreExact) {
  // 1001 = 15 * 64 + 41: the 16th step is padded with 23 samples, and remainder = 1001 mod 64 = 41 cuts them.
  const EvalReport r = eval_report(accelerator_case({{"num_processes", 64}, {"dataset_len", 1001}}));
  EXPECT_TRUE(r.outcome.exact());
  EXPECT_EQ(r.outcome.steps, 16);
  EXPECT_EQ(r.outcome.metric_samples, 1001);
  EXPECT_EQ(r.outcome.metric_duplicates.count, 0);
  EXPECT_EQ(r.outcome.metric_missing.count, 0);
  EXPECT_EQ(r.outcome.gather_samples, 16 * 64);
  EXPECT_EQ(r.outcome.last_remainder, 41);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.verified_fixes.empty());
}

TEST(Eval, UndispatchedIterableKeepsItsPadding) {
  // IterableDatasetShard: steps of 2*3 samples, the second [6..9] + [0, 1]; remainder = 6 mod 3 = 0.
  const EvalReport r = eval_report(accelerator_case(
      {{"num_processes", 2}, {"dataset_len", 10}, {"batch_size", 3}, {"dataset_kind", "iterable"},
       {"accelerator", {{"dispatch_batches", false}}}}));
  EXPECT_FALSE(r.outcome.exact());
  EXPECT_EQ(r.outcome.metric_samples, 12);
  EXPECT_EQ(r.outcome.metric_duplicates.count, 2);
  EXPECT_EQ(r.outcome.metric_duplicates.ids.first_ids(100), (std::vector<SampleId>{0, 1}));
  EXPECT_EQ(r.outcome.metric_missing.count, 0);
  EXPECT_EQ(r.outcome.last_remainder, 0);
  EXPECT_TRUE(has_fix(r, "dispatch_batches=True"));
  EXPECT_TRUE(has_fix(r, "a map-style dataset (__len__ and __getitem__)"));
  // gather_object cuts nothing either: remainder 0 is the same on both paths.
  EXPECT_FALSE(has_fix(r, "gather_for_metrics(..., use_gather_object=True)"));
  for (const EvalFix& f : r.verified_fixes) EXPECT_TRUE(f.outcome.exact()) << f.label;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].code, "inexact-metrics");
  EXPECT_NE(r.warnings[0].message.find("--dispatch-batches"), std::string::npos);
}

TEST(Eval, UnevenBatchesLeaveRanksWaiting) {
  // 3 batches of 4 over 2 ranks, even_batches=False: rank 1 has nothing at step 1, rank 0 waits there.
  const EvalReport r = eval_report(accelerator_case(
      {{"num_processes", 2}, {"dataset_len", 10}, {"batch_size", 4}, {"accelerator", {{"even_batches", false}}}}));
  EXPECT_EQ(r.outcome.steps, 1);
  ASSERT_TRUE(r.outcome.failure);
  EXPECT_EQ(r.outcome.failure_step, 1);
  EXPECT_EQ(r.outcome.metric_missing.ids.first_ids(100), (std::vector<SampleId>{8, 9}));
  EXPECT_TRUE(has_fix(r, "even_batches=True"));
}

TEST(Eval, TinyDispatchedTailNeedsGatherObject) {
  // One sample over 4 ranks: the batch [0] + first_batch [0] is sliced 1 per rank: [0], [0], [], [].
  const auto m = accelerator_case({{"num_processes", 4}, {"dataset_len", 1}, {"accelerator", {{"dispatch_batches", true}}}});
  const EvalReport r = eval_report(m);
  ASSERT_TRUE(r.outcome.failure);
  EXPECT_EQ(r.outcome.failure_step, 0);
  EXPECT_TRUE(has_fix(r, "gather_for_metrics(..., use_gather_object=True)"));
  const EvalOutcome fixed = evaluate(accelerator_case(
      {{"num_processes", 4}, {"dataset_len", 1}, {"accelerator", {{"dispatch_batches", true}}}}, true));
  EXPECT_TRUE(fixed.exact());
  EXPECT_EQ(fixed.metric_samples, 1);
}

TEST(Eval, DropLastLeavesTheRemainderUnknown) {
  const EvalReport r = eval_report(accelerator_case(
      {{"num_processes", 2}, {"dataset_len", 10}, {"batch_size", 4}, {"drop_last", true}}));
  EXPECT_TRUE(r.outcome.remainder_unknown);
  EXPECT_EQ(r.outcome.metric_samples, 8);
  EXPECT_EQ(r.outcome.metric_missing.ids.first_ids(100), (std::vector<SampleId>{8, 9}));
  EXPECT_TRUE(has_fix(r, "drop_last=False"));
}

TEST(Eval, BreakingEarlyMissesTheRest) {
  const EvalReport r = eval_report(accelerator_case({{"num_processes", 2}, {"dataset_len", 10}, {"batch_size", 3}},
                                                    false, 1));
  EXPECT_EQ(r.outcome.metric_samples, 6);
  EXPECT_EQ(r.outcome.metric_missing.count, 4);
  EXPECT_EQ(r.verified_fixes.size(), 1u);
}

}  // namespace
}  // namespace accel::analysis
