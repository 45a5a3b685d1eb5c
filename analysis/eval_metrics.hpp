// The what-if's evaluation section (--eval): what accelerator.gather_for_metrics hands the metric over one
// evaluation pass of the configured loader, counted against the dataset, and, when that is not every sample
// exactly once, the options that fix it, each kept only after simulating it and finding it exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/id_ranges.hpp"

#include "analysis/warning.hpp"
#include "core/batch.hpp"
#include "trace/trace.hpp"

namespace accel::analysis {

// How many, and the first few runs of ids (ascending).
struct IdCount {
  std::int64_t count = 0;
  IdRanges ids{10};
};

// One evaluation pass, as rank 0's metric sees it.
struct EvalOutcome {
  std::int64_t steps = 0;              // steps whose gather completed on every rank
  std::int64_t metric_samples = 0;     // ids gather_for_metrics returned over those steps
  IdCount metric_duplicates;           // extra returns of an id already returned
  IdCount metric_missing;              // dataset ids never returned
  std::int64_t gather_samples = 0;     // ids plain gather returned (for contrast)
  bool remainder_unknown = false;      // Accelerate logged "The used dataset had no length ..."
  std::optional<std::int64_t> last_remainder;  // GradientState.remainder on the loader's last step, if reached
  // Why the loop cannot finish: a collective some ranks never join, or a tensor gather of unequal sizes.
  std::optional<std::string> failure;
  std::optional<std::int64_t> failure_step;
  std::optional<std::string> error;    // the loader itself raised, or Accelerate rejected the config

  bool exact() const noexcept {
    return !failure && !error && metric_duplicates.count == 0 && metric_missing.count == 0;
  }
};

// An option the user can change, with its simulated outcome (kept only when exact).
struct EvalFix {
  std::string label;  // e.g. "even_batches=True"
  std::string flags;  // e.g. "--even-batches"
  EvalOutcome outcome;
};

struct EvalReport {
  std::int64_t dataset_len = 0;
  bool use_gather_object = false;
  std::optional<std::int64_t> break_after;
  EvalOutcome outcome;
  std::vector<EvalFix> verified_fixes;  // empty when exact, or when no single option fixes it
  std::vector<Warning> warnings;        // only when the metric is inexact
};

// The most sample ids one simulated evaluation pass gathers (about 100 bytes each while it runs).
constexpr std::int64_t kMaxGatheredIds = std::int64_t{1} << 25;

// trace::ConfigError when the pass would gather more than kMaxGatheredIds ids.
EvalOutcome evaluate(const trace::MetricsCase& config);

// The outcome, and when inexact the verified fixes and the warning.
EvalReport eval_report(const trace::MetricsCase& config);

// The requirement name `check --require` takes for the evaluation loop.
inline constexpr const char* kExactMetrics = "exact-metrics";

// check --require exact-metrics: evidence when it fails, empty when it holds.
std::string exact_metrics_evidence(const EvalReport& report);

}  // namespace accel::analysis
