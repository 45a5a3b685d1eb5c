// The report model's newer parts: every pass (the direct path checked against replaying the whole job through
// the simulator), the coverage bins' exact counts (checked against counting every id), the timeline that keeps
// the ranks that wait and the steps where they do, and coded warnings.
#include <gtest/gtest.h>

#include "analysis/what_if.hpp"
#include "sim/simulator.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::analysis {
namespace {

using accel::testing::map_case;

trace::LoaderCase with_epochs(trace::LoaderCase c, std::int64_t epochs) {
  c.epochs = epochs;
  c.schedule.assign(static_cast<std::size_t>(epochs), trace::LoaderRole::Prepared);
  return c;
}

struct Counted {
  std::vector<std::int64_t> steps;
  std::int64_t duplicated = 0, dropped = 0;
};

// Pass e counted from the simulator's trace of the whole job, id by id.
Counted replayed(const trace::LoaderCase& c, std::int64_t e) {
  const trace::Trace t = sim::simulate(c);
  EXPECT_FALSE(t.error.has_value());
  Counted out;
  std::vector<std::int64_t> times(static_cast<std::size_t>(c.loader.dataset_len), 0);
  for (const auto& r : std::get<std::vector<trace::RankRecord>>(t.body)) {
    const auto& pass = r.epochs.at(static_cast<std::size_t>(e));
    out.steps.push_back(static_cast<std::int64_t>(pass.batches.size()));
    for (const auto& b : pass.batches) {
      for (SampleId id : b) ++times[static_cast<std::size_t>(id)];
    }
  }
  for (std::int64_t n : times) {
    if (n == 0) ++out.dropped;
    if (n > 1) out.duplicated += n - 1;
  }
  return out;
}

void expect_every_pass_matches_replay(const trace::LoaderCase& c, const std::string& what) {
  const Scenario first = analyze(c, "as configured", "");
  ASSERT_FALSE(first.rejected) << what;
  const PassesSummary p = every_pass(c, first);
  ASSERT_EQ(static_cast<std::int64_t>(p.passes.size()), c.epochs) << what << ": " << p.note;
  for (std::int64_t e = 0; e < c.epochs; ++e) {
    const Counted want = replayed(c, e);
    const PassFigures& got = p.passes[static_cast<std::size_t>(e)];
    EXPECT_EQ(got.pass, e);
    EXPECT_EQ(got.steps_per_rank, want.steps) << what << " pass " << e;
    EXPECT_EQ(got.duplicated, want.duplicated) << what << " pass " << e;
    EXPECT_EQ(got.dropped, want.dropped) << what << " pass " << e;
  }
}

TEST(EveryPass, DirectPathAgreesWithReplayingTheJob) {
  auto seeded = with_epochs(map_case(4, 103, 4), 3);
  seeded.loader.shuffle = true;
  seeded.loader.drop_last = true;
  seeded.torch_manual_seed = PythonInt{7};
  expect_every_pass_matches_replay(seeded, "RandomSampler, set_seed, drop_last");

  auto seedable = seeded;
  seedable.prepare.use_seedable_sampler = true;
  seedable.prepare.data_seed = PythonInt{3};
  seedable.loader.drop_last = false;
  expect_every_pass_matches_replay(seedable, "SeedableRandomSampler");

  auto replacement = with_epochs(map_case(3, 50, 4), 3);
  replacement.loader.shuffle = true;
  replacement.loader.replacement = true;
  replacement.loader.generator_seed = 5;
  replacement.prepare.synchronize_generator = true;
  expect_every_pass_matches_replay(replacement, "sampling with replacement");

  auto iterable = with_epochs(map_case(3, 50, 4), 3);
  iterable.loader.dataset_kind = DatasetKind::Iterable;
  iterable.loader.dataset_generator_seed = 11;
  expect_every_pass_matches_replay(iterable, "iterable dataset with its own generator (IterableDatasetShard)");

  auto dispatched = iterable;
  dispatched.prepare.dispatch_batches = true;
  dispatched.prepare.put_on_device = true;
  expect_every_pass_matches_replay(dispatched, "iterable dataset, dispatch_batches");

  auto sequential = with_epochs(map_case(64, 1001, 1), 2);
  expect_every_pass_matches_replay(sequential, "sequential, even_batches");
}

TEST(EveryPass, ReplayedPathForRanksThatShuffleDifferently) {
  auto c = with_epochs(map_case(4, 40, 3), 2);
  c.loader.shuffle = true;
  c.seed_per_rank = true;
  c.torch_manual_seed = PythonInt{1};
  const Scenario first = analyze(c, "", "");
  ASSERT_FALSE(first.ranks_share_order);
  expect_every_pass_matches_replay(c, "per-rank seeds");
  EXPECT_EQ(every_pass(c, first).passes.back().method, "replayed");
}

TEST(EveryPass, LargeReplayIsSkippedWithAReason) {
  auto c = with_epochs(map_case(4, 10'000'000, 16), 2);
  c.loader.shuffle = true;
  c.seed_per_rank = true;
  c.torch_manual_seed = PythonInt{1};
  Scenario first;
  first.config = c;
  first.ranks_share_order = false;
  first.batches_per_rank = {1, 1, 1, 1};
  first.len_per_rank = {1, 1, 1, 1};
  const PassesSummary p = every_pass(c, first);
  EXPECT_EQ(p.passes.size(), 1u);
  EXPECT_NE(p.note.find("not computed"), std::string::npos) << p.note;
}

TEST(CoverageFractions, BinsCountEveryIdExactly) {
  // 8 ranks, batch 4096, drop_last over 50000 shuffled ids: one step per rank, 32768 seen once, 17232 never.
  auto c = map_case(8, 50000, 4096);
  c.loader.shuffle = true;
  c.loader.drop_last = true;
  c.torch_manual_seed = PythonInt{3};
  WhatIfOptions options;
  options.coverage_bins = 100;
  const WhatIfReport r = what_if(c, options);
  const Scenario& s = r.scenarios.front();
  ASSERT_EQ(s.coverage_fractions.size(), 100u);
  std::int64_t once = 0, dropped = 0, duplicated = 0;
  for (const BinCounts& b : s.coverage_fractions) {
    EXPECT_EQ(b.once + b.dropped + b.duplicated + b.before_resume, b.size());
    // A shuffle spreads the dropped ids: every bin has some, none is all dropped.
    EXPECT_GT(b.dropped, 0);
    EXPECT_LT(b.dropped, b.size());
    once += b.once;
    dropped += b.dropped;
    duplicated += b.duplicated;
  }
  EXPECT_EQ(dropped, 50000 - 8 * 4096);
  EXPECT_EQ(once, 8 * 4096);
  EXPECT_EQ(duplicated, 0);
  EXPECT_EQ(dropped, s.coverage.counts.dropped);
}

TEST(CoverageFractions, CounterPathAgreesWithRunsPath) {
  auto c = map_case(64, 1001, 1);  // even_batches: ids 0-22 twice
  WhatIfOptions options;
  options.coverage_bins = 10;
  const Scenario s = what_if(c, options).scenarios.front();
  ASSERT_EQ(s.coverage_fractions.size(), 10u);
  EXPECT_EQ(s.coverage_fractions[0].duplicated, 23);  // ids 0-99
  EXPECT_EQ(s.coverage_fractions[0].once, 100 - 23);
  for (std::size_t b = 1; b < 10; ++b) EXPECT_EQ(s.coverage_fractions[b].duplicated, 0);
}

TEST(Timeline, KeepsTheWaitingStepAndTheLastStepsOfALongJob) {
  // 8 ranks, 50000 samples, batch 16, even_batches off: 3125 batches, ranks 0-4 take 391, ranks 5-7 390.
  auto c = map_case(8, 50000, 16);
  c.prepare.even_batches = false;
  WhatIfOptions options;
  options.coverage_bins = 760;
  const Scenario s = what_if(c, options).scenarios.front();
  EXPECT_EQ(s.min_steps, 390);
  EXPECT_EQ(s.max_steps, 391);
  ASSERT_EQ(s.timeline.rows.size(), 8u);  // every rank its own row
  ASSERT_FALSE(s.timeline.step_ranges.empty());
  EXPECT_EQ(s.timeline.step_ranges.front().first, 0);
  EXPECT_EQ(s.timeline.step_ranges.back().second, 391);
  bool waiting_step_shown = false;
  std::int64_t shown = 0;
  for (const auto& [b, e] : s.timeline.step_ranges) {
    waiting_step_shown = waiting_step_shown || (b <= 390 && 390 < e);
    shown += e - b;
  }
  EXPECT_TRUE(waiting_step_shown);
  EXPECT_LT(shown, 100);  // the middle is elided
  ASSERT_TRUE(s.timeline.ids_kept);
  // Rank 0's first batch in the sequential order: ids 0-7 (the first 8 of 0-15).
  EXPECT_EQ(s.timeline.ids[0][0], (std::vector<SampleId>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Timeline, GroupsThousandsOfRanksButKeepsTheWaitingOnes) {
  // 4096 ranks: 62501 batches of 16 over 1000001 samples; ranks 0-1060 take 16 steps, 1061-4095 take 15.
  auto c = map_case(4096, 1000001, 16);
  c.prepare.even_batches = false;
  WhatIfOptions options;
  options.coverage_bins = 760;
  const Scenario s = what_if(c, options).scenarios.front();
  ASSERT_EQ(s.timeline.rows.size(), 2u);
  EXPECT_EQ(s.timeline.rows[0].first_rank, 0);
  EXPECT_EQ(s.timeline.rows[0].last_rank, 1060);
  EXPECT_EQ(s.timeline.rows[0].max_steps, 16);
  EXPECT_EQ(s.timeline.rows[1].first_rank, 1061);
  EXPECT_EQ(s.timeline.rows[1].last_rank, 4095);
  EXPECT_EQ(s.timeline.rows[1].max_steps, 15);
}

TEST(Warnings, CarryACodeASeverityAndTheEvidence) {
  auto c = map_case(64, 1001, 1);
  c.prepare.even_batches = false;
  const WhatIfReport r = what_if(c);
  const Warning* hang = nullptr;
  for (const auto& w : r.warnings) {
    if (w.code == "uneven-steps-hang") hang = &w;
  }
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->severity, Severity::Error);
  bool step = false;
  for (const auto& [key, value] : hang->evidence) {
    if (key == "step") step = std::get<std::int64_t>(value) == 15;
  }
  EXPECT_TRUE(step);
}

}  // namespace
}  // namespace accel::analysis
