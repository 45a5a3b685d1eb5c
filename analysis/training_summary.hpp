// The report model of the what-if's training section: per epoch, how many optimizer steps were taken
// or skipped, how far the wrapped scheduler moved, and the lr it ended on; plus the warnings a user
// needs (a schedule that runs num_processes times faster than the optimizer, a OneCycleLR that raised).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/warning.hpp"
#include "trace/trace.hpp"

namespace accel::analysis {

struct EpochTraining {
  std::int64_t epoch = 0;
  std::int64_t micro_steps = 0;
  std::int64_t optimizer_steps = 0;  // syncing micro-steps whose step was not skipped
  std::int64_t skipped_steps = 0;    // syncing micro-steps whose step was skipped
  std::int64_t scheduler_steps = 0;  // underlying scheduler.step() calls
  std::int64_t last_epoch_end = 0;
  double lr_end = 0.0;
};

// The lr after an optimizer step (0: before the first), with where the schedule then stands.
struct LrPoint {
  std::int64_t optimizer_step = 0;
  std::int64_t epoch = 0;
  std::int64_t last_epoch = 0;
  double lr = 0.0;
};

struct TrainingSummary {
  std::int64_t num_processes = 1;
  bool split_batches = false;
  std::int64_t gradient_accumulation_steps = 1;
  std::int64_t steps_per_optimizer_step = 1;  // what AcceleratedScheduler does per optimizer step
  std::string schedule;                       // e.g. "linear warm-up (lr 0.1, warmup 10, total_steps 100)"
  std::optional<std::int64_t> schedule_length;  // total_steps / training_steps, when the shape has one
  double initial_lr = 0.0;
  std::vector<EpochTraining> epochs;
  std::int64_t optimizer_steps = 0;
  // First optimizer step (1-based) after which last_epoch reached schedule_length, if it did.
  std::optional<std::int64_t> schedule_end_optimizer_step;
  std::int64_t guarded_steps = 0;  // scheduler steps the OneCycleLR guard held back
  std::optional<trace::SchedulerErrorRecord> error;
  std::int64_t scheduler_steps = 0;           // underlying scheduler.step() calls over the whole run
  std::int64_t last_epoch_end = 0;            // where the schedule stands when training ends
  double lr_end = 0.0;
  // The schedule's length and warm-up that make it end exactly when this run's training does, under
  // Accelerate's stepping (steps_per_optimizer_step per optimizer step); set when it does not.
  std::optional<std::int64_t> corrected_total_steps;
  std::optional<std::int64_t> corrected_warmup;
  // The correction applied and simulated (advice is simulated before it is printed): the optimizer step
  // at which the corrected schedule reaches its end, and the lr training ends on.
  std::optional<std::int64_t> corrected_end_optimizer_step;
  std::optional<double> corrected_lr_end;
  // What the corrected warm-up keeps of the user's ("a warm-up of 10 optimizer steps", "the warm-up's share of
  // the schedule, 10%"): the intent the advice states and the simulation checked.
  std::string corrected_warmup_intent;
  // Findings, most important first: a schedule that ends before training does (and from which optimizer
  // step on training runs past it), or one still far from its end when training stops.
  std::vector<Warning> warnings;
  // The lr over the run, one point per optimizer step (evenly thinned to at most kLrCurvePoints, the first
  // and the last kept), for a chart.
  std::vector<LrPoint> lr_curve;
};

inline constexpr std::size_t kLrCurvePoints = 1000;

// An lr or step count as the findings print it (6 significant digits), for renderers to match.
std::string lr_text(double v);

TrainingSummary summarize_training(const trace::SchedulerCase& config, const trace::SchedulerRankRecord& rank);

}  // namespace accel::analysis
