// The what-if report model and its JSON: figures derived by hand from Accelerate's rules.
#include <gtest/gtest.h>

#include <numeric>

#include "analysis/requirements.hpp"
#include "analysis/what_if.hpp"
#include "tests/support/loader_configs.hpp"

namespace accel::analysis {
namespace {

using accel::testing::map_case;

std::vector<std::int64_t> iota(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(to - from));
  std::iota(v.begin(), v.end(), from);
  return v;
}

const Scenario& find(const WhatIfReport& r, const std::string& label) {
  for (const auto& s : r.scenarios)
    if (s.label == label) return s;
  throw std::runtime_error("no scenario " + label);
}

TEST(WhatIf, SixtyFourRanksOverOneThousandAndOneSamples) {
  // 1001 = 15 * 64 + 41: even_batches pads the 16th round with the first 23 samples; without it
  // ranks 41-63 stop after 15 batches; drop_last drops the 41 samples of the incomplete round.
  const WhatIfReport r = what_if(map_case(64, 1001, 1));
  const Scenario& base = r.scenarios.front();
  EXPECT_EQ(base.batches_per_rank, std::vector<std::int64_t>(64, 16));
  EXPECT_EQ(base.coverage.counts.duplicated, 23);
  EXPECT_EQ(base.coverage.duplicated_ids.first_ids(100), iota(0, 23));
  EXPECT_EQ(base.coverage.duplicated_ids.ranges().size(), 1u);  // one run, 0-22
  EXPECT_EQ(base.coverage.counts.dropped, 0);
  const Scenario& uneven = find(r, "even_batches=False");
  EXPECT_EQ(uneven.short_ranks, iota(41, 64));
  EXPECT_EQ(uneven.waiting_ranks, iota(0, 41));
  EXPECT_EQ(uneven.min_steps, 15);
  EXPECT_EQ(uneven.coverage.counts.duplicated, 0);
  const Scenario& drop = find(r, "drop_last=True");
  EXPECT_EQ(drop.coverage.counts.dropped, 41);
  EXPECT_EQ(drop.coverage.dropped_ids.first_ids(100), iota(960, 1001));  // one run: every one of 960..1000
  EXPECT_EQ(drop.max_steps, 15);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings.front().code, "duplicated-samples");
  EXPECT_EQ(r.warnings.front().severity, Severity::Warning);
  EXPECT_NE(r.warnings.front().message.find("23 samples are seen twice (ids 0-22)"), std::string::npos)
      << r.warnings.front().message;
}

TEST(WhatIf, ContiguousIdsReadAsOneRangeWhateverTheirCount) {
  // 1096 = 5 * 184 + 176: drop_last drops the last 176 ids, 920-1095, one run.
  auto c = map_case(8, 1096, 23);
  c.loader.drop_last = true;
  const WhatIfReport r = what_if(c);
  const Scenario& base = r.scenarios.front();
  ASSERT_EQ(base.coverage.counts.dropped, 176);
  const auto w =
      std::find_if(r.warnings.begin(), r.warnings.end(), [](const auto& x) { return x.code == "dropped-samples"; });
  ASSERT_NE(w, r.warnings.end());
  EXPECT_NE(w->message.find("(ids 920-1095)"), std::string::npos) << w->message;
}

TEST(WhatIf, DispatcherTailGivesEmptyBatchesToLaterRanks) {
  // One sample, four ranks, dispatch_batches: the single batch [0] is completed with [0] and split
  // one per rank, so ranks 2 and 3 get empty batches; sample 0 is yielded twice.
  auto c = map_case(4, 1, 1);
  c.prepare.dispatch_batches = true;
  c.prepare.put_on_device = true;
  const Scenario s = analyze(c, "dispatch", "");
  EXPECT_EQ(s.batches_per_rank, std::vector<std::int64_t>(4, 1));
  EXPECT_EQ(s.coverage.counts.yielded, 2);
  EXPECT_EQ(s.coverage.counts.duplicated, 1);
}

TEST(WhatIf, RequirementsFailWithEvidence) {
  const Scenario s = analyze(map_case(64, 1001, 1), "x", "");
  const auto results = check_requirements(s, {"no-duplicates", "no-drops", "lockstep"});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_FALSE(results[0].holds);
  EXPECT_NE(results[0].evidence.find("rank 41 step 15"), std::string::npos) << results[0].evidence;
  EXPECT_TRUE(results[1].holds);
  EXPECT_TRUE(results[2].holds);
  EXPECT_THROW(check_requirements(s, {"nope"}), std::invalid_argument);
}

}  // namespace
}  // namespace accel::analysis

namespace accel::analysis {
namespace {

const Warning* find_warning(const WhatIfReport& r, const std::string& code) {
  for (const Warning& w : r.warnings) {
    if (w.code == code) return &w;
  }
  return nullptr;
}
// A pointer into a temporary report would dangle (the sanitize label caught one).
const Warning* find_warning(WhatIfReport&&, const std::string&) = delete;

std::optional<std::int64_t> evidence_int(const Warning& w, const std::string& key) {
  for (const auto& [k, v] : w.evidence) {
    if (k == key) return std::get<std::int64_t>(v);
  }
  return std::nullopt;
}

TEST(WhatIfAdvice, EvenBatchesFalseIsAdvisedWithItsHangAndJoinUnevenInputsSimulated) {
  const WhatIfReport r = what_if(testing::map_case(64, 1001, 1));
  const Warning* w = find_warning(r, code::kDuplicatedSamples);
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("ranks 0-40 then wait forever at step 15"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("join_uneven_inputs([model]) on GPUs (simulated"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("every rank completes"), std::string::npos) << w->message;
}

TEST(WhatIfAdvice, AMultiEpochHangIsWhereTheDdpLoopBlocks) {
  // 5 ranks, 32 samples in batches of 2: rank 0 gets 4 batches, ranks 1-4 get 3. A DDP loop pairs
  // collectives by order, so the short ranks' epoch 1 steps pair with rank 0's last epoch-0 step and the
  // job blocks at epoch 1 step 2 (observed on real Gloo ranks by ranks_training_hang_sweep, config 10).
  auto c = testing::map_case(5, 32, 2);
  c.prepare.even_batches = false;
  c.epochs = 2;
  const WhatIfReport r = what_if(c);
  const Warning* w = find_warning(r, code::kUnevenStepsHang);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(evidence_int(*w, "ddp_hang_epoch"), 1);
  EXPECT_EQ(evidence_int(*w, "ddp_hang_step"), 2);
  EXPECT_NE(w->message.find("rank 0 at step 3"), std::string::npos) << w->message;
}

TEST(WhatIfAdvice, IgnoredDataSeedIsFixedBySimulatingTheSeedableSampler) {
  auto c = testing::map_case(4, 100, 1);
  c.loader.shuffle = true;
  c.prepare.data_seed = PythonInt{3};
  c.prepare.use_seedable_sampler = false;
  const WhatIfReport r = what_if(c);
  const Warning* w = find_warning(r, code::kDataSeedIgnored);
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("with --use-seedable-sampler (simulated) SeedableRandomSampler(seed=3)"), std::string::npos)
      << w->message;
}

// Issue 25: the fix's counts come from the loaders' structure, without drawing the seedable sampler's shuffle; they
// are the counts the drawn shuffle gives (a full analysis of the fixed config, ids and all).
TEST(WhatIfAdvice, IgnoredDataSeedFixQuotesTheDrawnShufflesCounts) {
  for (const bool drop_last : {false, true}) {
    auto c = testing::map_case(7, 101, 3);
    c.loader.shuffle = true;
    c.loader.drop_last = drop_last;
    c.prepare.data_seed = PythonInt{3};
    c.prepare.use_seedable_sampler = false;
    auto seedable = c;
    seedable.prepare.use_seedable_sampler = true;
    const Scenario drawn = analyze(seedable, "use_seedable_sampler=True", "--use-seedable-sampler");
    ASSERT_FALSE(drawn.rejected);
    ASSERT_GT(drawn.coverage.counts.duplicated + drawn.coverage.counts.dropped, 0);
    ASSERT_FALSE(drawn.coverage.duplicated_ids.empty() && drawn.coverage.dropped_ids.empty());  // it was drawn
    const WhatIfReport report = what_if(c);  // find_warning points into it
    const Warning* w = find_warning(report, code::kDataSeedIgnored);
    ASSERT_NE(w, nullptr);
    const std::string counts = std::to_string(drawn.coverage.counts.duplicated) + " duplicated, " +
                               std::to_string(drawn.coverage.counts.dropped) + " never seen";
    EXPECT_NE(w->message.find(counts), std::string::npos) << w->message;
  }
}

// A fix whose seed torch cannot take is not quoted as one, with or without the draw.
TEST(WhatIfAdvice, IgnoredDataSeedFixThatTorchRefusesIsNotQuoted) {
  auto c = testing::map_case(4, 100, 1);
  c.loader.shuffle = true;
  c.prepare.data_seed = kTorchSeedEnd;  // manual_seed(2^64) overflows
  c.prepare.use_seedable_sampler = false;
  const WhatIfReport report = what_if(c);  // find_warning points into it
  const Warning* w = find_warning(report, code::kDataSeedIgnored);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->message.find("(simulated)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("--use-seedable-sampler, or set_seed, seeds the shuffle"), std::string::npos) << w->message;
}

}  // namespace
}  // namespace accel::analysis
