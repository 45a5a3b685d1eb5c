// The properties as GoogleTest tests against the core (`props`; ctest runs each as its own entry,
// label `props`). `props --cases N` sets RapidCheck's cases per property; a failure prints the shrunk
// counterexample, the seed and the command that replays it.
#include <gtest/gtest.h>

#include "properties.hpp"
#include "property.hpp"

namespace accel::props {

ACCEL_PROP(Coverage, WholeDatasetUnlessDropLast, coverage_is_whole_dataset_unless_drop_last)
ACCEL_PROP(Duplication, EqualsThePaddingFromTheEpochStart, duplicates_equal_the_padding_from_the_epoch_start)
ACCEL_PROP(LockStep, BatchCountsAndLenPerRank, batch_counts_and_len_per_rank)
ACCEL_PROP(LockStep, UnevenRanksHangExactlyWherePredicted, uneven_ranks_hang_exactly_where_predicted)
ACCEL_PROP(SplitBatches, MatchesUnsplitOnEveryStep, split_batches_matches_unsplit_on_every_step)
ACCEL_PROP(DeviceMesh, GroupsShareBatchesAndDataRanksRunThePlainJob,
           mesh_groups_share_batches_and_data_ranks_run_the_plain_job)
ACCEL_PROP(DeviceMesh, TpDispatchReplicatesOneBatchToEveryRank, mesh_tp_dispatch_replicates_one_batch_to_every_rank)
ACCEL_PROP(DeviceMesh, SkippedTpDispatcherIsThePlainDispatcher, mesh_skipped_tp_dispatcher_is_the_plain_dispatcher)
ACCEL_PROP(Resume, SkipYieldsTheSuffixAndLeavesTheCounters, skip_yields_the_suffix_and_leaves_the_counters)
ACCEL_PROP(Determinism, TraceJsonIsByteIdentical, trace_json_is_byte_identical_for_the_same_config)
ACCEL_PROP(Determinism, ADifferentSeedGivesADifferentTrace, a_different_seed_gives_a_different_trace)
ACCEL_PROP(Determinism, SeedableSamplerOrderPerEpochAndRank, seedable_sampler_order_per_epoch_and_rank)
ACCEL_PROP(Dispatch, EqualsShardOnFullSteps, dispatcher_equals_shard_on_full_steps)
ACCEL_PROP(Dispatch, PlanEqualsDispatcher, dispatch_plan_equals_dispatcher)
ACCEL_PROP(Dispatch, SequentialScheduleEqualsThreadedGroup, sequential_schedule_equals_threaded_group)
ACCEL_PROP(DirectVsReplay, MapShard, map_direct_equals_replay)
ACCEL_PROP(DirectVsReplay, IterableShard, iterable_direct_equals_replay)
ACCEL_PROP(DirectVsReplay, EpochPlanEqualsSimulation, epoch_plan_equals_simulation)
ACCEL_PROP(Scheduler, StepsRTimesPerOptimizerStep, scheduler_steps_r_times_per_optimizer_step)
ACCEL_PROP(Scheduler, DirectStepsFollowSyncAndSkips, scheduler_direct_steps_follow_sync_and_skips)
ACCEL_PROP(Scheduler, OneCycleNeverPassesTotalStepsWithoutSplit, one_cycle_never_passes_total_steps_without_split)
ACCEL_PROP(Checkpoint, SeedableSetEpochResumeIsExact, seedable_set_epoch_resume_is_exact)
ACCEL_PROP(Checkpoint, SingleProcessRandomResumeDrawsTheNextEpoch, single_process_random_resume_draws_the_next_epoch)
ACCEL_PROP(Eval, GatherForMetricsIsExactOnEvenMapShards, gather_for_metrics_is_exact_on_even_map_shards)
ACCEL_PROP(Eval, GatherObjectMetricsAreExactWhenDispatched, gather_object_metrics_are_exact_when_dispatched)
ACCEL_PROP(Training, DdpBlocksWhereTheGradientCollectivesRunOut, ddp_training_blocks_where_the_gradient_collectives_run_out)
ACCEL_PROP(GlobalDraws, AdvanceThePassesDrawnFromTheGlobalGenerator,
           draws_before_prepare_advance_the_passes_drawn_from_the_global_generator)
ACCEL_PROP(GlobalDraws, LeaveSeededSamplersAlone, draws_before_prepare_leave_seeded_samplers_alone)
ACCEL_PROP(GlobalDraws, StatefulLoaderDrawsItsFirstIteratorAtPrepare,
           stateful_loader_draws_its_first_iterator_at_prepare)

}  // namespace accel::props
