// What transformers.Trainer.evaluate() measures on R ranks: for each call, whether the predictions handed to
// compute_metrics hold every eval sample once, whether eval_loss weighs every sample once (it averages the
// gathered per-batch losses, each repeated per_device_eval_batch_size times, so a batch padded by even_batches is
// averaged with its padding), and which ranks crash or wait. Findings carry the smallest change that makes the
// evaluation exact, found by simulating the alternatives. One model for the report and the gate (exact-metrics);
// reports/trainer_render only renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/warning.hpp"
#include "core/id_ranges.hpp"
#include "trace/trainer_eval_case.hpp"

namespace accel::analysis {

struct TrainerEvalRankFailure {
  std::int64_t rank = 0;
  std::string type;  // "Hang", "Crash", or the Python exception
  std::string message;
};

struct TrainerEvalCall {
  std::int64_t index = 0;     // the evaluate() call, from 0
  bool gather_object = false;  // this call gathers with use_gather_object (only the first call does)
  std::vector<std::int64_t> batches_per_rank;
  std::vector<TrainerEvalRankFailure> failures;
  // Read on the first rank that returned: nullopt when no rank returned or nothing was gathered.
  std::optional<std::int64_t> reporting_rank;
  std::int64_t loss_values = 0;
  std::optional<std::int64_t> predictions;  // gathered predictions (with compute_metrics)
  IdRanges duplicated_predictions, missing_predictions;
  // Each eval sample's weight in eval_loss, relative to the mean weight, is 1 when exact: the ids above and below it
  // (an id in no kept batch weighs 0).
  IdRanges overweighted, underweighted;
  std::int64_t overweighted_count = 0, underweighted_count = 0, duplicated_count = 0, missing_count = 0;
  bool predictions_exact = true;
  bool loss_exact = true;
  bool exact() const noexcept { return failures.empty() && predictions_exact && loss_exact; }
};

struct TrainerEvalReport {
  trace::TrainerEvalCase config;
  std::int64_t dataset_len = 0;
  std::vector<TrainerEvalCall> calls;
  std::optional<std::string> exact_alternative;  // a change simulated to make every call exact
  std::vector<Warning> findings;                 // errors first
  bool exact() const noexcept {
    for (const auto& c : calls) {
      if (!c.exact()) return false;
    }
    return !calls.empty();
  }
};

// Raises trace::ConfigError for what the simulator does not model (named).
TrainerEvalReport trainer_evaluation_report(const trace::TrainerEvalCase& config);

// exact-metrics on the report: "" when every call is exact, else the evidence.
std::string trainer_eval_evidence(const TrainerEvalReport& report);

}  // namespace accel::analysis
