// accel-sim's training-loop flags (--grad-accum, --scheduler, --warmup, --total-steps, --lr,
// --step-size, --gamma, --overflow-steps, --overflow-prob, --overflow-seed) and the scheduler-family
// config they describe: a training loop over the DataLoader the loader flags describe.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_json.hpp"

namespace accel::cli {

struct TrainingFlags {
  std::int64_t grad_accum = 1;
  std::string scheduler;
  std::int64_t warmup = 0;
  std::optional<std::int64_t> total_steps;
  double lr = 1e-3;
  std::optional<std::int64_t> step_size;
  double gamma = 0.1;
  std::vector<std::int64_t> overflow_steps;
  std::optional<double> overflow_prob;
  std::optional<std::int64_t> overflow_seed;

  void add_to(CLI::App& app);

  bool enabled() const { return !scheduler.empty(); }

  // Raises trace::ConfigError naming the flag when the flags do not make one schedule.
  // `grad_accum_read_elsewhere`: --resume-at-step reads --grad-accum without a training section.
  void validate(bool skip_batches, bool grad_accum_read_elsewhere = false) const;

  // The training-loop config over `loader`, a loader config built from the loader flags.
  trace::Json config(const trace::Json& loader) const;

 private:
  trace::Json schedule() const;

  std::vector<CLI::Option*> options_;  // every flag that only means something with --scheduler
};

}  // namespace accel::cli
