// Property 4: split_batches=True with the global batch b*R against split_batches=False with batch b.
//
// On every full step (j < floor(N/(b*R))) rank r gets the same samples: positions
// [(j*R + r)*b, (j*R + r + 1)*b) either way. Reading Accelerate's code for the tail:
//  - BatchSamplerShard: _iter_with_split completes the short last batch with initial_data (the first
//    batch, doubled up to b*R) and slices it; _iter_with_no_split completes its short round from
//    initial_data (the first R batches, doubled up to R*b). Both cycle the first min(b*R, N) samples,
//    so the padded tail is the same; with even_batches=False the split rank r gets its slice when
//    N mod (b*R) > r*b, the unsplit one its batch when r < ceil((N mod b*R) / b): the same ranks, the
//    same samples; with drop_last both stop after floor(N/(b*R)) steps.
//  - IterableDatasetShard: real_batch_size is b*R either way, the process slice b samples.
//  - DataLoaderDispatcher: one underlying batch of b*R, or R concatenated batches of b (a short group
//    at the end), then the same slicing and the same completion of the final batch.
// So the samples agree on every step, the tail included. What differs is len():
//  - map, even_batches=False, keep: split reports ceil(N/(b*R)) on every rank (the split sampler's
//    length), where the unsplit loader reports each rank's own count;
//  - iterable: IterableDatasetShard.__len__ multiplies the (global) batch by R again, so split reports
//    R * ceil(N/(b*R*R)) (floor with drop_last) batches of b, unsplit ceil(N/(b*R)).
#include <rapidcheck.h>

#include "oracle.hpp"
#include "properties.hpp"

namespace accel::props {

void split_batches_matches_unsplit_on_every_step() {
  auto [unsplit, choices] = *gen_drawn({.dispatch = true, .max_batch = 16}, 1, 2);
  unsplit.split = false;
  LoaderConfig split = unsplit;
  split.split = true;
  split.batch = unsplit.batch * unsplit.ranks;
  const std::int64_t epochs = choices.count;
  const auto a = simulate_ranks(loader_case(unsplit, epochs));
  const auto s = simulate_ranks(loader_case(split, epochs));
  const std::int64_t full_steps = unsplit.len / (unsplit.batch * unsplit.ranks);
  for (std::int64_t r = 0; r < unsplit.ranks; ++r) {
    const auto& ra = a.at(static_cast<std::size_t>(r));
    const auto& rs = s.at(static_cast<std::size_t>(r));
    for (std::int64_t e = 0; e < epochs; ++e) {
      const auto& pa = ra.epochs.at(static_cast<std::size_t>(e));
      const auto& ps = rs.epochs.at(static_cast<std::size_t>(e));
      // Full steps first (what the two modes promise), then the whole pass (what the code does).
      RC_ASSERT(std::min(pa.batches.size(), ps.batches.size()) >= static_cast<std::size_t>(full_steps));
      for (std::int64_t j = 0; j < full_steps; ++j) {
        RC_ASSERT(ps.batches[static_cast<std::size_t>(j)] == pa.batches[static_cast<std::size_t>(j)]);
      }
      RC_ASSERT(ps.batches == pa.batches);
      RC_ASSERT(ps.end_of_dataloader == pa.end_of_dataloader);
      RC_ASSERT(ps.remainder == pa.remainder);
      RC_ASSERT(ps.iteration_after == pa.iteration_after);
      RC_ASSERT(ps.error.has_value() == pa.error.has_value());
    }
    if (unsplit.dispatch) {
      // DataLoaderDispatcher.__len__: ceil(ceil(N/b)/R) unsplit, ceil(N/(b*R)) split: equal.
      RC_ASSERT(rs.attributes.len.value_or(-1) == ra.attributes.len.value_or(-1));
    } else {
      RC_ASSERT(ra.attributes.len.value_or(-1) == shard_len(unsplit, r));
      RC_ASSERT(rs.attributes.len.value_or(-1) == shard_len(split, r));
      const bool len_differs = unsplit.sharded() && (unsplit.iterable() || (!unsplit.even && !unsplit.drop));
      if (!len_differs) RC_ASSERT(rs.attributes.len.value_or(-1) == ra.attributes.len.value_or(-1));
    }
  }
}

}  // namespace accel::props
