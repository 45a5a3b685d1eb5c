// What the what-if reports without drawing its epoch order (issue 48): a shuffle past
// WhatIfOptions::drawn_shuffle_limit is left undrawn, and every option's counts must still be the replay's.
#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/release_upgrade.hpp"
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

// The upgrade of a job too large to replay compares its structure (analysis/release_upgrade.hpp): on one-epoch jobs
// small enough to replay, every change it names (a rank's steps, the samples seen twice or never across the ranks) is
// one the replayed comparison names in the same words, and the replay names no such change it misses. The two sides
// may also differ in even_batches or drop_last, as a release rule could.
void upgrade_structure_is_what_the_replay_sees() {
  auto [c, choices] = *gen_drawn({.dispatch = true, .max_ranks = 8, .max_rare_ranks = 8, .max_len = 300});
  const trace::LoaderCase lc = loader_case(c, 1);
  static const std::vector<AccelerateRelease> releases = {{0, 14, 0}, {0, 20, 3}, {0, 24, 1}, {0, 28, 0},
                                                          {1, 5, 2},  {1, 13, 0}, {1, 15, 0}, {1, 16, 0}};
  const std::size_t a = *rc::gen::noShrink(rc::gen::inRange<std::size_t>(0, releases.size()));
  const std::size_t b = *rc::gen::noShrink(rc::gen::inRange<std::size_t>(0, releases.size()));
  analysis::UpgradeSide from{lc, std::nullopt, std::nullopt}, to = from;
  from.loader.prepare.release = releases[a];
  to.loader.prepare.release = releases[b];
  // Releases rarely change a pass's steps or counts; an option that does stands in for a release rule that would, so
  // the comparison itself is exercised both ways.
  if (*rc::gen::arbitrary<bool>()) to.loader.prepare.even_batches = !to.loader.prepare.even_batches;
  if (*rc::gen::arbitrary<bool>()) to.loader.loader.drop_last = !to.loader.loader.drop_last;
  // The other side's error lines are worded per path; the property is about the runs both sides complete.
  for (const auto* side : {&from, &to}) {
    const analysis::Scenario s = analysis::analyze_counts(side->loader, "", "");
    RC_PRE(!s.rejected && !s.iteration_error && s.ranks_share_order);
  }
  RC_LOG() << releases[a].name() << " -> " << releases[b].name() << "\n";
  const analysis::UpgradeReport structure = analysis::upgrade_structure(from, to, {}, "too large");
  const analysis::UpgradeReport replayed = analysis::upgrade_report(from, to);
  RC_PRE(std::none_of(replayed.changes.begin(), replayed.changes.end(),
                      [](const analysis::UpgradeChange& x) { return x.what.rfind("error", 0) == 0; }));
  const auto same_kind = [](const analysis::UpgradeChange& x) {
    return x.what.rfind("steps ", 0) == 0 || x.what.rfind("samples seen more than once", 0) == 0 ||
           x.what.rfind("samples no rank sees", 0) == 0;
  };
  const auto lines = [&](const analysis::UpgradeReport& r) {
    std::vector<std::string> out;
    for (const auto& x : r.changes) {
      if (same_kind(x)) out.push_back(x.where + ": " + x.what);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  RC_LOG() << "structure: " << structure.changes.size() << " changes, replayed: " << replayed.changes.size() << "\n";
  RC_TAG(lines(replayed).empty() ? "no step or count change" : "steps or counts change");
  RC_ASSERT(lines(structure) == lines(replayed));
  RC_ASSERT(structure.changes.size() == lines(structure).size());  // it names nothing else
  RC_ASSERT(!structure.replayed);
  RC_ASSERT(structure.rules == replayed.rules);
}

}  // namespace accel::props
