#include "gather_for_metrics.hpp"

#include <algorithm>

#include "mutation.hpp"

namespace accel {
namespace {

Batch concatenate(const std::vector<Batch>& per_rank) {
  Batch out;
  for (const Batch& b : per_rank) out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool sizes_agree(const std::vector<Batch>& per_rank) {
  return std::all_of(per_rank.begin(), per_rank.end(),
                     [&](const Batch& b) { return b.size() == per_rank.front().size(); });
}

}  // namespace

std::string unequal_sizes_message(const std::vector<Batch>& per_rank) {
  std::string sizes = "[";
  for (std::size_t r = 0; r < per_rank.size(); ++r) sizes += (r ? ", " : "") + std::to_string(per_rank[r].size());
  return "batch sizes per rank " + sizes + "]: gloo's all_gather needs the same size on every rank";
}

GatherOutcome gather(const std::vector<Batch>& per_rank) {
  if (!sizes_agree(per_rank)) return {std::nullopt, unequal_sizes_message(per_rank), false};
  return {concatenate(per_rank), std::nullopt, false};
}

GatherOutcome gather_for_metrics(const std::vector<Batch>& per_rank, bool end_of_dataloader, std::int64_t remainder,
                                 bool use_gather_object, bool main_process, AccelerateRelease release) {
  // gather_object pickles each rank's batch whole, so sizes may differ; the tensor path may not.
  GatherOutcome out = use_gather_object ? GatherOutcome{concatenate(per_rank), std::nullopt, false} : gather(per_rank);
  if (!out.ids) return out;
  if (!end_of_dataloader) {
    // Before 0.22.0 the "no length" branch came first, so it logged on every step.
    if (remainder == -1 && !logs_no_length_only_at_end(release)) out.logged_no_length = main_process;
    return out;
  }
  if (remainder == -1) {
    out.logged_no_length = main_process;
    return out;
  }
  // Before 0.16.0 the last step is cut to [:remainder] whenever the remainder is known: 0 leaves nothing.
  if (remainder == 0 && gather_cuts_at_zero_remainder(release)) {
    out.ids->clear();
    return out;
  }
  const bool truncate = use_gather_object ? !mutant(Mutation::GatherObjectUntruncated)
                                          : !mutant(Mutation::GatherForMetricsKeepsPadding);
  // A slice [:remainder] past the end keeps everything, as Python's does.
  if (remainder > 0 && truncate && remainder < static_cast<std::int64_t>(out.ids->size())) {
    out.ids->resize(static_cast<std::size_t>(remainder));
  }
  return out;
}

}  // namespace accel
