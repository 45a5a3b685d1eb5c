#include "epoch_plan.hpp"

#include "saturating.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "mutation.hpp"
#include "stateful_loader_state.hpp"

namespace accel {

EpochPlan::EpochPlan(const DataLoaderArgs& loader, const PrepareOptions& options, std::optional<std::int64_t> skip)
    : loader_(loader), options_(options), skip_(skip) {
  PrepareOptions rank0 = options_;
  rank0.process_index = 0;
  (void)prepare_data_loader(loader_, rank0);  // the same validation and errors as Accelerate
  const bool iterable = loader_.dataset_kind == DatasetKind::Iterable;
  if (iterable && loader_.workers.active()) {
    // Workers interleave per-worker streams that runs of the epoch order do not describe: callers replay them.
    throw std::invalid_argument("EpochPlan: an iterable dataset loaded by workers is replayed, not planned");
  }
  order_length_ = iterable ? loader_.dataset_len
                           : (loader_.shuffle ? loader_.num_samples.value_or(loader_.dataset_len) : loader_.dataset_len);
  if (resolve_dispatch_batches(loader_, options_)) {
    DispatchPlanOptions d;
    d.samples = order_length_;
    d.batch_size = loader_.batch_size;
    d.drop_last = loader_.drop_last;
    d.split_batches = options_.split_batches;
    d.num_processes = options_.num_processes;
    d.skip_underlying = iterable ? 0 : skip_.value_or(0);
    dispatch_ = plan_dispatch(d);
  }
  // skip_first_batches' loader is a plain DataLoader: only the prepared one snapshots.
  snapshot_raises_ = !skip_ && accel::snapshot_raises(options_.release, options_.use_stateful_dataloader,
                                                      loader_.workers.active(), options_.num_processes);
}

std::int64_t EpochPlan::skipped_dispatches() const noexcept {
  return loader_.dataset_kind == DatasetKind::Iterable ? skip_.value_or(0) : 0;
}

EpochPlan::Layout EpochPlan::layout(std::int64_t rank) const {
  const bool sharded = options_.num_processes != 1;
  if (loader_.dataset_kind == DatasetKind::Iterable) {
    return IterableDatasetShard(loader_.dataset_len,
                                IterableShardOptions{loader_.batch_size, loader_.drop_last, options_.num_processes, rank,
                                                     options_.split_batches},
                                sharded);
  }
  const ShardOptions shard = sharded ? ShardOptions{options_.num_processes, rank, options_.split_batches, options_.even_batches}
                                     : ShardOptions{1, 0, false, false};
  return BatchSamplerShard(BatchSampler{loader_.batch_size, loader_.drop_last}, order_length_, shard);
}

std::int64_t EpochPlan::batches(std::int64_t rank) const {
  if (snapshot_raises_) return 0;
  if (dispatch_) {
    if (dispatch_->fails) return 0;
    return std::max<std::int64_t>(0, static_cast<std::int64_t>(dispatch_->batches.size()) - skipped_dispatches());
  }
  const std::int64_t n = std::visit([](const auto& l) { return l.num_batches(); }, layout(rank));
  return std::max<std::int64_t>(0, n - (mutant(Mutation::EpochPlanIgnoresSkip) ? 0 : skip_.value_or(0)));
}

Attribute<std::int64_t> EpochPlan::len(std::int64_t rank) const {
  PrepareOptions o = options_;
  o.process_index = rank;
  PreparedLoader prepared = prepare_data_loader(loader_, o);
  return std::visit(
      [&](const auto& l) -> Attribute<std::int64_t> { return skip_ ? l.skip_first_batches(*skip_).len() : l.len(); },
      prepared);
}

std::vector<std::int64_t> EpochPlan::batch_positions(std::int64_t rank, std::int64_t j) const {
  std::vector<std::int64_t> out;
  visit_batch_positions(rank, j, std::numeric_limits<std::int64_t>::max(), [&out](std::int64_t p) {
    out.push_back(p);
    return true;
  });
  return out;
}

void EpochPlan::visit_batch_positions(std::int64_t rank, std::int64_t j, std::int64_t limit,
                                      const std::function<bool(std::int64_t)>& visit) const {
  if (dispatch_) {
    const DispatchedBatch& d = dispatch_->batches.at(static_cast<std::size_t>(j + skipped_dispatches()));
    const std::int64_t end = d.slice_begin(rank) + std::min(limit, d.slice_end(rank) - d.slice_begin(rank));
    for (std::int64_t i = d.slice_begin(rank); i < end; ++i) {
      if (!visit(d.position(i))) return;
    }
    return;
  }
  std::visit(
      [&](const auto& l) {
        const PositionRange r = l.batch(j + skip_.value_or(0));
        const std::int64_t end = r.begin + std::min(limit, r.end - r.begin);
        for (std::int64_t p = r.begin; p < end; ++p) {
          if (!visit(p < order_length_ ? p : (p - order_length_) % l.pad_period())) return;
        }
      },
      layout(rank));
}

std::int64_t EpochPlan::padded_in_batch(std::int64_t rank, std::int64_t j) const {
  if (dispatch_) {
    const DispatchedBatch& d = dispatch_->batches.at(static_cast<std::size_t>(j + skipped_dispatches()));
    const std::int64_t fetched = d.end - d.begin;  // elements past these are the appended padding
    return std::max<std::int64_t>(0, d.slice_end(rank) - std::max(d.slice_begin(rank), fetched));
  }
  return std::visit(
      [&](const auto& l) {
        const PositionRange r = l.batch(j + skip_.value_or(0));
        return std::max<std::int64_t>(0, r.end - std::max(r.begin, order_length_));
      },
      layout(rank));
}

std::int64_t EpochPlan::resume_position() const {
  const std::int64_t k = skip_.value_or(0);
  if (k == 0) return 0;
  if (dispatch_) {
    const std::int64_t group = options_.split_batches ? 1 : options_.num_processes;
    const std::int64_t underlying = loader_.dataset_kind == DatasetKind::Iterable ? sat_mul(k, group) : k;
    return std::min(order_length_, sat_mul(underlying, loader_.batch_size));
  }
  std::int64_t first = order_length_;
  for (std::int64_t r = 0; r < options_.num_processes; ++r) {
    first = std::min(first, std::visit([&](const auto& x) { return x.batch(k).begin; }, layout(r)));
  }
  return std::min(first, order_length_);
}

std::vector<PositionRun> EpochPlan::runs() const {
  std::vector<PositionRun> out;
  if (snapshot_raises_) return out;
  if (dispatch_) return dispatched_runs(*dispatch_, options_.num_processes, skipped_dispatches());
  // Every rank's batches together cover one run of virtual positions [first, last).
  std::int64_t first = -1, last = -1, period = 1;
  for (std::int64_t r = 0; r < options_.num_processes; ++r) {
    const Layout l = layout(r);
    const std::int64_t n = std::visit([](const auto& x) { return x.num_batches(); }, l);
    const std::int64_t k = skip_.value_or(0);
    if (n <= k) continue;
    const PositionRange a = std::visit([&](const auto& x) { return x.batch(k); }, l);
    const PositionRange b = std::visit([&](const auto& x) { return x.batch(n - 1); }, l);
    period = std::visit([](const auto& x) { return x.pad_period(); }, l);
    first = first < 0 ? a.begin : std::min(first, a.begin);
    last = std::max(last, b.end);
  }
  if (first >= 0) add_virtual_runs(out, first, last, order_length_, period);
  return out;
}

}  // namespace accel
