// `accel-sim upgrade --from X --to Y`: one configuration simulated under two Accelerate releases, and what changes
// on every rank: the samples and their order, the steps per epoch, duplicates and drops across ranks, ranks falling
// out of lock-step (a hang in the first per-step collective), errors, and what set_epoch / skip_first_batches leave
// behind (the loader's iteration, the seedable sampler's epoch).
#pragma once

#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace accel::analysis {

struct UpgradeChange {
  std::string where;  // "job", "ranks 0-1, epochs 0-1", "epoch 0" (across ranks)
  std::string what;   // "order changes (same samples)", "steps 16 -> 15", ...
};

struct UpgradeReport {
  std::string from, to;  // "0.28.0", "1.15.0"
  // The release rules this configuration meets that differ between the two (informational: a rule may differ without
  // changing anything here).
  std::vector<std::string> rules;
  std::vector<UpgradeChange> changes;
  // A sample of the ids on each side where an order or the samples change: "rank 0, epoch 0: 456, 26, ... -> ...".
  std::vector<std::string> examples;
  bool nothing_changes() const noexcept { return changes.empty(); }
};

// `from` and `to`: the same configuration (trace::parse_config) with prepare.release set to each release. Loader
// families only (the what-if's configurations); raises std::invalid_argument for another.
UpgradeReport upgrade_report(const trace::LoaderCase& from, const trace::LoaderCase& to);

}  // namespace accel::analysis
