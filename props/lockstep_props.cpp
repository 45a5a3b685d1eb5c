// Property 3: lock-step. How many batches each rank yields and what len() each rank reports, including
// the places where Accelerate's len() disagrees with what is yielded; and, run as a real training loop
// with one collective per step, exactly which ranks would hang and where.
#include <rapidcheck.h>

#include <algorithm>

#include "oracle.hpp"
#include "properties.hpp"
#include "sim/simulator.hpp"

namespace accel::props {

// Counts and len() per rank (shard loaders; an optional skip_first_batches(k)), all pinned exactly:
//  - yielded = max(0, shard_batches - k) (oracle.hpp gives shard_batches from Accelerate's loops);
//  - even_batches=True (map), drop_last, iterable datasets and one process: every rank yields the same
//    number of batches; with even_batches=False (map, keep) the ranks one batch short are exactly
//    r >= L mod R (no split, L = ceil(N/b) batches) or r*(b/R) >= N mod b (split, the ranks whose
//    slice of the short last batch is empty);
//  - len() equals what is yielded except where Accelerate's len() is known to disagree:
//      split + even_batches=False (map): every rank reports ceil(N/b), the short ranks yield one fewer;
//      iterable + split: R * ceil(N/(b*R)) (floor with drop_last) instead of ceil(N/b);
//      skipped iterable: len() is not reduced by k;
//      skipped map: len() - k, and ValueError("__len__() should return >= 0") when that is negative.
void batch_counts_and_len_per_rank() {
  const auto [c, choices] = *gen_drawn();
  std::int64_t most = 0;
  for (std::int64_t r = 0; r < c.ranks; ++r) most = std::max(most, shard_batches(c, r));
  const bool skipped = choices.flag;
  const std::int64_t k = skipped ? choices.up_to(most + 2) : 0;
  RC_LOG() << "k=" << k << "\n";
  RC_TAG(c.iterable() ? "iterable" : c.even ? "map even" : "map uneven");
  const auto ranks = simulate_ranks(loader_case(c, 1, skipped ? std::optional<std::int64_t>(k) : std::nullopt));
  std::vector<std::int64_t> yielded;
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const auto& rank = ranks.at(static_cast<std::size_t>(r));
    const auto& pass = rank.epochs.at(0);
    yielded.push_back(static_cast<std::int64_t>(pass.batches.size()));
    RC_ASSERT(yielded.back() == std::max<std::int64_t>(0, shard_batches(c, r) - k));

    const trace::LoaderAttributes& attrs = skipped ? pass.skipped_loader.value() : rank.attributes;
    const std::int64_t len = shard_len(c, r) - (skipped && !c.iterable() ? k : 0);
    if (len < 0) {
      RC_ASSERT(!attrs.len.has_value());
      RC_ASSERT(attrs.attr_errors.at("len").type == std::string("ValueError"));
    } else {
      RC_ASSERT(attrs.len.value_or(-1) == len);
    }
    // Where len() and the batches agree, say so directly (the oracle's formulas already pin both).
    const bool len_disagrees = skipped || (c.sharded() && c.split && (c.iterable() || (!c.even && !c.drop)));
    if (!len_disagrees) RC_ASSERT(attrs.len.value_or(-1) == yielded.back());
  }
  const auto [lo, hi] = std::minmax_element(yielded.begin(), yielded.end());
  if (c.iterable() || c.even || c.drop || !c.sharded()) {
    RC_ASSERT(*lo == *hi);
    return;
  }
  if (skipped) return;  // the short ranks below are stated for a whole pass
  const std::int64_t N = c.len, b = c.batch, R = c.ranks, L = ceil_div(N, b);
  std::vector<std::int64_t> short_ranks, predicted;
  for (std::int64_t r = 0; r < R; ++r) {
    if (yielded[static_cast<std::size_t>(r)] < *hi) short_ranks.push_back(r);
    const bool behind = c.split ? N % b != 0 && r * (b / R) >= N % b : L % R != 0 && r >= L % R;
    if (behind) predicted.push_back(r);
  }
  RC_ASSERT(short_ranks == predicted);
}

// A loop making one collective per batch (sim::simulate_lockstep): when the ranks' counts differ,
// exactly the ranks with more than the fewest batches block, at step min_r(count), and the others
// finish; otherwise nobody blocks. Up to 8 ranks and 500 samples (one thread per rank, a collective
// per step).
void uneven_ranks_hang_exactly_where_predicted() {
  const LoaderConfig c = *gen_loader_config({.max_ranks = 8, .max_rare_ranks = 8, .max_len = 500});
  std::vector<std::int64_t> counts;
  for (std::int64_t r = 0; r < c.ranks; ++r) counts.push_back(shard_batches(c, r));
  const std::int64_t lo = *std::min_element(counts.begin(), counts.end());
  const bool uneven = *std::max_element(counts.begin(), counts.end()) != lo;
  RC_TAG(uneven ? "hangs" : "lock-step");
  const auto lockstep = sim::simulate_lockstep(loader_case(c, 1));
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const auto& me = lockstep.at(static_cast<std::size_t>(r));
    const std::int64_t mine = counts[static_cast<std::size_t>(r)];
    if (mine > lo) {
      RC_ASSERT(me.hang.has_value());
      RC_ASSERT(me.hang_epoch.value_or(-1) == 0);
      RC_ASSERT(me.hang_step.value_or(-1) == lo);
    } else {
      RC_ASSERT(!me.hang.has_value());
      RC_ASSERT(me.steps_per_epoch == std::vector<std::int64_t>{mine});
    }
  }
}

}  // namespace accel::props
