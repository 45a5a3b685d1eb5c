// Property 5: resuming with skip_first_batches, in any epoch.
//
// Two runs of the same config through the simulator, every rank: A iterates the prepared loader E+2
// times; B iterates it E times, then skip_first_batches(prepared, k), then the prepared loader again.
#include <rapidcheck.h>

#include <algorithm>

#include "oracle.hpp"
#include "properties.hpp"

namespace accel::props {
namespace {

template <typename T>
std::vector<T> suffix(const std::vector<T>& v, std::int64_t k) {
  return std::vector<T>(v.begin() + std::min<std::ptrdiff_t>(k, static_cast<std::ptrdiff_t>(v.size())), v.end());
}

}  // namespace

// In pass E the skipped loader yields exactly A's pass E from batch k on, with the same
// end_of_dataloader flags. The counters are Accelerate's:
//  - the skipped loader starts from the prepared loader's iteration (it0) and ends at it0 + 1 when its
//    underlying loader produced a batch: for map datasets the SkipBatchSampler produces only the
//    batches past k (none when k >= count: no advance); for iterable ones the batches are produced and
//    then discarded, so it advances even when it yields nothing (unless the dataset is empty);
//  - the prepared loader does not move, so its next pass replays A's pass E (same counter, same
//    seedable permutation: skip-seed-n2-b3-l20-k2-s42-s.p.p). The exception is an unsharded iterable
//    dataset with its own generator: nothing reseeds it and the skipped pass shared it, so the next
//    pass is A's pass E+1;
//  - a SeedableRandomSampler, shared with the skipped loader and run through by it, ends at epoch
//    it0 + 1.
void skip_yields_the_suffix_and_leaves_the_counters() {
  const auto [c, choices] = *gen_drawn({}, 0, 3);
  const std::int64_t before = choices.count;  // passes over the prepared loader before the resume
  std::int64_t most = 0;
  for (std::int64_t r = 0; r < c.ranks; ++r) most = std::max(most, shard_batches(c, r));
  const std::int64_t k = choices.up_to(most + 2);
  RC_LOG() << "k=" << k << "\n";
  RC_TAG(k >= most ? "skips everything" : "skips some");
  std::vector<trace::LoaderRole> schedule(static_cast<std::size_t>(before), trace::LoaderRole::Prepared);
  schedule.push_back(trace::LoaderRole::Skipped);
  schedule.push_back(trace::LoaderRole::Prepared);
  const auto a = simulate_ranks(loader_case(c, before + 2));
  const auto b = simulate_ranks(loader_case(c, before + 2, k, schedule));
  const auto E = static_cast<std::size_t>(before);
  for (std::int64_t r = 0; r < c.ranks; ++r) {
    const auto& pa = a.at(static_cast<std::size_t>(r)).epochs;
    const auto& pb = b.at(static_cast<std::size_t>(r)).epochs;
    const std::int64_t count = shard_batches(c, r);
    RC_ASSERT(static_cast<std::int64_t>(pa.at(E).batches.size()) == count);
    // Every pass of A advances the counter by one when it yields anything.
    const std::int64_t it0 = count > 0 ? before : 0;
    RC_ASSERT(pa[E].iteration_after == (count > 0 ? before + 1 : 0));

    RC_ASSERT(pb.at(E).batches == suffix(pa[E].batches, k));
    RC_ASSERT(pb[E].end_of_dataloader == suffix(pa[E].end_of_dataloader, k));
    const bool produced = c.iterable() ? count > 0 : count > k;
    RC_ASSERT(pb[E].iteration_after == it0 + (produced ? 1 : 0));
    if (!c.iterable() && c.shuffle) RC_ASSERT(pb[E].sampler_epoch_after.value_or(-1) == it0 + 1);

    const bool generator_moved_on = c.iterable() && c.shuffle && !c.sharded();
    const auto& replayed = pa.at(generator_moved_on ? E + 1 : E);
    RC_ASSERT(pb.at(E + 1).batches == replayed.batches);
    RC_ASSERT(pb[E + 1].end_of_dataloader == replayed.end_of_dataloader);
    RC_ASSERT(pb[E + 1].iteration_after == pa[E].iteration_after);
  }
}

}  // namespace accel::props
