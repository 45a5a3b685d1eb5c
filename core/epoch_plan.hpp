// One epoch of a whole job, every rank at once, computed directly from the loaders' structure.
//
// For one config it answers: how many batches each rank yields, what len() each rank reports, which
// order positions the job covers and how often (as a handful of runs), and rank r's j-th batch, all
// without replaying other ranks: O(R) for the counts and runs, O(batch) per batch. It holds for every
// loader whose ranks share one epoch order (everything but an unsynchronised per-rank shuffle), and a
// property checks it against the per-rank loaders themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

#include "attribute.hpp"
#include "coverage.hpp"
#include "dispatch_plan.hpp"
#include "prepare_data_loader.hpp"

namespace accel {

class EpochPlan {
 public:
  // Raises AccelerateError where prepare_data_loader does, std::invalid_argument for an iterable dataset with
  // workers (see core/data_loader_workers.hpp: replay those). `skip` is skip_first_batches(k) applied to
  // this pass's loader.
  EpochPlan(const DataLoaderArgs& loader, const PrepareOptions& options, std::optional<std::int64_t> skip = std::nullopt);

  std::int64_t num_ranks() const noexcept { return options_.num_processes; }
  bool dispatches() const noexcept { return dispatch_.has_value(); }
  // The dispatcher cannot form any batch: every rank raises TypeError.
  bool dispatch_fails() const noexcept { return dispatch_ && dispatch_->fails; }
  // Every pass raises at its first state snapshot before yielding anything (snapshot_raises,
  // stateful_loader_state.hpp: a StatefulDataLoader with workers in 0.34.0 - 1.12.x): no rank yields a batch.
  bool snapshot_raises() const noexcept { return snapshot_raises_; }
  // Positions in the epoch order (the sampler's length; the dataset's for iterable datasets).
  std::int64_t order_length() const noexcept { return order_length_; }

  std::int64_t batches(std::int64_t rank) const;
  Attribute<std::int64_t> len(std::int64_t rank) const;
  // Order positions of rank r's j-th yielded batch (padding resolved).
  std::vector<std::int64_t> batch_positions(std::int64_t rank, std::int64_t j) const;
  // The same positions one at a time, at most `limit` of them, until `visit` returns false: a batch of 2^31
  // samples is never materialised to read its first ids (O(1) memory, O(positions visited) time).
  void visit_batch_positions(std::int64_t rank, std::int64_t j, std::int64_t limit,
                             const std::function<bool(std::int64_t)>& visit) const;
  // How many of rank r's j-th batch's samples are padding: even_batches' repeats of the epoch's first samples
  // (positions past the order's end, before they are resolved). 0 for a batch of the order's own samples.
  std::int64_t padded_in_batch(std::int64_t rank, std::int64_t j) const;
  // The order position this pass starts from: 0, or where skip_first_batches resumes (the samples
  // before it were seen before the checkpoint).
  std::int64_t resume_position() const;
  // Order positions the whole job yields this epoch, with multiplicity.
  std::vector<PositionRun> runs() const;

 private:
  using Layout = std::variant<BatchSamplerShard, IterableDatasetShard>;
  Layout layout(std::int64_t rank) const;
  std::int64_t skipped_dispatches() const noexcept;

  DataLoaderArgs loader_;
  PrepareOptions options_;
  std::optional<std::int64_t> skip_;
  std::int64_t order_length_ = 0;
  std::optional<DispatchPlan> dispatch_;
  bool snapshot_raises_ = false;
};

}  // namespace accel
