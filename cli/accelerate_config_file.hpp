// The file `accelerate config` writes (default_config.yaml; YAML or JSON) and the ACCELERATE_* environment
// variables Accelerate itself reads for the same options: what of a user's launch setup changes which
// samples a rank sees or how often the optimizer and scheduler step.
//
// `accelerate launch` turns the file into the process environment; the Accelerator then reads that
// environment. So the environment wins over the file here, and the command line wins over both. Every
// top-level field is reported as used (with what it decides) or ignored (with why), so a user can see
// that the simulation read their file the way Accelerate would.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace accel::cli {

struct AccelerateConfigFile {
  std::string path;  // empty: no file, only the environment
  std::optional<std::int64_t> num_processes;  // the world size, over all machines
  std::optional<std::int64_t> num_machines;
  std::optional<std::int64_t> machine_rank;
  std::optional<std::string> distributed_type;
  std::optional<std::string> mixed_precision;
  std::optional<bool> use_cpu;
  std::optional<std::int64_t> gradient_accumulation_steps;  // deepspeed_config.gradient_accumulation_steps
  // parallelism_config's sizes as --parallelism spells them ("dp_shard=2,tp=4"); only sizes above 1.
  std::optional<std::string> parallelism;
  std::vector<std::string> used;     // "num_processes: 12 -> 12 ranks"
  std::vector<std::string> ignored;  // "gpu_ids: which devices, not which samples"

  bool xla() const { return distributed_type && *distributed_type == "XLA"; }
};

// Reads and validates the file: a malformed file, a field of the wrong type or value, or a distributed
// type this project does not model raises trace::ConfigError naming `config_file.<field>` and the rule.
AccelerateConfigFile read_accelerate_config_file(const std::string& path);

// Overlays ACCELERATE_MIXED_PRECISION, ACCELERATE_GRADIENT_ACCUMULATION_STEPS and ACCELERATE_USE_CPU, read
// through `getenv` (std::getenv in the CLI; a map in tests). Bad values raise ConfigError naming the variable.
void apply_accelerate_environment(AccelerateConfigFile& config,
                                  const std::function<const char*(const char*)>& getenv);

}  // namespace accel::cli
