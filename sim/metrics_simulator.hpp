// The `metrics` family in the simulator: every rank's evaluation loop over the prepared loader, with the
// gather_for_metrics / gather results of each step computed from the core's per-rank batches and the
// GradientState values (end_of_dataloader, remainder) the loaders report.
//
// A step that not every rank reaches is where the ranks still looping wait forever (type "Hang", the loop
// ends there on every rank), as the recorder's size round shows on real gloo groups.
#pragma once

#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace accel::sim {

trace::Trace simulate(const trace::MetricsCase& config);

// The same, with the step records of rank 0 only (every rank's errors are still there): every rank
// receives the same gathered ids, so a caller counting what the metric sees needs one copy, not R.
trace::Trace simulate_rank0_steps(const trace::MetricsCase& config);

// The message a rank still in the loop records when others have none at `step`.
std::string left_loop_message(const std::vector<std::int64_t>& left, std::int64_t step);

}  // namespace accel::sim
