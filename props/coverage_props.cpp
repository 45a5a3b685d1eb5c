// Properties 1 and 2: which samples one epoch yields over all ranks, and how often. Map-style and
// iterable datasets, shard and dispatch loaders, shuffled or not, over 1-2 passes of the simulator.
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "oracle.hpp"
#include "properties.hpp"

namespace accel::props {
namespace {

std::vector<const std::vector<Batch>*> pass_batches(const std::vector<trace::RankRecord>& ranks, std::size_t pass) {
  std::vector<const std::vector<Batch>*> out;
  for (const auto& r : ranks) out.push_back(&r.epochs.at(pass).batches);
  return out;
}

// Samples every rank together keeps: all of them, or with drop_last only the complete global steps.
//  - map, no split: the BatchSampler drops the short batch and BatchSamplerShard the incomplete round
//    of R batches, so everything past floor(N/(b*R))*b*R goes (map-n3-b4-l23-nosplit-even-drop: 12 of 23);
//  - map, split: the BatchSampler of the global batch b drops its short last batch: past floor(N/b)*b;
//  - iterable: IterableDatasetShard stops at the last full real batch (b*R, or b with split);
//  - dispatch: rank 0's loader drops the short batch and _fetch_batches a short group of R batches;
//  - one process: torch drops the short batch.
// In every case the dropped samples are the last N mod step_samples of the epoch's order.
std::int64_t kept_samples(const LoaderConfig& c) {
  const std::int64_t S = step_samples(c);
  return c.drop ? c.len / S * S : c.len;
}

}  // namespace

// 1. Coverage per epoch: the union over ranks is exactly the epoch's order positions [0, kept).
void coverage_is_whole_dataset_unless_drop_last() {
  const auto [c, choices] = *gen_drawn({.dispatch = true}, 1, 2);
  const std::int64_t epochs = choices.count;
  RC_TAG(c.drop ? "drop_last" : "keep");
  const auto ranks = simulate_ranks(loader_case(c, epochs));
  const std::int64_t kept = kept_samples(c);
  // A dispatcher that cannot form one batch raises TypeError from its broadcast on every rank.
  const bool dispatch_fails = c.dispatch && kept == 0;
  for (std::int64_t e = 0; e < epochs; ++e) {
    const auto pass = static_cast<std::size_t>(e);
    for (const auto& r : ranks) {
      RC_ASSERT(r.epochs.at(pass).error.has_value() == dispatch_fails);
      if (dispatch_fails) RC_ASSERT(r.epochs[pass].error->type == std::string("TypeError"));
    }
    const auto seen = multiplicity(pass_batches(ranks, pass), c.len);
    const auto order = epoch_order(c, e);
    std::vector<std::int64_t> missing;  // order positions never yielded
    for (std::int64_t q = 0; q < c.len; ++q) {
      if (seen[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])] == 0) missing.push_back(q);
    }
    std::vector<std::int64_t> expected(static_cast<std::size_t>(c.len - kept));
    std::iota(expected.begin(), expected.end(), kept);
    RC_ASSERT(missing == expected);
  }
}

// 2. Duplication: how many extra samples the ranks get and which ones.
//  - Shard loaders pad the last global step to step_samples S, so the epoch grows by
//    P = ceil(N/S)*S - N (no split: ceil(N/(b*R))*b*R - N): map-style only with even_batches=True
//    (BatchSamplerShard), iterable datasets whenever drop_last is off (IterableDatasetShard ignores
//    even_batches). The padding cycles the epoch's first min(S, N) samples (BatchSamplerShard's
//    initial_data, IterableDatasetShard's first_batch), so order position q < P is repeated
//    floor((P-1-q)/min(S,N)) + 1 more times: several times over when N < S
//    (map-n8-b16-l31-nosplit-even-keep: 31 samples become 128).
//  - The dispatcher only completes the final dispatched batch (t samples) to a multiple of R with the
//    first samples of the first dispatched batch, and only what the ranks' slices reach is handed out:
//    P = min(R - t mod R, min(S, N)) when t mod R != 0, each of the first P positions once.
//  - Nothing is duplicated with drop_last, with even_batches=False (map), or on one process.
void duplicates_equal_the_padding_from_the_epoch_start() {
  const LoaderConfig c = *gen_loader_config({.dispatch = true});
  const auto ranks = simulate_ranks(loader_case(c, 1));
  const std::int64_t N = c.len, R = c.ranks, S = step_samples(c);
  std::int64_t pad = 0;
  if (c.dispatch) {
    const std::int64_t t = N % S == 0 ? S : N % S;  // the final dispatched batch
    if (!c.drop && N > 0 && t % R != 0) pad = std::min(R - t % R, std::min(S, N));
  } else if (c.sharded() && !c.drop && (c.iterable() || c.even)) {
    pad = ceil_div(N, S) * S - N;
  }
  RC_TAG(pad == 0 ? "no padding" : N < S ? "padding cycles" : "padding");
  const std::int64_t period = std::max<std::int64_t>(1, std::min(S, N));
  const std::int64_t kept = kept_samples(c);
  const auto seen = multiplicity(pass_batches(ranks, 0), N);
  const auto order = epoch_order(c, 0);
  std::vector<std::int64_t> got, expected;  // times yielded, by order position
  std::int64_t duplicated = 0;
  for (std::int64_t q = 0; q < N; ++q) {
    const std::int64_t times = seen[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])];
    got.push_back(times);
    duplicated += std::max<std::int64_t>(0, times - 1);
    const std::int64_t extra = q < pad && q < period ? (pad - 1 - q) / period + 1 : 0;
    expected.push_back((q < kept ? 1 : 0) + extra);
  }
  RC_ASSERT(duplicated == pad);
  RC_ASSERT(got == expected);
}

}  // namespace accel::props
