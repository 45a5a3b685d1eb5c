// Training-loop invariants over generated configs (ranks 1-8, length 0-200, batch 1-4, K 1-6, 1-3
// epochs, random overflows): what the scheduler did is fixed by the optimizer steps that happened.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "sim/training_simulator.hpp"

namespace accel {
namespace {

struct LoopConfig {
  std::int64_t ranks, len, batch, k, epochs;
  bool split;
  std::set<std::int64_t> skipped;
};

std::ostream& operator<<(std::ostream& os, const LoopConfig& c) {
  os << "{ranks=" << c.ranks << " dataset_len=" << c.len << " batch_size=" << c.batch << " K=" << c.k
     << " epochs=" << c.epochs << " split_batches=" << c.split << " skipped=[";
  for (auto s : c.skipped) os << s << " ";
  return os << "]}";
}

rc::Gen<LoopConfig> gen_loop() {
  return rc::gen::apply(
      [](std::int64_t ranks, std::int64_t len, std::int64_t batch, std::int64_t k, std::int64_t epochs, bool split,
         std::vector<std::int64_t> skipped) {
        if (split) batch = std::max<std::int64_t>(1, batch / ranks) * ranks;
        return LoopConfig{ranks, len, batch, k, epochs, split, std::set<std::int64_t>(skipped.begin(), skipped.end())};
      },
      rc::gen::inRange<std::int64_t>(1, 9), rc::gen::inRange<std::int64_t>(0, 201), rc::gen::inRange<std::int64_t>(1, 5),
      rc::gen::inRange<std::int64_t>(1, 7), rc::gen::inRange<std::int64_t>(1, 4), rc::gen::arbitrary<bool>(),
      rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 300)));
}

trace::SchedulerCase to_case(const LoopConfig& c, ScheduleSpec spec) {
  trace::SchedulerCase sc;
  sc.num_processes = c.ranks;
  sc.split_batches = c.split;
  sc.plugin.num_steps = c.k;
  sc.scheduler = spec;
  sc.dataset_len = c.len;
  sc.batch_size = c.batch;
  sc.epochs = c.epochs;
  sc.skipped_micro_steps.assign(c.skipped.begin(), c.skipped.end());
  return sc;
}

RC_GTEST_PROP(TrainingLoop, SchedulerMovesExactlyRTimesPerUnskippedOptimizerStep, ()) {
  const LoopConfig c = *gen_loop();
  RC_TAG(c.split ? "split" : "nosplit");
  const auto rank = sim::simulate_training_rank(to_case(c, LinearWarmupSchedule{0.1, 7, 90}), 0);
  const std::int64_t r = c.split ? 1 : c.ranks;
  std::int64_t taken = 0, since_sync = 0;
  for (std::size_t i = 0; i < rank.steps.size(); ++i) {
    const auto& s = rank.steps[i];
    const bool last_of_epoch = i + 1 == rank.steps.size() || rank.steps[i + 1].epoch != s.epoch;
    // Syncs every K micro-steps, and always on the last batch of an epoch (which restarts the count).
    ++since_sync;
    RC_ASSERT(s.sync_gradients == (last_of_epoch || since_sync % c.k == 0));
    if (last_of_epoch) since_sync = 0;
    RC_ASSERT(s.step_was_skipped == (c.skipped.count(s.micro_step) > 0));
    const bool stepped = s.sync_gradients && !s.step_was_skipped;
    RC_ASSERT(s.scheduler_calls == (stepped ? r : 0));
    if (stepped) ++taken;
    RC_ASSERT(s.after.last_epoch == r * taken);
    RC_ASSERT(s.after.step_count == r * taken + 1);  // the plugin's adjust_scheduler never reaches GradientState
    const std::int64_t e = s.after.last_epoch;
    const double f = e < 7 ? double(e) / 7.0 : std::max(0.0, double(90 - e) / double(90 - 7));
    RC_ASSERT(s.after.lr == 0.1 * f);
  }
}

RC_GTEST_PROP(TrainingLoop, OneCycleNeverPassesTotalStepsWithoutSplitBatches, ()) {
  LoopConfig c = *gen_loop();
  c.split = false;
  // total_steps 2 with pct_start 0.5 puts the warm-up end at 0.0, where torch divides by zero.
  const std::int64_t total = *rc::gen::inRange<std::int64_t>(3, 40);
  const auto rank = sim::simulate_training_rank(to_case(c, OneCycleLinearSchedule{1.0, total, 0.5, 25.0, 1e4}), 0);
  RC_ASSERT(!rank.error.has_value());
  for (const auto& s : rank.steps) {
    RC_ASSERT(s.after.last_epoch <= total);
    RC_ASSERT(s.after.step_count <= total + 1);
  }
}

}  // namespace
}  // namespace accel
