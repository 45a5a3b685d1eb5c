// Property 12: real-rank training (one epoch; over two, the what-if's closed form against the loop). The DDP loop every
// rank runs (sim/ddp_training.hpp, the same code accel-sim-rank runs over Gloo) makes a gradient all_reduce exactly
// where accumulate() syncs, so the job's fate follows from each rank's batch count alone, computed here without the
// loop:
//  - rank r syncs at micro-steps j with (j+1) % k == 0 and at its last batch (sync_with_dataloader), and
//    all_reduces there, or at every micro-step with sync_each_batch (more than one process);
//  - with an enabled Join (join_uneven_inputs and even_batches False) the job completes exactly when, at
//    every micro-step, the ranks still training agree on whether to all_reduce (a joined rank shadows
//    whatever they do; two active ranks that disagree pair a gradient all_reduce with a Join collective);
//  - otherwise, when the ranks' all_reduce counts differ, exactly the ranks with more than the fewest m
//    block, each at its (m+1)-th all_reduce's micro-step, and the rest finish; when they are equal the
//    job completes, out of step iff some all_reduce pairs different micro-steps.
#include <rapidcheck.h>

#include <algorithm>
#include <optional>

#include "oracle.hpp"
#include "properties.hpp"
#include "sim/ddp_training.hpp"

namespace accel::props {

void ddp_training_blocks_where_the_gradient_collectives_run_out() {
  const LoaderConfig c = *gen_loader_config({.max_ranks = 8, .max_rare_ranks = 8, .max_len = 300});
  sim::TrainingLoop loop;
  loop.gradient_accumulation_steps = *int_in(1, 4);
  loop.sync_each_batch = *rc::gen::element(false, false, true);
  loop.join_uneven_inputs = *rc::gen::element(false, false, true);
  RC_LOG() << "grad_accum=" << loop.gradient_accumulation_steps << " sync_each_batch=" << loop.sync_each_batch
           << " join=" << loop.join_uneven_inputs << "\n";
  const std::int64_t epochs = *rc::gen::element<std::int64_t>(1, 1, 2);
  RC_LOG() << "epochs=" << epochs << "\n";
  const trace::LoaderCase config = loader_case(c, epochs);
  const auto ranks = sim::simulate_training_ranks(config, loop);
  const auto verdict = sim::training_verdict(ranks);
  // The what-if's closed form (sim::predict_training, from the batch counts alone) agrees with running the
  // loop, or says it cannot predict (only under Join with ranks that disagree on syncing, checked below).
  std::vector<std::vector<std::int64_t>> counts;
  for (std::int64_t r = 0; r < c.ranks; ++r) counts.push_back(std::vector<std::int64_t>(epochs, shard_batches(c, r)));
  const auto predicted = sim::predict_training(counts, loop, sim::join_enabled(config, loop), 1'000'000);
  if (predicted) {
    RC_ASSERT(predicted->completed == verdict.completed);
    RC_ASSERT(predicted->waiting_ranks == verdict.waiting_ranks);
    RC_ASSERT(predicted->finished_ranks == verdict.finished_ranks);
    RC_ASSERT(predicted->hang.has_value() == verdict.hang.has_value());
    if (predicted->hang) {
      RC_ASSERT(predicted->hang->epoch == verdict.hang->epoch);
      RC_ASSERT(predicted->hang->step == verdict.hang->step);
      RC_ASSERT(predicted->hang->collective == verdict.hang->collective);
      RC_ASSERT(predicted->hang->missing_ranks == verdict.hang->missing_ranks);
    }
    RC_ASSERT(predicted->out_of_step.has_value() == verdict.out_of_step.has_value());
    if (predicted->out_of_step) {
      RC_ASSERT(predicted->out_of_step->epoch == verdict.out_of_step->epoch);
      RC_ASSERT(predicted->out_of_step->step == verdict.out_of_step->step);
    }
  }
  // Over two epochs only the closed form above is checked: collectives pair across the epoch boundary.
  if (epochs > 1) {
    RC_TAG("two epochs");
    RC_ASSERT(predicted.has_value() || sim::join_enabled(config, loop));
    return;
  }

  const std::int64_t k = loop.gradient_accumulation_steps;
  std::vector<std::vector<std::int64_t>> all_reduces, syncs;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const std::int64_t n = shard_batches(c, r);
    std::vector<std::int64_t> a, s;
    for (std::int64_t j = 0; j < n; ++j) {
      const bool sync = (j + 1) % k == 0 || j == n - 1;
      if (sync) s.push_back(j);
      if (sync || (loop.sync_each_batch && c.ranks > 1)) a.push_back(j);
    }
    all_reduces.push_back(a);
    syncs.push_back(s);
  }
  if (sim::join_enabled(config, loop)) {
    bool agree = true;
    std::int64_t longest = 0;
    for (std::int64_t r = 0; r < c.ranks; ++r) longest = std::max(longest, shard_batches(c, r));
    for (std::int64_t j = 0; j < longest; ++j) {
      std::optional<bool> first;
      for (std::int64_t r = 0; r < c.ranks; ++r) {
        if (j >= shard_batches(c, r)) continue;
        const auto& a = all_reduces[static_cast<std::size_t>(r)];
        const bool reduces = std::find(a.begin(), a.end(), j) != a.end();
        if (first && *first != reduces) agree = false;
        first = reduces;
      }
    }
    RC_TAG(agree ? "joined" : "joined, ranks disagree on syncing");
    RC_ASSERT(verdict.completed == agree);
    RC_ASSERT(predicted.has_value() == agree);
    if (!agree) return;
    for (std::int64_t r = 0; r < c.ranks; ++r) {
      RC_ASSERT(ranks[static_cast<std::size_t>(r)].optimizer_steps ==
                static_cast<std::int64_t>(syncs[static_cast<std::size_t>(r)].size()));
    }
    return;
  }
  std::size_t fewest = all_reduces[0].size();
  for (const auto& a : all_reduces) fewest = std::min(fewest, a.size());
  std::vector<std::int64_t> waiting;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const auto& a = all_reduces[static_cast<std::size_t>(r)];
    const auto& got = ranks[static_cast<std::size_t>(r)];
    if (a.size() > fewest) {
      waiting.push_back(r);
      RC_ASSERT(got.hang.has_value());
      RC_ASSERT(got.hang->epoch == 0);
      RC_ASSERT(got.hang->step == a[fewest]);
      RC_ASSERT(got.hang->collective == std::string("gradient all_reduce"));
    } else {
      RC_ASSERT(!got.hang.has_value());
      RC_ASSERT(got.optimizer_steps == static_cast<std::int64_t>(syncs[static_cast<std::size_t>(r)].size()));
      // AcceleratedScheduler: num_processes scheduler steps per optimizer step (one with split_batches).
      RC_ASSERT(got.scheduler_steps == got.optimizer_steps * (c.split ? 1 : c.ranks));
    }
    RC_ASSERT(got.gradient_all_reduces == static_cast<std::int64_t>(std::min(a.size(), fewest)));
  }
  RC_TAG(waiting.empty() ? "completes" : "hangs");
  RC_ASSERT(verdict.waiting_ranks == waiting);
  RC_ASSERT(verdict.completed == waiting.empty());
  bool out_of_step = false;
  for (std::size_t i = 0; i < fewest; ++i) {
    for (const auto& a : all_reduces) out_of_step = out_of_step || a[i] != all_reduces[0][i];
  }
  RC_ASSERT(verdict.out_of_step.has_value() == out_of_step);
  RC_ASSERT(predicted.has_value());
}

}  // namespace accel::props
