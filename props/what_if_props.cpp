// What the what-if reports without drawing its epoch order (issue 48): a shuffle past
// WhatIfOptions::drawn_shuffle_limit is left undrawn, and every option's counts must still be the replay's.
#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/what_if.hpp"
#include "loader_config.hpp"
#include "properties.hpp"
#include "what_if_replay.hpp"

namespace accel::props {
namespace {

std::vector<std::string> codes(const analysis::WhatIfReport& r) {
  std::vector<std::string> out;
  for (const auto& w : r.warnings) out.push_back(w.code);
  return out;
}

}  // namespace

// A shuffled textbook job (map-style RandomSampler or SeedableRandomSampler, an iterable dataset's own randperm),
// analysed with its order drawn and with nothing drawn: every option's steps, len() and counts agree, and equal the
// replayed ranks'; only the undrawn report leaves the ids out, and it says so (ids-not-drawn) once.
void undrawn_shuffle_counts_equal_the_replay() {
  auto [c, choices] = *gen_drawn({.dispatch = true, .min_len = 1, .max_len = 2000}, 1, 3);
  c.shuffle = true;
  trace::LoaderCase lc = loader_case(c, choices.count);
  if (!c.iterable() && choices.flag) {
    // A plain RandomSampler under set_seed instead of SeedableRandomSampler: Accelerate synchronises its generator.
    lc.prepare.use_seedable_sampler = false;
    lc.torch_manual_seed = c.seed;
  }
  RC_TAG(c.iterable() ? "iterable" : lc.prepare.use_seedable_sampler ? "seedable" : "random sampler");
  check_what_if_equals_replay(lc, simulate_ranks(lc), c.len, true, IdOrder::Epoch);

  analysis::WhatIfOptions undrawn_options;
  undrawn_options.drawn_shuffle_limit = 0;
  const analysis::WhatIfReport drawn = analysis::what_if(lc);
  const analysis::WhatIfReport undrawn = analysis::what_if(lc, undrawn_options);
  RC_ASSERT(drawn.scenarios.size() == undrawn.scenarios.size());
  for (std::size_t i = 0; i < drawn.scenarios.size(); ++i) {
    const analysis::Scenario& a = drawn.scenarios[i];
    const analysis::Scenario& b = undrawn.scenarios[i];
    RC_LOG() << "option " << a.label << "\n";
    RC_ASSERT(a.rejected == b.rejected);
    RC_ASSERT(a.iteration_error == b.iteration_error);
    RC_ASSERT(a.batches_per_rank == b.batches_per_rank);
    RC_ASSERT(a.len_per_rank == b.len_per_rank);
    RC_ASSERT(a.coverage.counts == b.coverage.counts);
    RC_ASSERT(a.ids_drawn);
  }
  RC_ASSERT(drawn.passes.passes.size() == undrawn.passes.passes.size());
  for (std::size_t p = 0; p < drawn.passes.passes.size(); ++p) {
    RC_ASSERT(drawn.passes.passes[p].duplicated == undrawn.passes.passes[p].duplicated);
    RC_ASSERT(drawn.passes.passes[p].dropped == undrawn.passes.passes[p].dropped);
    RC_ASSERT(drawn.passes.passes[p].steps_per_rank == undrawn.passes.passes[p].steps_per_rank);
  }
  const analysis::Scenario& first = undrawn.scenarios.front();
  if (first.rejected || first.iteration_error) return;
  RC_ASSERT(!first.ids_drawn);
  RC_ASSERT(first.coverage.duplicated_ids.empty() && first.coverage.dropped_ids.empty());
  RC_ASSERT(!undrawn.passes.passes.front().ids_drawn);
  std::vector<std::string> want = codes(drawn);
  want.push_back(analysis::code::kIdsNotDrawn);
  std::vector<std::string> got = codes(undrawn);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  RC_ASSERT(got == want);
}

}  // namespace accel::props
