// Accelerator.gather_for_metrics and Accelerator.gather in Accelerate 1.15.0, on the ids of one step.
//
// gather_for_metrics gathers every rank's batch (gather for tensors, gather_object when asked to or when
// the input holds non-tensors) and, only when the active loader has reached end_of_dataloader, cuts the
// gathered list to GradientState.remainder: a remainder of -1 ("no length": a loader that drops its last
// batch, or a dispatcher before it knows its tail) returns everything with an info log on the main
// process, 0 returns everything. A tensor gather over gloo needs the same size on every rank; with unequal
// sizes it aborts a process or returns values nobody sent, so the model reports that instead of guessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accelerate_release.hpp"
#include "batch.hpp"

namespace accel {

// Accelerate's log line for the "remainder unknown" branch (logger.info, main process only).
inline constexpr const char* kGatherNoLengthLog =
    "The used dataset had no length, returning gathered tensors. You should drop the remainder yourself.";

// What one collective call hands back on one rank: the gathered ids, or why there are none.
struct GatherOutcome {
  std::optional<Batch> ids;
  std::optional<std::string> unequal_sizes;  // the message when a tensor gather met unequal sizes
  bool logged_no_length = false;             // Accelerate's info log was emitted (main process only)
};

// The message for a tensor gather over ranks whose batch sizes differ (sizes as Python prints a list).
std::string unequal_sizes_message(const std::vector<Batch>& per_rank);

// accelerator.gather(batch): the batches concatenated in rank order, when every size agrees.
GatherOutcome gather(const std::vector<Batch>& per_rank);

// accelerator.gather_for_metrics(batch, use_gather_object) on a rank whose GradientState reads
// end_of_dataloader / remainder; main_process decides whether the log line is emitted.
// `release`: the cut and the log line follow gather_cuts_at_zero_remainder / logs_no_length_only_at_end.
GatherOutcome gather_for_metrics(const std::vector<Batch>& per_rank, bool end_of_dataloader, std::int64_t remainder,
                                 bool use_gather_object, bool main_process, AccelerateRelease release = kDefaultRelease);

}  // namespace accel
