// `accel-sim upgrade --from X --to Y`: one configuration simulated under two Accelerate releases, and what changes
// on every rank: the samples and their order, the steps per epoch, duplicates and drops across ranks, ranks falling
// out of lock-step (a hang in the first per-step collective), errors, and what set_epoch / skip_first_batches leave
// behind (the loader's iteration, the seedable sampler's epoch), whether a job resumed from save_state sees what
// the uninterrupted job would have, and what gather_for_metrics hands the metric.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/resume_case.hpp"
#include "trace/trace.hpp"

namespace accel::analysis {

struct UpgradeChange {
  std::string where;  // "job", "ranks 0-1, epochs 0-1", "epoch 0" (across ranks)
  std::string what;   // "order changes (same samples)", "steps 16 -> 15", ...
};

// One side of the upgrade: the configuration under one release, and the resume and the evaluation that are simulated
// with it (each absent when it cannot be, `*_not_compared` then saying why).
struct UpgradeSide {
  trace::LoaderCase loader;
  std::optional<trace::ResumeCase> resume;
  std::optional<trace::MetricsCase> metrics;
};

// What one release makes of the resume or of the evaluation, in one line; two releases differ there when the lines do.
struct UpgradeOutcome {
  std::string label;   // "resume from epoch 1, step 2 with skip_first_batches"
  std::string before;  // "identical to the uninterrupted job", "not identical: 6 samples trained again, ..."
  std::string after;
};

struct UpgradeReport {
  std::string from, to;  // "0.28.0", "1.15.0"
  // The resume and the evaluation, simulated under both releases (changed or not), and what was not compared.
  std::vector<UpgradeOutcome> outcomes;
  std::vector<std::string> not_compared;
  // The release rules this configuration meets that differ between the two (informational: a rule may differ without
  // changing anything here).
  std::vector<std::string> rules;
  std::vector<UpgradeChange> changes;
  // A sample of the ids on each side where an order or the samples change: "rank 0, epoch 0: 456, 26, ... -> ...".
  std::vector<std::string> examples;
  // false: the job was compared by its structure only (upgrade_structure), not replayed id by id.
  bool replayed = true;
  bool nothing_changes() const noexcept { return changes.empty(); }
};

// The ids both releases' replays hold (every pass's positions, for the loader, the resume and the evaluation
// alike); past kUpgradeReplayLimit the upgrade compares the structure instead, unless ids are asked for.
std::int64_t upgrade_replay_positions(const trace::LoaderCase& config);
// 2^22 positions: a 64-rank, 3-epoch job of 10^6 samples takes about 2 s and 400 MB to replay both sides of.
inline constexpr std::int64_t kUpgradeReplayLimit = std::int64_t{1} << 22;

// `from` and `to`: the same configuration (trace::parse_config) with prepare.release set to each release. Loader
// families only (the what-if's configurations); raises std::invalid_argument for another.
UpgradeReport upgrade_report(const trace::LoaderCase& from, const trace::LoaderCase& to);

// The same with the resume and the evaluation: each is compared when both sides have it. `not_compared` (why a
// side has none) is carried into the report.
UpgradeReport upgrade_report(const UpgradeSide& from, const UpgradeSide& to, std::vector<std::string> not_compared = {});

// The upgrade of a job too large to replay (upgrade_replay_positions past the limit): the release rules that differ,
// and each side's first pass from the loaders' structure (every rank's steps, the samples duplicated and never seen
// across the ranks, where the ranks share an order); the rest goes to `not_compared` with `why`.
UpgradeReport upgrade_structure(const UpgradeSide& from, const UpgradeSide& to, std::vector<std::string> not_compared,
                                const std::string& why);

// One release's resume, in one line: identical, not identical (how many samples trained again and never, in which
// epochs), or the error the script meets.
std::string resume_outcome(const trace::ResumeCase& config);
// One release's evaluation pass, in one line: exact, inexact (duplicates and missing samples), or how it fails.
std::string metrics_outcome(const trace::MetricsCase& config);

}  // namespace accel::analysis
