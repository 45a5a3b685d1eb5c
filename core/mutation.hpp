// Planted bugs ("mutants") for the property tests: each property in props/ must be shown to fail, so a
// test build of the core can switch on one known bug at a time and check that RapidCheck finds it.
//
// Production build: mutant() is constexpr false, so every hook `if (mutant(Mutation::X)) ...` folds
// away and the core carries no switch and no global state. Test build (accel_core_mutants, compiled
// from the same sources with -DACCEL_SIM_MUTATIONS): mutant() reads one process-wide switch that the
// mutation tests set.
//
// Rules that keep the two builds link-compatible: include this header from core .cpp files only, and
// put hooks only in .cpp files, never in inline header code. Then every object file outside core/ (trace,
// sim, the properties) is the same in both builds, and the mutation test binary links those objects
// unchanged against the mutant core.
#pragma once

#ifdef ACCEL_SIM_MUTATIONS
#include <atomic>
#endif

namespace accel {

enum class Mutation {
  None,
  DropLastKeepsPartialRound,         // drop_last keeps each rank's full batches of the last, incomplete round
  PadFromEnd,                        // even_batches padding cycles the end of the epoch instead of its start
  UnevenRankOffByOne,                // even_batches=False: the last rank owed a tail batch does not get it
  SplitSliceOffset,                  // split_batches: rank r's slice starts at r*(b/R - 1) instead of r*(b/R)
  SkipNotApplied,                    // skip_first_batches(k) skips nothing
  IterableSkipKeepsCounter,          // a skipped iterable loader that yields nothing does not advance its counter
  SeedIgnoresEpoch,                  // SeedableRandomSampler seeds with initial_seed, not initial_seed + epoch
  SeedFromEntropy,                   // SeedableRandomSampler seeds from the OS: runs stop being reproducible
  DataSeedIgnored,                   // prepare_data_loader does not hand data_seed to SeedableRandomSampler
  DispatcherTailPadMissing,          // DataLoaderDispatcher does not complete its last batch from the first one
  IterableDropLastKeepsTail,         // IterableDatasetShard pads the short last real batch even with drop_last
  EpochPlanIgnoresSkip,              // EpochPlan counts a skipped pass's batches as if nothing were skipped
  SchedulerStepsDuringAccumulation,  // AcceleratedScheduler steps once on accumulation micro-steps
  SchedulerStepsAfterSkippedStep,    // AcceleratedScheduler steps although the optimizer step was skipped
  OneCycleGuardMissing,              // no _step_count <= total_steps guard: OneCycleLR is stepped past its end
  SetEpochLeavesCounter,             // set_epoch moves the sampler's epoch but not the loader's iteration counter
  RngStateNotRestored,               // load_state's torch.set_rng_state does not reach the loader's global generator
  GatherForMetricsKeepsPadding,      // gather_for_metrics (tensors) does not cut the last step to the remainder
  MeshIgnoresCp,                     // the data rank of a mesh rank divides by tp alone, not tp * cp
  SkippedDispatcherKeepsMesh,        // skip_first_batches' dispatcher keeps the torch_device_mesh (Accelerate drops it)
  GatherObjectUntruncated,           // gather_for_metrics with use_gather_object does not cut to the remainder
  AccumulateIgnoresEndOfDataloader,  // accumulate() does not sync on a loader's last batch (sync_with_dataloader)
  PreparedDrawsIgnored,              // draws from the global generator before prepare are not counted
  StatefulFinishedResumesPastEnd,    // a StatefulDataLoader state saved on a pass's last batch resumes after it
  StatefulInitialIteratorIgnored,    // the iterator a StatefulDataLoader builds at prepare (its _base_seed draw) is not
                                     // modelled
  WorkerStrideIgnored,               // a worker of a strided split reads consecutive positions, not every W-th
  HfShardPathIgnored,                // a datasets.IterableDataset with enough shards is wrapped in IterableDatasetShard
                                     // instead of taking Accelerate's .shard() path
  TrainerSkipIgnoresAccumulation,    // Trainer's resume skips global_step % nups batches, not that times GA
  IterablePassEndSyncs,              // without __len__, a pass's last micro-batches sync a short step instead of
                                     // joining the next pass's first step
  EvalLossMeanOfSamples,             // Trainer's eval_loss is the mean over the gathered samples, not over the
                                     // gathered (padded batches') losses
  UnseededGeneratorSeededFromGlobal,  // 0.14-0.23 / 0.30-1.5.2: prepare seeds the generator it creates from the
                                      // global generator (1.6's rule) instead of leaving it unseeded
  ShuffleRuleReachesSequential,       // an older release's shuffle rule also replaces an unshuffled loader's
                                      // SequentialSampler
  GlobalPerEpochRuleThrough15,        // 0.30.0-1.5.2 draw every pass's seed from the global generator (0.26-0.29's
                                      // rule) instead of keeping an unseeded generator of the loader's own
  CudaRngSyncSkipped,                 // rng_types=["cuda"] without a GPU: the shard's pass does not raise
  StatefulWorkersSnapshotSucceeds,    // 0.34-1.12's snapshot of a StatefulDataLoader with workers does not raise
  PrefetchAdjustmentMissing,          // 0.34-1.12's saved StatefulDataLoader state keeps the count it took (1.13's)
  HfShardAtLeastBefore114,            // 1.8.1-1.13 take .shard() with as many shards as processes (1.14's >=), not
                                      // only with more
  EmptyTrainLoaderTrains,             // Trainer with an empty train loader and no max_steps trains 0 steps instead of
                                      // raising ValueError (transformers' `if len_dataloader:`)
  DrawsBeforePrepareOffByOne,         // diff --recorded's draw count is one word too many (the pair read from w[i+1])
  TrainerCountsDropEpochEndSync,      // trainer_run_counts forgets the sync at an epoch's last micro-batch
  SkippedTotalBatchSizeRaisesIn116,   // 1.16.0's skipped DataLoaderShard still cannot read total_batch_size (1.15's
                                      // AttributeError), so its remainder stays -1 and the padding reaches the metric
  WorkerPlanShortBatchesFull,         // the worker plan counts a worker's short last batch as a full one
  HfPlanShardRunsShifted,             // the HF stream plan maps a shard's stream run one id too far
  WorkerPlanShortGroupsFull,          // the worker plan takes a dispatched batch holding a short worker batch as full
  PermutationCountsOneExtraYield,     // a permutation's counts take a sample yielded k > 2 times as one extra yield
};

#ifdef ACCEL_SIM_MUTATIONS
// The switch: read by the hooks (possibly from the simulator's rank threads), set by the tests.
inline std::atomic<Mutation> active_mutation{Mutation::None};
inline bool mutant(Mutation m) noexcept { return active_mutation.load(std::memory_order_relaxed) == m; }
#else
constexpr bool mutant(Mutation) noexcept { return false; }
#endif

}  // namespace accel
