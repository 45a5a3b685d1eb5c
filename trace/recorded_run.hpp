// A real job's recording (accelerate_sim.record, docs/recording.md): one file per rank, family "recorded", each the
// accelerator family's trace restricted to that rank, with the passes of a resumed run appended as later segments of
// the same epoch. Plain values; recorded_json reads a directory of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/batch.hpp"
#include "trace_json.hpp"

namespace accel::trace {

struct RecordedPass {
  std::int64_t epoch = 0;       // the loader's epoch (iteration, or the set_epoch value) when the pass began
  std::int64_t segment = 0;     // 0; a resumed run's pass of the same epoch is segment 1, 2, ...
  std::int64_t start_step = 0;  // batches skipped before this segment's first (skip_first_batches)
  std::vector<Batch> batches;
  bool complete = true;  // the pass ran to the loader's end (false: the loop broke off or the process died)
  std::int64_t end_step() const noexcept { return start_step + static_cast<std::int64_t>(batches.size()); }
};

struct RecordedRank {
  std::int64_t rank = 0;
  std::string loader_class;
  std::optional<std::int64_t> len;  // len(prepared loader); nullopt when it raised
  std::vector<RecordedPass> passes;  // in the order recorded
  std::string file;
};

struct RecordedRun {
  std::string name;
  Json config;  // what the recorder read of the loader (accelerator family keys), with `modelled` / `not_modelled`
  std::int64_t num_processes = 1;
  std::optional<std::int64_t> dataset_len;
  bool modelled = false;
  std::vector<std::string> not_modelled;
  // torch.initial_seed() of rank 0 when it recorded (set_seed's value): what seeds a shuffle in the simulation.
  std::optional<Json> torch_initial_seed;
  // The seed of the generator Accelerate synchronised for rank 0's shuffled sampler at its first pass
  // (reference.sampler_generator_seed): prepare drew it from torch's global generator, so it tells how many words the
  // script drew between set_seed and prepare (diff --recorded's hint).
  std::optional<std::uint64_t> sampler_generator_seed;
  // The releases rank 0's process ran (reference.accelerate_version, reference.torch): what the simulation of the
  // recording reproduces, where the config does not name them itself.
  std::optional<std::string> accelerate_version;
  std::optional<std::string> torch_version;
  std::vector<RecordedRank> ranks;  // rank order, every rank 0 .. num_processes - 1
};

}  // namespace accel::trace
