// The trace model of the `scheduler` family (golden/SCHEMA.md, section `scheduler`): the two kinds of
// case (a real accumulate() training loop, and AcceleratedScheduler.step() driven directly) and the
// per-micro-step records both produce. Plain values, no JSON (scheduler_json.cpp reads and writes them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/device_mesh.hpp"
#include "core/gradient_state.hpp"
#include "core/lr_scheduler.hpp"

namespace accel::trace {

enum class SchedulerApi {
  TrainingLoop,  // "Accelerator.prepare+AcceleratedScheduler"
  Direct,        // "AcceleratedScheduler.step(direct)"
};

inline constexpr const char* kSchedulerLoopApi = "Accelerator.prepare+AcceleratedScheduler";
inline constexpr const char* kSchedulerDirectApi = "AcceleratedScheduler.step(direct)";

struct SchedulerCase {
  SchedulerApi api = SchedulerApi::TrainingLoop;
  std::int64_t num_processes = 1;
  bool split_batches = false;
  bool step_with_optimizer = true;
  ScheduleSpec scheduler;
  // Micro-steps at which the optimizer reports step_was_skipped.
  std::vector<std::int64_t> skipped_micro_steps;
  // Extension: also skip each micro-step with this probability, drawn from `overflow_seed`.
  std::optional<double> overflow_prob;
  std::uint64_t overflow_seed = 0;
  bool multiprocess = false;

  // TrainingLoop: the Accelerator's plugin and the loop.
  GradientAccumulationPlugin plugin;
  std::optional<std::int64_t> dataset_len;  // nullopt: no DataLoader, micro_steps_per_epoch iterations
  std::int64_t batch_size = 1;
  // Extensions: the user's DataLoader(drop_last=...) and DataLoaderConfiguration(even_batches=...).
  bool drop_last = false;
  bool even_batches = true;
  std::int64_t micro_steps_per_epoch = 0;
  std::int64_t epochs = 1;
  // Extension: Accelerator(parallelism_config=...)'s mesh, which the loader is prepared with; the scheduler still
  // steps for num_processes, every rank of the job (AcceleratorState's count).
  std::optional<DeviceMesh> torch_device_mesh;

  // Direct: GradientState.adjust_scheduler as set, and sync_gradients for each micro-step.
  bool adjust_scheduler = false;
  std::vector<bool> sync_pattern;
};

// The wrapped scheduler's state: last_epoch, _step_count, get_last_lr()[0].
struct SchedulerState {
  std::int64_t last_epoch = 0;
  std::int64_t step_count = 0;
  double lr = 0.0;
};

// What Accelerate's state reported after setup (the direct kind reports only the last two).
struct SchedulerEffective {
  std::int64_t gradient_state_num_steps = 1;
  bool gradient_state_adjust_scheduler = false;
  bool gradient_state_sync_with_dataloader = true;
  std::int64_t accelerator_state_num_processes = 1;
};

struct MicroStepRecord {
  std::int64_t micro_step = 0;
  std::int64_t epoch = 0;        // TrainingLoop only
  std::int64_t batch_index = 0;  // TrainingLoop only
  bool sync_gradients = false;
  bool end_of_dataloader = false;  // TrainingLoop only
  bool step_was_skipped = false;
  std::int64_t scheduler_calls = 0;
  SchedulerState after;
};

struct SchedulerErrorRecord {
  std::int64_t micro_step = 0;
  std::string where;
  std::string type;
  std::string message;
};

struct SchedulerRankRecord {
  SchedulerApi api = SchedulerApi::TrainingLoop;
  std::int64_t rank = 0;
  SchedulerEffective effective;
  std::optional<std::int64_t> dataloader_len;  // TrainingLoop only
  SchedulerState initial;
  std::vector<MicroStepRecord> steps;
  std::optional<SchedulerErrorRecord> error;
};

}  // namespace accel::trace
