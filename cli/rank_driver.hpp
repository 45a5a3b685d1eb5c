// How accel-sim hands real ranks to accel-sim-rank, the executable next to it that links LibTorch:
// the flags `run` and `launch` share, and where the driver is. accel-sim itself never links LibTorch,
// so the what-if, trace and diff commands keep starting in milliseconds.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_json.hpp"

namespace accel::cli {

struct RankFlags {
  std::string config_path;  // a golden-schema file; otherwise the loader flags' config
  std::string backend = "gloo";
  std::string out_path;
  double timeout_s = 30;
  std::optional<std::int64_t> die_at_step;
  std::optional<std::int64_t> die_rank;
  bool check_collectives = false;  // the transport's self-check instead of a config
  // The training step every rank runs on its batches (sim/ddp_training.hpp), unless loader_only.
  bool loader_only = false;
  std::int64_t grad_accum = 1;
  bool sync_each_batch = false;
  bool join_uneven_inputs = false;
  std::optional<bool> join_even_batches;
  std::string distributed_type;  // MULTI_CPU or MULTI_GPU; empty: by the backend (gloo: MULTI_CPU, nccl: MULTI_GPU)

  void add_to(CLI::App& app);

  // Whether the loader flags must describe a config (no --config file, no --check-collectives).
  bool needs_loader_config() const { return config_path.empty() && !check_collectives; }

  // accel-sim-rank's arguments (after its name): the file, `config` inline, or the self-check.
  std::vector<std::string> driver_args(const trace::Json& config) const;
};

// accel-sim-rank next to the running accel-sim; ConfigError when it is not there.
std::string rank_driver_path();

// Replaces this process with the rank driver (`accel-sim run`, e.g. under torchrun). Returns only
// when it cannot be started, after saying why.
int exec_rank_driver(const std::vector<std::string>& args);

}  // namespace accel::cli
