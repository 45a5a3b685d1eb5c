#include "stateful_loader_state.hpp"

#include "mutation.hpp"

namespace accel {

StatefulLoaderState state_after_batches(std::int64_t received, std::int64_t pass_batches) {
  // On the last batch the lookahead has already hit the end: end_of_dataloader is set before the snapshot.
  return {received, received >= pass_batches};
}

StatefulLoaderState state_before_pass(std::optional<std::int64_t> previous_pass_batches) {
  if (!previous_pass_batches) return {};
  return {*previous_pass_batches, true};
}

StatefulLoaderState as_saved(StatefulLoaderState state, AccelerateRelease release, std::int64_t num_processes) {
  if (adjusts_stateful_state_for_prefetch(release) && num_processes > 1 && state.batches_yielded > 0 &&
      !mutant(Mutation::PrefetchAdjustmentMissing)) {
    state.batches_yielded -= num_processes - 1;
  }
  return state;
}

RestoredPass pass_after_load(const StatefulLoaderState& state) {
  if (state.iterator_finished && !mutant(Mutation::StatefulFinishedResumesPastEnd)) return {0, 1};
  return {state.batches_yielded, 0};
}

bool snapshot_raises(AccelerateRelease release, bool stateful, bool workers_active, std::int64_t num_processes) {
  return stateful && workers_active && num_processes > 1 && adjusts_stateful_state_for_prefetch(release) &&
         !mutant(Mutation::StatefulWorkersSnapshotSucceeds);
}

AccelerateError missing_sampler_iter_yielded() {
  // str(KeyError(key)) is the key's repr.
  return AccelerateError(PyErrorType::KeyError, "iterate", "'_sampler_iter_yielded'");
}

}  // namespace accel
