// A DDP training loop over each rank's prepared loader, making the collectives a real job makes: what
// `for batch in loader: with accelerator.accumulate(model): loss.backward(); optimizer.step()` does
// on a DistributedDataParallel model, optionally inside `accelerator.join_uneven_inputs([model])`.
//
// Per micro-step a rank all_reduces its gradients when it syncs (accumulate()'s _do_sync: every
// gradient_accumulation_steps-th micro-step and the last batch of a loader; every micro-step with
// sync_each_batch, which keeps DDP out of no_sync). Under an enabled Join (torch.distributed.algorithms
// .Join with DDP as the joinable), every forward first all_reduces "I am not joined" and the
// requires-grad-sync flag, and a rank whose loader is exhausted shadows those collectives (and the
// gradient all_reduce whenever any rank syncs) until every rank has joined.
//
// The same function runs over the in-process group (the prediction) and over Gloo/NCCL in
// accel-sim-rank (the observation), so a job whose ranks make different numbers of gradient collectives
// blocks in the same place in both. Collectives pair by their order on each rank, not by step, as in a
// real process group: a rank that runs ahead into the next epoch silently pairs with a peer's earlier
// step. Each gradient all_reduce also carries (epoch, step) so that case is reported, not hidden.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "trace/trace.hpp"

namespace accel::sim {

struct TrainingLoop {
  std::int64_t gradient_accumulation_steps = 1;
  bool sync_each_batch = false;
  // `with accelerator.join_uneven_inputs([model], even_batches=join_even_batches):` around the loop.
  bool join_uneven_inputs = false;
  std::optional<bool> join_even_batches;
  // Accelerator.multi_device: a GPU-like job (MULTI_GPU, NPU, XPU, ...). Accelerate 1.15 runs
  // join_uneven_inputs only there; on MULTI_CPU (gloo on CPUs) it warns and does nothing, so uneven ranks
  // still block (recorded: golden/cases-ddp/uneven-n3-l10-b2-join.json).
  bool multi_device = true;
};

// Where a rank blocked forever: the collective it entered that some rank never will.
struct TrainingHang {
  std::int64_t epoch = 0;
  std::int64_t step = 0;              // micro-step within the epoch (from 0)
  std::string collective;             // "gradient all_reduce", "join notify", ...
  std::int64_t collective_index = 0;  // this rank's collectives completed before it
  std::vector<std::int64_t> missing_ranks;
  std::string message;
};

// The first gradient all_reduce whose ranks were at different (epoch, step): DDP averages gradients of
// different batches without noticing.
struct OutOfStep {
  std::int64_t epoch = 0;
  std::int64_t step = 0;
};

struct TrainingRank {
  std::int64_t rank = 0;
  std::vector<std::int64_t> micro_steps;  // per epoch, the batches this rank trained on
  std::int64_t gradient_all_reduces = 0;  // its own, completed
  std::int64_t shadowed_all_reduces = 0;  // joined: gradient all_reduces matched with zeros
  std::int64_t optimizer_steps = 0;       // AcceleratedOptimizer steps (syncing micro-steps)
  std::int64_t scheduler_steps = 0;       // the wrapped scheduler's steps through AcceleratedScheduler
  std::optional<TrainingHang> hang;
  std::optional<OutOfStep> out_of_step;
  std::optional<trace::ErrorRecord> error;  // the loader raised (a rejected config or a failing pass)
  std::optional<trace::RankRecord> record;  // what its loader yielded (the trace), unless prepare raised
};

// Whether join_uneven_inputs enables torch's Join for this config: only on a multi-device job, when the
// effective even_batches (the override, else the Accelerator's) is False, with more than one process.
bool join_enabled(const trace::LoaderCase& config, const TrainingLoop& loop);

// The loader config as the loop sees it: join_uneven_inputs(even_batches=...) overrides a map-style
// shard loader's even_batches for the duration of the loop (never a DataLoaderDispatcher's; only on a
// multi-device job).
trace::LoaderCase loader_under_loop(const trace::LoaderCase& config, const TrainingLoop& loop);

// One rank's loop over `comm` (its loader's own collectives included). Never throws for a hang.
TrainingRank train_rank(const trace::LoaderCase& config, std::int64_t rank, Communicator& comm,
                        const TrainingLoop& loop);

// Every rank, in one process: the prediction.
std::vector<TrainingRank> simulate_training_ranks(const trace::LoaderCase& config, const TrainingLoop& loop);

// The job's verdict over every rank's outcome, whoever observed them.
struct TrainingVerdict {
  bool completed = true;
  std::vector<std::int64_t> waiting_ranks;   // blocked forever
  std::vector<std::int64_t> finished_ranks;  // ended their loop while others waited
  std::optional<TrainingHang> hang;          // the first waiting rank's
  std::optional<OutOfStep> out_of_step;
  std::optional<trace::ErrorRecord> error;
};
TrainingVerdict training_verdict(const std::vector<TrainingRank>& ranks);

// The same verdict from each rank's batch count per pass alone, without running the loop: the collectives
// are known in advance (a gradient all_reduce where accumulate() syncs; Join's per-micro-step pair), so ranks
// with the same counts share one schedule and the verdict is found by walking the schedules side by side,
// O(distinct schedules x micro-steps). nullopt when it would take more than `max_micro_steps` per schedule,
// or under Join when ranks still training disagree on syncing (they pair different collectives; only
// running the loop says what then happens). `batches[r][e]`: rank r's batches in pass e. The verdict's
// hang carries no collective_index (the loader's collectives are not counted here).
std::optional<TrainingVerdict> predict_training(const std::vector<std::vector<std::int64_t>>& batches,
                                                const TrainingLoop& loop, bool join, std::int64_t max_micro_steps);

// "ranks 0-1 wait forever in the gradient all_reduce at epoch 0 step 1 (rank 2 finished its loop after
// 1 micro-step)"; "completed: ..." when nothing hung.
std::string describe(const TrainingVerdict& verdict, const std::vector<TrainingRank>& ranks);

}  // namespace accel::sim
