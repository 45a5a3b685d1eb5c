// transformers.Trainer.evaluate() on R ranks: what evaluation_loop gathers at each step, what its
// EvalLoopContainers hold at the end, and the eval_loss it reports (transformers 4.57 and 5.25; trainer.py,
// trainer_pt_utils.py).
//
// Each step gathers gather_for_metrics(loss.repeat(eval_batch_size)) — eval_batch_size values per rank whatever
// the batch's real size — and, with compute_metrics, the logits and the labels (pad_across_processes pads
// dimension 1 only, so unequal batch sizes still meet in the tensor gather). gather_for_metrics cuts only the
// loader's last step to GradientState.remainder (core/gather_for_metrics), so with padded batches every kept
// loss value is the mean of a batch that may hold padding: eval_loss is then not the mean over the dataset.
//
// The model is the one the recordings ran (golden/SCHEMA.md, trainer-eval): a batch's loss is the float32 mean of
// its ids and its logits are its ids, shape (batch, 1). eval_loss is numpy's float32 mean of the concatenated
// losses (core/numpy_mean).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batch.hpp"
#include "trainer_loop.hpp"

namespace accel {

// Rule: transformers 5.25 gives the evaluation LengthGroupedSampler its own generator seeded with data_seed (else
// seed), so every evaluate() reads one order; 4.57 gives it none, so each evaluate() draws its randperm from the
// process's global generator and the order moves on with every call.
bool seeds_eval_length_grouped_sampler(TransformersRelease release);

struct EvaluationOptions {
  std::int64_t eval_batch_size = 8;  // args.eval_batch_size: how often every step's loss is repeated
  bool compute_metrics = false;      // a compute_metrics callback: logits and labels are gathered too
  bool concat_batches = true;        // eval_do_concat_batches
  bool use_gather_object = false;    // this call gathers with gather_for_metrics(use_gather_object=True)
};

// One step of one rank's evaluation loop: its batch and GradientState's end_of_dataloader / remainder there.
struct EvaluationStep {
  Batch batch;
  bool end_of_dataloader = false;
  std::int64_t remainder = -1;
};

// What an EvalLoopContainer's get_arrays() returned: one numpy array (rows holds one row, nested false), or a list of
// 1-d arrays (nested: per step without eval_do_concat_batches, per position with gather_object).
template <typename T>
struct EvalArrays {
  bool nested = false;
  std::vector<std::vector<T>> rows;
  friend bool operator==(const EvalArrays&, const EvalArrays&) = default;
};

// How a rank's evaluate() failed: a Python exception it raised (type "ValueError", "RuntimeError"), a collective it
// waits in forever ("Hang") or the process aborted ("Crash").
struct EvaluationFailure {
  std::string type;
  std::string message;
  friend bool operator==(const EvaluationFailure&, const EvaluationFailure&) = default;
};

// Which batch a gathered loss value is the mean of: rank `rank`'s batch at step `step`.
struct LossSource {
  std::int64_t rank = 0;
  std::int64_t step = 0;
  friend bool operator==(const LossSource&, const LossSource&) = default;
};

struct RankEvaluation {
  std::vector<Batch> batches;  // what this rank's model saw, up to the step it stopped at
  std::optional<EvalArrays<float>> losses;
  std::optional<EvalArrays<LossSource>> loss_sources;  // parallel to losses: what each value averages
  std::optional<EvalArrays<std::int64_t>> predictions;  // the gathered logits (ids); only with compute_metrics
  std::optional<float> eval_loss;
  std::optional<EvaluationFailure> failure;
};

// The loss the recorded model returns for a batch: the float32 mean of its ids (sums exact below 2^24).
float batch_loss(const Batch& batch);

// One evaluate() call on every rank; steps[r] is rank r's loop. A step some ranks never reach leaves the others
// waiting in that step's first gather (Hang); the ranks that left return what they gathered. Unequal logits sizes in
// a tensor gather abort over gloo as recorded on two ranks (gloo's ring sends each rank's buffer in two halves: the
// rank that receives a bigger half than its own aborts, the other reads a reset connection); on more ranks that is
// reported as a failure of every rank without the per-rank detail. Raises std::invalid_argument for inputs outside
// the model (an empty batch, gather_object without eval_do_concat_batches).
std::vector<RankEvaluation> evaluation_loop(const std::vector<std::vector<EvaluationStep>>& steps,
                                            const EvaluationOptions& options);

// gloo's words for the abort and the reset connection (the peer's ephemeral port written PORT, as the recordings
// write it). A Hang carries no message: the caller words it (trace/recorder_words.hpp).
std::string gloo_abort_message(std::int64_t rank, std::int64_t received_bytes, std::int64_t expected_bytes);
extern const char* const kGlooConnectionReset;

}  // namespace accel
