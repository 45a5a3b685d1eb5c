// Property 8: the direct computations against plain replays. A rank's batches computed in O(batch)
// each (BatchSamplerShard, IterableDatasetShard) against Accelerate's loops run as written; EpochPlan's
// per-rank counts, batches, len() and coverage runs against enumerating every rank's batches from
// sim::simulate.
#include <rapidcheck.h>

#include <algorithm>
#include <ostream>

#include "core/batch_sampler_shard.hpp"
#include "core/coverage.hpp"
#include "core/epoch_plan.hpp"
#include "oracle.hpp"
#include "properties.hpp"

namespace accel {

// For RapidCheck's messages.
std::ostream& operator<<(std::ostream& os, const CoverageCounts& c) {
  return os << "{dataset_len=" << c.dataset_len << " yielded=" << c.yielded << " distinct=" << c.distinct
            << " duplicated=" << c.duplicated << " dropped=" << c.dropped << " before_resume=" << c.before_resume
            << " repeated=" << c.repeated << " max_times=" << c.max_times << "}";
}

namespace props {
namespace {

// The ranks checked: the first, the last (where padding and short tails land) and one drawn between.
std::vector<std::int64_t> ranks_to_check(const LoaderConfig& c, const Choices& choices) {
  std::vector<std::int64_t> ranks{0, choices.up_to(c.ranks - 1), c.ranks - 1};
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::vector<Batch> pass_batches(const LoaderPass& pass) {
  std::vector<Batch> out;
  for (std::int64_t j = 0; j < pass.num_batches(); ++j) out.push_back(pass.batch(j));
  return out;
}

}  // namespace

// Map-style: BatchSamplerShard's direct batches for a rank (and the prepared DataLoaderShard's pass)
// equal replay_batch_sampler_shard, Accelerate's __iter__ run over the epoch's explicit batches.
void map_direct_equals_replay() {
  const auto [c, choices] = *gen_drawn({.iterable = false});
  const auto order = epoch_order(c, 0);
  std::vector<Batch> inner;  // torch's BatchSampler over the order
  for (std::int64_t s = 0; s < c.len; s += c.batch) {
    Batch b(order.begin() + s, order.begin() + std::min(c.len, s + c.batch));
    if (c.drop && static_cast<std::int64_t>(b.size()) < c.batch) break;
    inner.push_back(std::move(b));
  }
  const SampleOrder so = SampleOrder::of(order);
  for (const std::int64_t r : ranks_to_check(c, choices)) {
    RC_LOG() << "rank=" << r << "\n";
    const ShardOptions o = c.sharded() ? ShardOptions{c.ranks, r, c.split, c.even} : ShardOptions{1, 0, false, false};
    const auto replay = replay_batch_sampler_shard(inner, c.batch, c.drop, o);
    const BatchSamplerShard shard(BatchSampler{c.batch, c.drop}, c.len, o);
    std::vector<Batch> direct;
    for (std::int64_t j = 0; j < shard.num_batches(); ++j) direct.push_back(shard.batch_ids(j, so));
    RC_ASSERT(direct == replay);
    auto loader = std::get<DataLoaderShard>(prepare(c, r));
    RC_ASSERT(pass_batches(loader.iterate()) == replay);
  }
}

// Iterable: the prepared loader's pass (IterableDatasetShard's direct ranges) equals a literal replay
// of IterableDatasetShard.__iter__ and torch's batching (oracle.cpp).
void iterable_direct_equals_replay() {
  const auto [c, choices] = *gen_drawn({.only_iterable = true});
  const auto stream = epoch_order(c, 0);
  for (const std::int64_t r : ranks_to_check(c, choices)) {
    RC_LOG() << "rank=" << r << "\n";
    const auto replay = replay_iterable_shard(stream, c, r);
    auto loader = std::get<DataLoaderShard>(prepare(c, r));
    RC_ASSERT(pass_batches(loader.iterate()) == replay);
  }
}

// EpochPlan (every rank at once, from the loaders' structure) against the simulator's per-rank loaders
// on one pass, optionally a skip_first_batches(k) one:
//  - batches(r), batch_positions(r, j) through the epoch order, len(r), dispatch_fails();
//  - resume_position() is where the skipped pass starts: min(N, k*G) with G = step_samples, except
//    k*b for map-style dispatch (SkipBatchSampler skips underlying batches);
//  - measure_coverage(runs()) gives the counts (and the first duplicated / dropped ids) that counting
//    every rank's yielded ids gives.
void epoch_plan_equals_simulation() {
  const auto [c, choices] = *gen_drawn({.dispatch = true});
  const bool skipped = choices.flag;
  const std::int64_t k = skipped ? choices.up_to(ceil_div(c.len, c.batch) + 2) : 0;
  RC_LOG() << "k=" << k << "\n";
  const std::optional<std::int64_t> skip = skipped ? std::optional<std::int64_t>(k) : std::nullopt;
  const auto ranks = simulate_ranks(loader_case(c, 1, skip));
  const EpochPlan plan(loader_args(c), prepare_options(c), skip);
  const std::vector<SampleId> ids = epoch_order(c, 0);
  const SampleOrder order = SampleOrder::of(ids);

  const std::int64_t N = c.len;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const auto& rank = ranks.at(static_cast<std::size_t>(r));
    const auto& pass = rank.epochs.at(0);
    RC_ASSERT(plan.dispatch_fails() == pass.error.has_value());
    RC_ASSERT(plan.batches(r) == static_cast<std::int64_t>(pass.batches.size()));
    for (std::int64_t j = 0; j < plan.batches(r); ++j) {
      Batch batch;
      for (std::int64_t p : plan.batch_positions(r, j)) batch.push_back(order[p]);
      RC_ASSERT(batch == pass.batches[static_cast<std::size_t>(j)]);
    }
    const trace::LoaderAttributes& attrs = skipped ? pass.skipped_loader.value() : rank.attributes;
    const auto len = plan.len(r);
    RC_ASSERT(len.ok() == attrs.len.has_value());
    if (len.ok()) RC_ASSERT(len.value() == *attrs.len);
  }

  const std::int64_t resume = std::min(N, k * (c.dispatch && !c.iterable() ? c.batch : step_samples(c)));
  RC_ASSERT(plan.resume_position() == resume);

  // Enumeration: every id every rank yielded.
  std::vector<const std::vector<Batch>*> all;
  for (const auto& rank : ranks) all.push_back(&rank.epochs.at(0).batches);
  const auto seen = multiplicity(all, N);
  CoverageCounts expected;
  expected.dataset_len = N;
  IdRanges duplicated_ids(10), dropped_ids(10);  // the first 10 runs, in epoch order
  for (std::int64_t q = 0; q < N; ++q) {
    const SampleId id = ids[static_cast<std::size_t>(q)];
    const std::int64_t times = seen[static_cast<std::size_t>(id)];
    expected.yielded += times;
    if (times == 0) {
      if (q < resume) {
        ++expected.before_resume;
      } else {
        ++expected.dropped;
        dropped_ids.add(id);
      }
      continue;
    }
    ++expected.distinct;
    expected.max_times = std::max(expected.max_times, times);
    if (times > 1) {
      ++expected.repeated;
      expected.duplicated += times - 1;
      duplicated_ids.add(id);
    }
  }
  const CoverageDetail detail = measure_coverage(plan.runs(), order, N, /*permutation=*/true, 10, plan.resume_position());
  RC_ASSERT(detail.counts == expected);
  RC_ASSERT(detail.duplicated_ids == duplicated_ids);
  RC_ASSERT(detail.dropped_ids == dropped_ids);
}

}  // namespace props
}  // namespace accel
