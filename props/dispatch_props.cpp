// Property 7: DataLoaderDispatcher against the shard loaders, and the direct DispatchPlan against the
// communicator-based dispatcher run through the simulator.
#include <rapidcheck.h>

#include <algorithm>
#include <limits>

#include "core/dispatch_plan.hpp"
#include "oracle.hpp"
#include "properties.hpp"
#include "sim/simulator.hpp"

namespace accel::props {

// Map-style datasets, the same config with and without dispatch_batches. With G = step_samples (b*R,
// or the global b with split), F = floor(N/G) full steps and t = N - F*G:
//  - on every full step each rank gets the same samples from both (rank 0 fetches R batches of b, or
//    one of G, and each rank takes slice [r*G/R, (r+1)*G/R) of it: BatchSamplerShard's batch);
//  - the tail is where they differ. The shard pads each rank's batch to G/R samples (even_batches) or
//    leaves short / missing batches (even_batches=False). The dispatcher dispatches the t tail samples
//    (unless drop_last), and when t mod R != 0 appends the first min(R, first batch size) samples of the
//    epoch and cuts slices of p = floor(t/R) + 1 = ceil(t/R): rank r gets elements [r*p, (r+1)*p) of
//    (tail ++ appended), clipped, so late ranks get short or empty batches
//    (dispatch-map-n3-b2-l10-nosplit-even-keep, dispatch-map-n4-b1-l1-nosplit-even-keep);
//  - so the dispatcher yields F + (t > 0 and not drop_last) batches on every rank, len() says so, and
//    with none at all every rank raises TypeError from the broadcast.
void dispatcher_equals_shard_on_full_steps() {
  const auto [dispatch, choices] = *gen_drawn({.iterable = false, .only_dispatch = true}, 1, 2);
  LoaderConfig shard = dispatch;
  shard.dispatch = false;
  const std::int64_t epochs = choices.count;
  const auto rs = simulate_ranks(loader_case(shard, epochs));
  const auto rd = simulate_ranks(loader_case(dispatch, epochs));
  const std::int64_t N = shard.len, R = shard.ranks, G = step_samples(shard);
  const std::int64_t full = N / G, t = N - full * G;
  const bool tail = t > 0 && !shard.drop;
  const std::int64_t steps = full + (tail ? 1 : 0);
  RC_TAG(tail ? (t % R != 0 ? "tail completed" : "tail divides") : "no tail");
  for (std::int64_t e = 0; e < epochs; ++e) {
    const auto order = epoch_order(shard, e);
    // The dispatched tail: positions [full*G, N), then the epoch's first positions.
    std::vector<std::int64_t> tail_positions;
    for (std::int64_t q = full * G; q < N; ++q) tail_positions.push_back(q);
    if (t % R != 0) {
      for (std::int64_t q = 0; q < std::min(R, std::min(G, N)); ++q) tail_positions.push_back(q);
    }
    const std::int64_t p = ceil_div(t, R);
    for (std::int64_t r = 0; r < R; ++r) {
      const auto& ps = rs.at(static_cast<std::size_t>(r)).epochs.at(static_cast<std::size_t>(e));
      const auto& pd = rd.at(static_cast<std::size_t>(r)).epochs.at(static_cast<std::size_t>(e));
      RC_ASSERT(rd[static_cast<std::size_t>(r)].attributes.len.value_or(-1) == steps);
      if (steps == 0) {
        RC_ASSERT(pd.error.has_value() && pd.error->type == std::string("TypeError"));
        RC_ASSERT(pd.batches.empty());
        continue;
      }
      RC_ASSERT(!pd.error.has_value());
      RC_ASSERT(static_cast<std::int64_t>(pd.batches.size()) == steps);
      for (std::int64_t j = 0; j < full; ++j) {
        RC_ASSERT(pd.batches[static_cast<std::size_t>(j)] == ps.batches.at(static_cast<std::size_t>(j)));
      }
      std::vector<bool> eod(static_cast<std::size_t>(steps), false);
      eod.back() = true;
      RC_ASSERT(pd.end_of_dataloader == eod);
      if (!tail) continue;
      Batch expected;
      const auto size = static_cast<std::int64_t>(tail_positions.size());
      for (std::int64_t i = std::min(r * p, size); i < std::min((r + 1) * p, size); ++i) {
        expected.push_back(order[static_cast<std::size_t>(tail_positions[static_cast<std::size_t>(i)])]);
      }
      RC_ASSERT(pd.batches.back() == expected);
    }
  }
}

// plan_dispatch + rank_slice (no communicator) against DataLoaderDispatcher through sim::simulate, map
// and iterable, with skip_first_batches(k): k underlying batches for map datasets (SkipBatchSampler),
// k dispatched batches for iterable ones. Every rank, every batch, every end_of_dataloader flag, and
// the failing configs (no batch can be formed: TypeError on every rank).
void dispatch_plan_equals_dispatcher() {
  const auto [c, choices] = *gen_drawn({.only_dispatch = true}, 1, 2);
  const bool skipped = choices.flag;
  const std::int64_t k = skipped ? choices.up_to(ceil_div(c.len, c.batch) + 2) : 0;
  RC_LOG() << "k=" << k << "\n";
  // A skipped loader is made from the prepared one, whose counter never moves: one pass says it all.
  const std::int64_t epochs = skipped ? 1 : choices.count;
  const auto ranks = simulate_ranks(loader_case(c, epochs, skipped ? std::optional<std::int64_t>(k) : std::nullopt));
  DispatchPlanOptions o;
  o.samples = c.len;
  o.batch_size = c.batch;
  o.drop_last = c.drop;
  o.split_batches = c.split;
  o.num_processes = c.ranks;
  o.skip_underlying = c.iterable() ? 0 : k;
  const DispatchPlan plan = plan_dispatch(o);
  const std::size_t first = c.iterable() ? static_cast<std::size_t>(k) : 0;
  RC_TAG(plan.fails ? "fails" : "dispatches");
  for (std::int64_t e = 0; e < epochs; ++e) {
    const SampleOrder order = SampleOrder::of(epoch_order(c, e));
    for (std::int64_t r = 0; r < c.ranks; ++r) {
      const auto& pass = ranks.at(static_cast<std::size_t>(r)).epochs.at(static_cast<std::size_t>(e));
      if (plan.fails) {
        RC_ASSERT(pass.error.has_value() && pass.error->type == std::string("TypeError"));
        RC_ASSERT(pass.batches.empty());
        continue;
      }
      RC_ASSERT(!pass.error.has_value());
      std::vector<Batch> expected;
      std::vector<bool> eod;
      for (std::size_t i = first; i < plan.batches.size(); ++i) {
        expected.push_back(rank_slice(plan.batches[i], r, order));
        eod.push_back(plan.batches[i].last);
      }
      RC_ASSERT(pass.batches == expected);
      RC_ASSERT(pass.end_of_dataloader == eod);
    }
  }
}

// The simulator schedules talking ranks one after another (SequentialGroup) instead of a thread each over
// InProcessGroup: both give every rank the same trace, byte for byte, dispatched map and iterable loaders
// with skips and several passes, and the hangs too: with choices.flag a map shuffle's data_seed is
// 2^64 - 1, so rank 0 alone (the only rank that draws) raises on the second pass before its broadcast
// and the other ranks wait forever in it. Threads limit the worlds to 16 ranks here.
void sequential_schedule_equals_threaded_group() {
  const auto [c, choices] =
      *gen_drawn({.only_dispatch = true, .max_dispatch_ranks = 16, .max_dispatch_len = 300}, 1, 3);
  trace::LoaderCase lc = loader_case(c, choices.count);
  trace::Json config = config_json(c, choices.count);
  const bool overflow = choices.flag && !c.iterable() && c.shuffle;
  if (overflow) {
    lc.prepare.data_seed = PythonInt(std::numeric_limits<std::uint64_t>::max());
    config["data_seed"] = std::numeric_limits<std::uint64_t>::max();
  }
  RC_TAG(overflow && choices.count > 1 ? "seed overflow hang" : "no hang");
  const trace::Trace sequential = sim::simulate(lc);
  trace::Trace threaded;
  threaded.body = sim::simulate_ranks_threaded(lc);
  RC_ASSERT(!sequential.error.has_value());
  RC_ASSERT(trace::dump(trace::to_json("p", config, sequential)) == trace::dump(trace::to_json("p", config, threaded)));
}

}  // namespace accel::props
