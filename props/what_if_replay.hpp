// The what-if's computed scenario against every rank replayed: what properties 15b and 17b assert of the closed
// forms (core/worker_epoch_plan, core/hf_stream_plan).
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.hpp"

namespace accel::props {

// analysis::analyze and analyze_counts of `lc` (its first pass) are computed, not replayed, and equal what the
// replayed `ranks` yield: each rank's steps (and len() when `lens`), the counts of the n samples, the ids listed (32
// runs of each) and a coverage strip. RC_PRE-discards a case where a replayed pass raises. The ids are compared
// run for run where the what-if lists them in id order; `IdOrder::Epoch` (a drawn shuffle lists them in the order
// the epoch reaches them) checks instead that every id listed has the replay's multiplicity and that a list the cap
// did not cut holds every such id.
enum class IdOrder { Id, Epoch };
void check_what_if_equals_replay(const trace::LoaderCase& lc, const std::vector<trace::RankRecord>& ranks,
                                 std::int64_t n, bool lens, IdOrder order = IdOrder::Id);

}  // namespace accel::props
