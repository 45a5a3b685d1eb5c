// The in-process N-rank simulator: runs every rank of a case through the core, in one process,
// deterministically, and records the trace the golden schema describes.
//
// Ranks are independent values (each has its own loader, sampler and generators), so the same case
// always gives the same trace and any rank can be simulated alone.
#pragma once

#include "trace/trace.hpp"

namespace accel::sim {

trace::Trace simulate(const trace::LoaderCase& config);
trace::Trace simulate(const trace::BatchSamplerShardCase& config);
trace::Trace simulate(const trace::RandpermCase& config);

// One rank of a loader case (the others are not computed).
trace::RankRecord simulate_rank(const trace::LoaderCase& config, std::int64_t rank);

}  // namespace accel::sim
