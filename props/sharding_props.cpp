// Sharding invariants of map-style loaders over generated configs (ranks 1-64, length 0-5000,
// batch 1-32, every flag). Each property states the exact expected quantity.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/batch_sampler_shard.hpp"
#include "core/prepare_data_loader.hpp"

namespace accel {
namespace {

struct Config {
  std::int64_t ranks, len, batch;
  bool split, even, drop;
};

std::ostream& operator<<(std::ostream& os, const Config& c) {
  return os << "{ranks=" << c.ranks << " dataset_len=" << c.len << " batch_size=" << c.batch
            << " split_batches=" << c.split << " even_batches=" << c.even << " drop_last=" << c.drop << "}";
}

rc::Gen<Config> gen_config() {
  return rc::gen::apply(
      [](std::int64_t ranks, std::int64_t len, std::int64_t batch, bool split, bool even, bool drop) {
        // split_batches needs batch % ranks == 0: scale the batch instead of discarding the case.
        if (split) batch = std::max<std::int64_t>(1, batch / ranks) * ranks;
        return Config{ranks, len, batch, split, even, drop};
      },
      rc::gen::inRange<std::int64_t>(1, 65), rc::gen::inRange<std::int64_t>(0, 5001),
      rc::gen::inRange<std::int64_t>(1, 33), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<bool>());
}

std::vector<BatchSamplerShard> shards(const Config& c) {
  std::vector<BatchSamplerShard> out;
  const bool sharded = c.ranks > 1;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const ShardOptions o = sharded ? ShardOptions{c.ranks, r, c.split, c.even} : ShardOptions{1, 0, false, false};
    out.emplace_back(BatchSampler{c.batch, c.drop}, c.len, o);
  }
  return out;
}

std::vector<std::int64_t> multiplicity(const Config& c) {
  std::vector<std::int64_t> seen(static_cast<std::size_t>(c.len), 0);
  const auto order = SampleOrder::sequential(c.len);
  for (const auto& s : shards(c)) {
    for (std::int64_t j = 0; j < s.num_batches(); ++j) {
      for (SampleId id : s.batch_ids(j, order)) ++seen[static_cast<std::size_t>(id)];
    }
  }
  return seen;
}

RC_GTEST_PROP(Sharding, CoverageIsWholeDatasetUnlessDropLast, ()) {
  const Config c = *gen_config();
  RC_TAG(c.drop);
  const auto seen = multiplicity(c);
  const auto missing = std::count(seen.begin(), seen.end(), 0);
  if (!c.drop) {
    RC_ASSERT(missing == 0);
    return;
  }
  // drop_last drops the incomplete global step: without split, the whole last round of R batches
  // (samples past floor(N / (b*R)) * b*R); with split, the last short batch (past floor(N/b) * b).
  const std::int64_t step = c.split || c.ranks == 1 ? c.batch : c.batch * c.ranks;
  const std::int64_t kept = (c.len / step) * step;
  RC_ASSERT(missing == c.len - kept);
  for (std::int64_t id = 0; id < c.len; ++id) RC_ASSERT((seen[static_cast<std::size_t>(id)] == 0) == (id >= kept));
}

RC_GTEST_PROP(Sharding, DuplicatesEqualThePaddingAndComeFromTheStart, ()) {
  const Config c = *gen_config();
  const auto seen = multiplicity(c);
  const std::int64_t total = std::accumulate(seen.begin(), seen.end(), std::int64_t{0});
  const std::int64_t distinct = c.len - std::count(seen.begin(), seen.end(), 0);
  const std::int64_t duplicated = total - distinct;
  if (c.drop || !c.even || c.ranks == 1 || c.len == 0) {
    RC_ASSERT(duplicated == 0);
    return;
  }
  const std::int64_t step = c.split ? c.batch : c.batch * c.ranks;
  const std::int64_t padded = (c.len + step - 1) / step * step;
  RC_ASSERT(duplicated == padded - c.len);
  // Sample i is repeated floor((pad - 1 - i) / period) + 1 times for i < pad, the cycle of the first
  // min(step, N) samples.
  const std::int64_t pad = padded - c.len;
  const std::int64_t period = std::min(step, c.len);
  for (std::int64_t id = 0; id < c.len; ++id) {
    const std::int64_t extra = id < period && id < pad ? (pad - 1 - id) / period + 1 : 0;
    RC_ASSERT(seen[static_cast<std::size_t>(id)] == 1 + extra);
  }
}

RC_GTEST_PROP(Sharding, LockStepAndTheRanksThatFallBehind, ()) {
  const Config c = *gen_config();
  const auto all = shards(c);
  std::vector<std::int64_t> counts;
  for (const auto& s : all) counts.push_back(s.num_batches());
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  if (c.even || c.drop || c.ranks == 1) {
    RC_ASSERT(*lo == *hi);
    for (const auto& s : all) RC_ASSERT(s.size() == s.num_batches());
    return;
  }
  // even_batches=False: with L batches of the inner sampler, rank r gets one fewer exactly when
  // r >= L mod R (no split) or when its slice of the short last batch is empty (split).
  const std::int64_t L = (c.len + c.batch - 1) / c.batch;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    std::int64_t expected;
    if (c.split) {
      const std::int64_t tail = c.len % c.batch;
      expected = c.len / c.batch + (tail > r * (c.batch / c.ranks) ? 1 : 0);
    } else {
      expected = L / c.ranks + (r < L % c.ranks ? 1 : 0);
    }
    RC_ASSERT(counts[static_cast<std::size_t>(r)] == expected);
  }
}

RC_GTEST_PROP(Sharding, DirectComputationEqualsReplayOfAcceleratesLoop, ()) {
  const Config c = *gen_config();
  const std::int64_t r = *rc::gen::inRange<std::int64_t>(0, c.ranks);
  std::vector<Batch> inner;
  for (std::int64_t s = 0; s < c.len; s += c.batch) {
    Batch b;
    for (std::int64_t i = s; i < std::min(c.len, s + c.batch); ++i) b.push_back(i);
    if (c.drop && static_cast<std::int64_t>(b.size()) < c.batch) break;
    inner.push_back(std::move(b));
  }
  const bool sharded = c.ranks > 1;
  const ShardOptions o = sharded ? ShardOptions{c.ranks, r, c.split, c.even} : ShardOptions{1, 0, false, false};
  const BatchSamplerShard shard(BatchSampler{c.batch, c.drop}, c.len, o);
  const auto replay = replay_batch_sampler_shard(inner, c.batch, c.drop, o);
  RC_ASSERT(static_cast<std::int64_t>(replay.size()) == shard.num_batches());
  const auto order = SampleOrder::sequential(c.len);
  for (std::int64_t j = 0; j < shard.num_batches(); ++j) RC_ASSERT(shard.batch_ids(j, order) == replay[static_cast<std::size_t>(j)]);
}

RC_GTEST_PROP(Sharding, ResumeAfterSkipIsTheSuffixInAnyEpoch, ()) {
  const Config c = *gen_config();
  const std::int64_t r = *rc::gen::inRange<std::int64_t>(0, c.ranks);
  const std::int64_t epoch = *rc::gen::inRange<std::int64_t>(0, 4);
  DataLoaderArgs dl;
  dl.dataset_len = std::max<std::int64_t>(c.len, 1);
  dl.batch_size = c.batch;
  dl.drop_last = c.drop;
  dl.shuffle = true;
  PrepareOptions po;
  po.num_processes = c.ranks;
  po.process_index = r;
  po.split_batches = c.split;
  po.even_batches = c.even;
  po.use_seedable_sampler = true;
  po.data_seed = *rc::gen::inRange<std::int64_t>(0, 1 << 20);
  DataLoaderShard reference = std::get<DataLoaderShard>(prepare_data_loader(dl, po));
  DataLoaderShard prepared = std::get<DataLoaderShard>(prepare_data_loader(dl, po));
  reference.set_epoch(epoch);
  prepared.set_epoch(epoch);
  const LoaderPass full = reference.iterate();
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, full.num_batches() + 2);
  DataLoaderShard skipped = prepared.skip_first_batches(k);
  const LoaderPass rest = skipped.iterate();
  RC_ASSERT(rest.num_batches() == std::max<std::int64_t>(0, full.num_batches() - k));
  for (std::int64_t j = 0; j < rest.num_batches(); ++j) {
    RC_ASSERT(rest.batch(j) == full.batch(j + k));
    RC_ASSERT(rest.end_of_dataloader(j) == full.end_of_dataloader(j + k));
  }
  // The skipped loader starts from the prepared loader's counter; the prepared one does not move.
  RC_ASSERT(prepared.iteration() == epoch);
  RC_ASSERT(skipped.iteration() == (rest.num_batches() > 0 ? epoch + 1 : epoch));
}

}  // namespace
}  // namespace accel
