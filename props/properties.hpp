// Every property of the suite, as plain functions: property_tests.cpp runs them against the core,
// mutation_tests.cpp against the core with one planted bug at a time. Each function states the exact
// expected quantity; the comment at its definition says where in Accelerate's code it comes from.
#pragma once

namespace accel::props {

// 1. coverage_props.cpp
void coverage_is_whole_dataset_unless_drop_last();
// 2. coverage_props.cpp
void duplicates_equal_the_padding_from_the_epoch_start();
// 3. lockstep_props.cpp
void batch_counts_and_len_per_rank();
void uneven_ranks_hang_exactly_where_predicted();
// 4. split_props.cpp
void split_batches_matches_unsplit_on_every_step();
void mesh_groups_share_batches_and_data_ranks_run_the_plain_job();
void mesh_tp_dispatch_replicates_one_batch_to_every_rank();
void mesh_skipped_tp_dispatcher_is_the_plain_dispatcher();
// 5. resume_props.cpp
void skip_yields_the_suffix_and_leaves_the_counters();
// 6. determinism_props.cpp
void trace_json_is_byte_identical_for_the_same_config();
void a_different_seed_gives_a_different_trace();
void seedable_sampler_order_per_epoch_and_rank();
// 7. dispatch_props.cpp
void dispatcher_equals_shard_on_full_steps();
void dispatch_plan_equals_dispatcher();
void sequential_schedule_equals_threaded_group();
// 8. replay_props.cpp
void map_direct_equals_replay();
void iterable_direct_equals_replay();
void epoch_plan_equals_simulation();
// 9. scheduler_props.cpp
void scheduler_steps_r_times_per_optimizer_step();
void scheduler_direct_steps_follow_sync_and_skips();
void one_cycle_never_passes_total_steps_without_split();
// 10. checkpoint_props.cpp
void seedable_set_epoch_resume_is_exact();
void single_process_random_resume_draws_the_next_epoch();
void global_generator_releases_resume_on_the_next_epoch();
void own_generator_releases_resume_on_epoch_zero();
void pre_113_stateful_resume_restarts_r_minus_1_batches_early();
// 11. eval_props.cpp
void gather_for_metrics_is_exact_on_even_map_shards();
void gather_object_metrics_are_exact_when_dispatched();
void resumed_gather_for_metrics_is_the_uninterrupted_tail_from_116();
// 12. training_props.cpp
void ddp_training_blocks_where_the_gradient_collectives_run_out();
// 13. global_draws_props.cpp
void draws_before_prepare_advance_the_passes_drawn_from_the_global_generator();
void draws_before_prepare_leave_seeded_samplers_alone();
void draws_read_back_from_the_sampler_seed_are_the_draws_prepare_made();
void stateful_loader_draws_its_first_iterator_at_prepare();
// 15. workers_props.cpp
void worker_passes_are_the_round_robin_of_each_workers_shard();
void worker_what_if_counts_equal_the_replay();
// 17. hf_props.cpp
void hf_shard_path_reads_every_example_once();
void hf_stream_what_if_equals_the_replay();
void undrawn_shuffle_counts_equal_the_replay();
void upgrade_structure_is_what_the_replay_sees();
// 18. trainer_props.cpp
void trainer_same_shape_resume_is_exact();
void trainer_epochs_have_nups_steps_with_a_short_last_one();
void trainer_iterable_steps_carry_across_passes();
void trainer_run_counts_are_the_loops();
void trainer_closed_form_is_the_replay();
// 19. trainer_eval_props.cpp
void trainer_eval_predictions_cover_every_sample_once();
void trainer_eval_loss_weights_padded_batches();
// 20. releases_props.cpp
void every_release_gives_an_unshuffled_loader_the_same_batches();
void hf_shard_path_follows_the_release();
void unseeded_releases_ignore_set_seed();
void stateful_workers_fail_every_pass_before_113();
void cuda_rng_types_fail_every_shard_pass();

}  // namespace accel::props
