// `accel-sim check --recorded DIR`: the CI gate judged on what a real job's ranks saw (accelerate_sim.record), not on a
// simulation, so it holds for pipelines accel-sim does not model. Each epoch is the union of its segments (a resumed
// run's passes of the same epoch): a sample trained before the crash and again after the resume is a duplicate, one
// neither before nor after is dropped. And `accel-sim diff --recorded DIR`: where the real job left the prediction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/requirements.hpp"
#include "trace/recorded_run.hpp"

namespace accel::analysis {

// no-duplicates, no-drops, full-coverage, lockstep, len-consistent per recorded epoch. Raises std::invalid_argument
// for another name, or for no-drops / full-coverage when the recording has no dataset length.
CheckReport judge_recorded(const trace::RecordedRun& run, const std::vector<std::string>& requirements);

// The first rank / epoch / step where the recording differs from the simulation of its configuration (segment 0 of
// each epoch: a resumed run's later segments are judged by check --recorded, not predicted).
struct RecordedDivergence {
  std::int64_t rank = 0;
  std::int64_t epoch = 0;
  std::int64_t step = 0;
  std::string recorded;   // the batch (or "no batch")
  std::string simulated;
};

// Why a shuffled recording left the simulation at its first step, when the sampler generator's seed says it: the
// 32-bit words the script drew from torch's global generator between set_seed and prepare (core/
// draws_before_prepare.hpp), and what the simulation with them gives.
struct DrawsHint {
  std::uint64_t sampler_generator_seed = 0;     // what rank 0's sampler generator was seeded with (recorded)
  std::uint64_t torch_seed = 0;                 // torch.initial_seed() the recording's set_seed gives rank 0
  std::optional<std::uint64_t> draws;           // the words drawn; nullopt: no count up to kMaxDrawsBeforePrepare
  std::optional<RecordedDivergence> remaining;  // with `draws` simulated: where it still differs (nullopt: identical)
};

struct RecordedDiff {
  bool comparable = false;
  std::string why_not;  // when not comparable
  std::int64_t batches_compared = 0;
  std::optional<RecordedDivergence> divergence;
  std::optional<DrawsHint> draws_hint;  // only with a divergence at a shuffle's first step
};

// Raises trace::ConfigError where the recorded configuration is refused by the simulator. `rng_draws`: the words
// drawn between set_seed and prepare (--rng-draws), which the recording cannot know; without it, a hint may say.
RecordedDiff diff_recorded(const trace::RecordedRun& run, std::optional<std::uint64_t> rng_draws = std::nullopt);

}  // namespace accel::analysis
