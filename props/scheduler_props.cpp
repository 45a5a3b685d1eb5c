// Property 9: the wrapped lr scheduler. Training-loop invariants over generated configs (ranks 1-8,
// length 0-200, batch 1-4, gradient accumulation K 1-6, 1-3 epochs, even/uneven, drop_last, scaler
// overflows at random micro-steps), and AcceleratedScheduler.step() driven directly with a random
// sync pattern: what the scheduler did is fixed by the optimizer steps that happened.
#include <rapidcheck.h>

#include <algorithm>
#include <set>

#include "loader_config.hpp"
#include "properties.hpp"
#include "sim/training_simulator.hpp"

namespace accel::props {
namespace {

struct LoopConfig {
  std::int64_t ranks, len, batch, k, epochs;
  bool split, even, drop;
  std::set<std::int64_t> skipped;
};

std::ostream& operator<<(std::ostream& os, const LoopConfig& c) {
  os << "{ranks=" << c.ranks << " dataset_len=" << c.len << " batch_size=" << c.batch << " K=" << c.k
     << " epochs=" << c.epochs << " split_batches=" << c.split << " even_batches=" << c.even
     << " drop_last=" << c.drop << " skipped=[";
  for (auto s : c.skipped) os << s << " ";
  return os << "]}";
}

rc::Gen<LoopConfig> gen_loop() {
  return rc::gen::apply(
      [](std::int64_t ranks, std::int64_t len, std::int64_t batch, std::int64_t k, std::int64_t epochs,
         std::tuple<bool, bool, bool> flags, std::vector<std::int64_t> skipped) {
        const auto [split, even, drop] = flags;
        if (split) batch = std::max<std::int64_t>(1, batch / ranks) * ranks;
        return LoopConfig{ranks, len, batch, k, epochs, split, even, drop,
                          std::set<std::int64_t>(skipped.begin(), skipped.end())};
      },
      int_in(1, 8), int_in(0, 200), int_in(1, 4), int_in(1, 6), int_in(1, 3),
      rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>()),
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
  sc.drop_last = c.drop;
  sc.even_batches = c.even;
  sc.epochs = c.epochs;
  sc.skipped_micro_steps.assign(c.skipped.begin(), c.skipped.end());
  return sc;
}

}  // namespace

// In an accumulate() loop (rank 0 and the last rank, which may have fewer batches): sync every K
// micro-steps and on each epoch's last batch; the optimizer step is skipped exactly where the scaler
// overflowed; the wrapped scheduler steps R times (1 with split_batches) on each optimizer step taken,
// never during accumulation, never on a skipped step. So after every micro-step last_epoch =
// R * taken, _step_count = R * taken + 1 (the plugin's adjust_scheduler=True reaches GradientState as
// False), and the lr is the linear warm-up schedule's at that last_epoch.
void scheduler_steps_r_times_per_optimizer_step() {
  const LoopConfig c = *gen_loop();
  RC_TAG(c.split ? "split" : "nosplit");
  for (const std::int64_t rank_index : {std::int64_t{0}, c.ranks - 1}) {
    const auto rank = sim::simulate_training_rank(to_case(c, LinearWarmupSchedule{0.1, 7, 90}), rank_index);
    RC_ASSERT(!rank.error.has_value());
    const std::int64_t r = c.split ? 1 : c.ranks;
    std::int64_t taken = 0, since_sync = 0, calls = 0;
    for (std::size_t i = 0; i < rank.steps.size(); ++i) {
      const auto& s = rank.steps[i];
      const bool last_of_epoch = i + 1 == rank.steps.size() || rank.steps[i + 1].epoch != s.epoch;
      ++since_sync;
      RC_ASSERT(s.sync_gradients == (last_of_epoch || since_sync % c.k == 0));
      if (last_of_epoch) since_sync = 0;
      RC_ASSERT(s.step_was_skipped == (c.skipped.count(s.micro_step) > 0));
      const bool stepped = s.sync_gradients && !s.step_was_skipped;
      RC_ASSERT(s.scheduler_calls == (stepped ? r : 0));
      if (stepped) ++taken;
      calls += s.scheduler_calls;
      RC_ASSERT(s.after.last_epoch == r * taken);
      RC_ASSERT(s.after.step_count == r * taken + 1);
      const std::int64_t e = s.after.last_epoch;
      const double f = e < 7 ? double(e) / 7.0 : std::max(0.0, double(90 - e) / double(90 - 7));
      RC_ASSERT(s.after.lr == 0.1 * f);
    }
    RC_ASSERT(calls == r * taken);
  }
}

// AcceleratedScheduler.step() with an explicit sync pattern (the `sched-direct-*` cases): with
// step_scheduler_with_optimizer=False every call steps once; otherwise R (1 with split) on a synced,
// unskipped step and 0 else, and an accumulation step only bumps _step_count when
// GradientState.adjust_scheduler is set.
void scheduler_direct_steps_follow_sync_and_skips() {
  // One pick (RapidCheck never goes back to shrink an earlier one).
  const auto [ranks, split, without_optimizer, adjust, pattern, skipped_list] = *rc::gen::tuple(
      int_in(1, 8), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
      rc::gen::container<std::vector<bool>>(rc::gen::arbitrary<bool>()),
      rc::gen::container<std::vector<std::int64_t>>(int_in(0, 99)));
  const std::set<std::int64_t> skipped(skipped_list.begin(), skipped_list.end());
  RC_LOG() << "(ranks, split_batches, not step_scheduler_with_optimizer, adjust_scheduler, sync pattern, "
              "skipped micro-steps)\n";
  trace::SchedulerCase sc;
  sc.api = trace::SchedulerApi::Direct;
  sc.num_processes = ranks;
  sc.split_batches = split;
  sc.step_with_optimizer = !without_optimizer;
  sc.adjust_scheduler = adjust;
  sc.sync_pattern = pattern;
  sc.skipped_micro_steps.assign(skipped.begin(), skipped.end());
  sc.scheduler = LinearWarmupSchedule{0.1, 7, 1000};
  const auto rank = sim::simulate_training_rank(sc, 0);
  RC_ASSERT(!rank.error.has_value());
  RC_ASSERT(rank.steps.size() == pattern.size());
  const std::int64_t r = split ? 1 : ranks;
  std::int64_t last_epoch = 0, bumps = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const auto& s = rank.steps[i];
    const bool skip = skipped.count(static_cast<std::int64_t>(i)) > 0;
    const std::int64_t calls = without_optimizer ? 1 : (pattern[i] && !skip ? r : 0);
    RC_ASSERT(s.scheduler_calls == calls);
    last_epoch += calls;
    if (!without_optimizer && !pattern[i] && adjust) ++bumps;
    RC_ASSERT(s.after.last_epoch == last_epoch);
    RC_ASSERT(s.after.step_count == last_epoch + 1 + bumps);
  }
}

// OneCycleLR: Accelerate's _step_count <= total_steps guard keeps an unsplit loop from stepping torch's
// scheduler past total_steps (where torch raises).
void one_cycle_never_passes_total_steps_without_split() {
  // total_steps 2 with pct_start 0.5 puts the warm-up end at 0.0, where torch divides by zero.
  auto [c, total] = *rc::gen::pair(gen_loop(), int_in(3, 39));
  c.split = false;
  RC_LOG() << "(loop, OneCycleLR total_steps)\n";
  const auto rank = sim::simulate_training_rank(to_case(c, OneCycleLinearSchedule{1.0, total, 0.5, 25.0, 1e4}), 0);
  RC_ASSERT(!rank.error.has_value());
  for (const auto& s : rank.steps) {
    RC_ASSERT(s.after.last_epoch <= total);
    RC_ASSERT(s.after.step_count <= total + 1);
  }
}

}  // namespace accel::props
