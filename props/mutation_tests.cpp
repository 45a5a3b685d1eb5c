// Every property must be able to fail. Each test here plants one bug in the core (core/mutation.hpp;
// this binary links accel_core_mutants), runs a property against it, and passes only when RapidCheck
// finds a counterexample and shrinks it to a small config; the shrunk counterexample is printed.
//
// Built into `props_mutants` only (with -DACCEL_SIM_MUTATIONS); `props_mutants --cases N` bounds the
// cases each search may use.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <regex>
#include <string>

#include "core/mutation.hpp"
#include "properties.hpp"
#include "property.hpp"

namespace accel::props {
namespace {

// Turns one planted bug on for the lifetime of the guard.
class PlantedBug {
 public:
  explicit PlantedBug(Mutation m) { active_mutation.store(m); }
  ~PlantedBug() { active_mutation.store(Mutation::None); }
  PlantedBug(const PlantedBug&) = delete;
  PlantedBug& operator=(const PlantedBug&) = delete;
};

// A numeric field `name=value` of a printed config, if the counterexample has one.
std::optional<long long> field(const rc::detail::Example& example, const std::string& name) {
  const std::regex pattern("(^|[ {])" + name + "=(\\d+)");
  for (const auto& [type, value] : example) {
    std::smatch m;
    if (std::regex_search(value, m, pattern)) return std::stoll(m[2]);
  }
  return std::nullopt;
}

// What "shrunk to a small config" means here: the failure is explained by a handful of ranks and
// samples. Every planted bug below shows up with at most 4 ranks, 8 samples and batch size 4 (split
// configs scale the batch to a multiple of the ranks, hence 8 there).
struct Small {
  long long ranks = 4;
  long long dataset_len = 8;
  long long batch_size = 8;
};

void expect_caught(const char* test, Mutation mutation, Property property, Small small = {}) {
  const PlantedBug bug(mutation);
  const auto result = run_property(std::string("Mutants/") + test, property, /*expected_to_fail=*/true);
  ASSERT_TRUE(result.is<rc::detail::FailureResult>())
      << "the planted bug survived " << configured_cases() << " cases (seed " << configured_seed() << ")";
  const auto& failure = result.get<rc::detail::FailureResult>();
  std::cout << "caught after " << failure.numSuccess + 1 << " cases; shrunk counterexample:\n";
  for (const auto& [type, value] : failure.counterExample) std::cout << "  " << value << "\n";
  std::cout << "  -> " << failure.description << "\n";
  std::cout << "replay: " << replay_command("Mutants", test) << "\n";
  for (const auto& [name, bound] : {std::pair<std::string, long long>{"ranks", small.ranks},
                                    {"dataset_len", small.dataset_len},
                                    {"batch_size", small.batch_size}}) {
    const auto value = field(failure.counterExample, name);
    EXPECT_TRUE(!value || *value <= bound) << name << "=" << *value << " is not small (<= " << bound << ")";
  }
}

}  // namespace

#define ACCEL_MUTANT(Name, M, property, ...) \
  TEST(Mutants, Name) { expect_caught(#Name, Mutation::M, &(property)__VA_OPT__(, ) __VA_ARGS__); }

ACCEL_MUTANT(DropLastKeepsPartialRound_Coverage, DropLastKeepsPartialRound, coverage_is_whole_dataset_unless_drop_last)
ACCEL_MUTANT(PadFromEnd_Duplication, PadFromEnd, duplicates_equal_the_padding_from_the_epoch_start)
ACCEL_MUTANT(UnevenRankOffByOne_BatchCounts, UnevenRankOffByOne, batch_counts_and_len_per_rank)
ACCEL_MUTANT(UnevenRankOffByOne_Hang, UnevenRankOffByOne, uneven_ranks_hang_exactly_where_predicted)
ACCEL_MUTANT(SplitSliceOffset_SplitEquivalence, SplitSliceOffset, split_batches_matches_unsplit_on_every_step)
ACCEL_MUTANT(SkipNotApplied_Resume, SkipNotApplied, skip_yields_the_suffix_and_leaves_the_counters)
ACCEL_MUTANT(IterableSkipKeepsCounter_Resume, IterableSkipKeepsCounter, skip_yields_the_suffix_and_leaves_the_counters)
ACCEL_MUTANT(SeedFromEntropy_ByteIdentical, SeedFromEntropy, trace_json_is_byte_identical_for_the_same_config)
ACCEL_MUTANT(DataSeedIgnored_DifferentSeed, DataSeedIgnored, a_different_seed_gives_a_different_trace, Small{4, 20, 8})
ACCEL_MUTANT(SeedIgnoresEpoch_SeedableOrder, SeedIgnoresEpoch, seedable_sampler_order_per_epoch_and_rank)
ACCEL_MUTANT(DispatcherTailPadMissing_DispatchVsShard, DispatcherTailPadMissing, dispatcher_equals_shard_on_full_steps)
ACCEL_MUTANT(DispatcherTailPadMissing_PlanVsDispatcher, DispatcherTailPadMissing, dispatch_plan_equals_dispatcher)
ACCEL_MUTANT(PadFromEnd_MapReplay, PadFromEnd, map_direct_equals_replay)
ACCEL_MUTANT(IterableDropLastKeepsTail_IterableReplay, IterableDropLastKeepsTail, iterable_direct_equals_replay)
ACCEL_MUTANT(EpochPlanIgnoresSkip_EpochPlan, EpochPlanIgnoresSkip, epoch_plan_equals_simulation)
ACCEL_MUTANT(SchedulerStepsDuringAccumulation_Loop, SchedulerStepsDuringAccumulation, scheduler_steps_r_times_per_optimizer_step)
ACCEL_MUTANT(SchedulerStepsAfterSkippedStep_Direct, SchedulerStepsAfterSkippedStep, scheduler_direct_steps_follow_sync_and_skips)
ACCEL_MUTANT(OneCycleGuardMissing_OneCycle, OneCycleGuardMissing, one_cycle_never_passes_total_steps_without_split)
ACCEL_MUTANT(SetEpochLeavesCounter_ExactResume, SetEpochLeavesCounter, seedable_set_epoch_resume_is_exact)
ACCEL_MUTANT(RngStateNotRestored_SingleProcessResume, RngStateNotRestored, single_process_random_resume_draws_the_next_epoch)
ACCEL_MUTANT(RngStateNotRestored_ReleasesResume, RngStateNotRestored, global_generator_releases_resume_on_the_next_epoch)
ACCEL_MUTANT(GlobalPerEpochRuleThrough15_ReleasesResume, GlobalPerEpochRuleThrough15,
             own_generator_releases_resume_on_epoch_zero)
ACCEL_MUTANT(GatherForMetricsKeepsPadding_EvenMapShards, GatherForMetricsKeepsPadding,
             gather_for_metrics_is_exact_on_even_map_shards)
ACCEL_MUTANT(MeshIgnoresCp_Groups, MeshIgnoresCp, mesh_groups_share_batches_and_data_ranks_run_the_plain_job)
ACCEL_MUTANT(SkippedDispatcherKeepsMesh_Resume, SkippedDispatcherKeepsMesh,
             mesh_skipped_tp_dispatcher_is_the_plain_dispatcher)
ACCEL_MUTANT(GatherObjectUntruncated_Dispatched, GatherObjectUntruncated, gather_object_metrics_are_exact_when_dispatched)
ACCEL_MUTANT(SkippedTotalBatchSizeRaisesIn116_Eval, SkippedTotalBatchSizeRaisesIn116,
             resumed_gather_for_metrics_is_the_uninterrupted_tail_from_116)
ACCEL_MUTANT(StatefulFinishedResumesPastEnd_ExactResume, StatefulFinishedResumesPastEnd,
             seedable_set_epoch_resume_is_exact)
ACCEL_MUTANT(PreparedDrawsIgnored_GlobalDraws, PreparedDrawsIgnored,
             draws_before_prepare_advance_the_passes_drawn_from_the_global_generator)
ACCEL_MUTANT(DrawsBeforePrepareOffByOne_GlobalDraws, DrawsBeforePrepareOffByOne,
             draws_read_back_from_the_sampler_seed_are_the_draws_prepare_made)
ACCEL_MUTANT(StatefulInitialIteratorIgnored_GlobalDraws, StatefulInitialIteratorIgnored,
             stateful_loader_draws_its_first_iterator_at_prepare)
ACCEL_MUTANT(AccumulateIgnoresEndOfDataloader_Training, AccumulateIgnoresEndOfDataloader,
             ddp_training_blocks_where_the_gradient_collectives_run_out)
ACCEL_MUTANT(WorkerStrideIgnored_Workers, WorkerStrideIgnored, worker_passes_are_the_round_robin_of_each_workers_shard)
ACCEL_MUTANT(WorkerPlanShortBatchesFull_Workers, WorkerPlanShortBatchesFull, worker_what_if_counts_equal_the_replay)
ACCEL_MUTANT(WorkerPlanShortGroupsFull_Workers, WorkerPlanShortGroupsFull, worker_what_if_counts_equal_the_replay)
ACCEL_MUTANT(HfShardPathIgnored_HfDatasets, HfShardPathIgnored, hf_shard_path_reads_every_example_once)
ACCEL_MUTANT(HfPlanShardRunsShifted_HfDatasets, HfPlanShardRunsShifted, hf_stream_what_if_equals_the_replay)
ACCEL_MUTANT(PermutationCountsOneExtraYield_WhatIf, PermutationCountsOneExtraYield,
             undrawn_shuffle_counts_equal_the_replay)
ACCEL_MUTANT(TrainerSkipIgnoresAccumulation_Trainer, TrainerSkipIgnoresAccumulation, trainer_same_shape_resume_is_exact)
ACCEL_MUTANT(EmptyTrainLoaderTrains_Trainer, EmptyTrainLoaderTrains,
             trainer_epochs_have_nups_steps_with_a_short_last_one)
ACCEL_MUTANT(TrainerCountsDropEpochEndSync_Trainer, TrainerCountsDropEpochEndSync, trainer_run_counts_are_the_loops)
ACCEL_MUTANT(IterablePassEndSyncs_Trainer, IterablePassEndSyncs, trainer_iterable_steps_carry_across_passes)
ACCEL_MUTANT(EvalLossMeanOfSamples_TrainerEval, EvalLossMeanOfSamples, trainer_eval_loss_weights_padded_batches)
ACCEL_MUTANT(UnseededGeneratorSeededFromGlobal_Releases, UnseededGeneratorSeededFromGlobal,
             unseeded_releases_ignore_set_seed)
ACCEL_MUTANT(ShuffleRuleReachesSequential_Releases, ShuffleRuleReachesSequential,
             every_release_gives_an_unshuffled_loader_the_same_batches)
ACCEL_MUTANT(HfShardAtLeastBefore114_Releases, HfShardAtLeastBefore114, hf_shard_path_follows_the_release)
ACCEL_MUTANT(CudaRngSyncSkipped_Releases, CudaRngSyncSkipped, cuda_rng_types_fail_every_shard_pass)
ACCEL_MUTANT(StatefulWorkersSnapshotSucceeds_Releases, StatefulWorkersSnapshotSucceeds,
             stateful_workers_fail_every_pass_before_113)
ACCEL_MUTANT(PrefetchAdjustmentMissing_StatefulResume, PrefetchAdjustmentMissing,
             pre_113_stateful_resume_restarts_r_minus_1_batches_early)

}  // namespace accel::props
