// A StatefulDataLoader's position as Accelerate 1.15.0 saves and restores it (use_stateful_dataloader=True),
// and what the next pass of a loader that loaded it leaves out.
//
// DataLoaderShard.__iter__ looks one batch ahead: the snapshot save_state reads after the pass's last batch was
// taken once the base iterator had raised StopIteration, with `_iterator_finished` set (_update_state_dict).
// torchdata's StatefulDataLoader.__iter__ replaces an iterator restored as finished with a fresh one, so the next
// pass starts from its first batch: a checkpoint right after an epoch's last batch trains that epoch again.
// Building the discarded iterator drew its _base_seed from the loader's generator (the global one when the
// loader has none) like every torch DataLoader iterator does. Any other state fast-forwards the sampler past the
// batches it counts.
#pragma once

#include <cstdint>
#include <optional>

#include "accelerate_release.hpp"
#include "error.hpp"

namespace accel {

struct StatefulLoaderState {
  // torchdata's _num_yielded (= _sampler_iter_yielded without workers); negative after 0.34 - 1.12's adjustment.
  std::int64_t batches_yielded = 0;
  bool iterator_finished = false;    // _iterator_finished
  bool operator==(const StatefulLoaderState&) const = default;
};

// The state a rank's save_state writes after the rank has received `received` (>= 1) of its pass's
// `pass_batches` batches.
StatefulLoaderState state_after_batches(std::int64_t received, std::int64_t pass_batches);

// The state save_state writes before a pass starts: the previous pass's last snapshot (finished), or the one
// the prepared loader took when it was built (nullopt: no pass yet).
StatefulLoaderState state_before_pass(std::optional<std::int64_t> previous_pass_batches);

// The state as `release` writes it from a group of `num_processes`: adjust_state_dict_for_prefetch takes
// num_processes - 1 off a positive count in 0.34.0 - 1.12.x when distributed (adjusts_stateful_state_for_prefetch).
StatefulLoaderState as_saved(StatefulLoaderState state, AccelerateRelease release, std::int64_t num_processes);

// How the first pass after load_state_dict(state) starts (state.batches_yielded >= 0: torchdata's islice refuses a
// negative count, which the caller raises).
struct RestoredPass {
  std::int64_t skipped_batches = 0;      // leading batches it does not yield
  std::int64_t discarded_iterators = 0;  // iterators built (each drawing a _base_seed) and thrown away first
  bool operator==(const RestoredPass&) const = default;
};

RestoredPass pass_after_load(const StatefulLoaderState& state);

// Whether taking a snapshot raises: 0.34.0 - 1.12.x's adjust_state_dict_for_prefetch reads the state's
// _sampler_iter_yielded unguarded when distributed (num_processes > 1), and a StatefulDataLoader with worker
// processes keeps no such key (its state is per worker). The first snapshot is taken before a pass yields anything
// (DataLoaderShard: after its lookahead fetch; the dispatcher's rank 0: before its first fetch), so every pass
// raises; 1.13.0 reads the key only where present. Recorded: golden/cases-releases/*/rel-workers-stateful-*.
bool snapshot_raises(AccelerateRelease release, bool stateful, bool workers_active, std::int64_t num_processes);
// What it raises: KeyError('_sampler_iter_yielded'), where "iterate".
AccelerateError missing_sampler_iter_yielded();

}  // namespace accel
