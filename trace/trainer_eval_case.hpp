// Family `trainer-eval` (golden/SCHEMA.md): transformers.Trainer.evaluate() called num_evaluations times on R ranks
// over a map-style eval dataset. Plain values; trainer_eval_json reads and writes them.
#pragma once

#include <string>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/trainer_evaluation.hpp"
#include "core/trainer_loop.hpp"
#include "trace.hpp"

namespace accel::trace {

struct TrainerEvalCase {
  TransformersRelease release = TransformersRelease::v5_25;
  std::string version = "5.25";  // the release as given (kTransformersReleases): its rules are `release`'s
  // accelerator.prepare(DataLoader(eval_dataset, batch_size=eval_batch_size, sampler=<eval sampler>,
  // drop_last=dataloader_drop_last)) after set_seed(seed), as an accelerator-family script of one pass.
  LoaderCase loader;
  EvaluationOptions options;  // use_gather_object: what the first evaluate() uses (the later ones gather plainly)
  std::int64_t num_evaluations = 1;
};

struct TrainerEvaluationRecord {
  std::vector<Batch> batches;
  std::optional<EvalArrays<float>> losses;
  std::optional<EvalArrays<std::int64_t>> predictions;
  std::optional<float> eval_loss;
};

struct TrainerEvalRankRecord {
  std::int64_t rank = 0;
  std::vector<TrainerEvaluationRecord> evaluations;  // one per evaluate() started; a failed one is the last
  std::optional<ErrorRecord> error;
};

struct TrainerEvalTrace {
  std::vector<TrainerEvalRankRecord> ranks;
};

}  // namespace accel::trace
