#include "what_if_replay.hpp"

#include <rapidcheck.h>

#include <algorithm>

#include "analysis/what_if.hpp"
#include "core/coverage.hpp"
#include "oracle.hpp"

namespace accel::props {

void check_what_if_equals_replay(const trace::LoaderCase& lc, const std::vector<trace::RankRecord>& ranks,
                                 std::int64_t n, bool lens, IdOrder id_order) {
  std::vector<const std::vector<Batch>*> passes;
  for (const auto& r : ranks) {
    RC_PRE(!r.epochs.at(0).error.has_value());  // a pass that raises is the replay's to report
    passes.push_back(&r.epochs.at(0).batches);
  }
  const auto times = multiplicity(passes, n);
  CoverageCounts want;
  want.dataset_len = n;
  MultiplicityCounter counter(n);
  for (std::int64_t id = 0; id < n; ++id) {
    const std::int64_t t = times[static_cast<std::size_t>(id)];
    counter.add(id, t);
    want.yielded += t;
    want.distinct += t > 0 ? 1 : 0;
    want.dropped += t == 0 ? 1 : 0;
    want.duplicated += t > 1 ? t - 1 : 0;
    want.repeated += t > 1 ? 1 : 0;
    want.max_times = std::max(want.max_times, t);
  }
  for (const analysis::Scenario& s : {analysis::analyze(lc, "", ""), analysis::analyze_counts(lc, "", "")}) {
    RC_ASSERT(!s.rejected.has_value());
    RC_ASSERT(s.replay_reason.empty());  // computed, not replayed
    RC_ASSERT(s.coverage.counts == want);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      RC_ASSERT(s.batches_per_rank.at(r) == static_cast<std::int64_t>(ranks[r].epochs.at(0).batches.size()));
      if (lens) RC_ASSERT(s.len_per_rank.at(r) == ranks[r].attributes.len.value_or(-1));
    }
  }
  const CoverageDetail ids = counter.finish(32);  // what-if.cpp lists 32 runs of each
  const analysis::Scenario shown = analysis::analyze(lc, "", "");
  if (id_order == IdOrder::Id) {
    RC_ASSERT(shown.coverage.duplicated_ids.ranges() == ids.duplicated_ids.ranges());
    RC_ASSERT(shown.coverage.dropped_ids.ranges() == ids.dropped_ids.ranges());
  } else {
    const auto listed = [&](const IdRanges& list, std::int64_t total, auto wanted) {
      for (const IdRange& run : list.ranges()) {
        for (SampleId id = run.first; id <= run.last; ++id) RC_ASSERT(wanted(times.at(static_cast<std::size_t>(id))));
      }
      if (!list.closed()) RC_ASSERT(list.count() == total);
    };
    listed(shown.coverage.duplicated_ids, want.repeated, [](std::int64_t t) { return t > 1; });
    listed(shown.coverage.dropped_ids, want.dropped, [](std::int64_t t) { return t == 0; });
  }
  const std::int64_t bins = std::min<std::int64_t>(n, 16);
  if (bins > 0) RC_ASSERT(analysis::coverage_strip(lc, bins) == coverage_bins(counter, bins));
}

}  // namespace accel::props
