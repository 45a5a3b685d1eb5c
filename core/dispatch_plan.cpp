#include "dispatch_plan.hpp"

#include <algorithm>

namespace accel {

std::int64_t DispatchedBatch::slice_begin(std::int64_t rank) const noexcept {
  return std::min(rank * per_rank, size());
}

std::int64_t DispatchedBatch::slice_end(std::int64_t rank) const noexcept {
  return std::min((rank + 1) * per_rank, size());
}

DispatchPlan plan_dispatch(const DispatchPlanOptions& o) {
  DispatchPlan plan;
  const std::int64_t b = o.batch_size;
  const std::int64_t R = o.num_processes;
  const std::int64_t total = o.drop_last ? o.samples / b : (o.samples + b - 1) / b;
  const std::int64_t first = std::min(o.skip_underlying, total);
  // Underlying batch k covers [k*b, min((k+1)*b, samples)).
  auto batch_end = [&](std::int64_t k) { return std::min((k + 1) * b, o.samples); };
  const std::int64_t group = o.split_batches ? 1 : R;
  for (std::int64_t k = first; k < total; k += group) {
    const std::int64_t last_k = std::min(k + group, total) - 1;
    if (last_k - k + 1 < group && o.drop_last) break;  // a short group is dropped with drop_last
    DispatchedBatch d;
    d.begin = k * b;
    d.end = batch_end(last_k);
    plan.batches.push_back(d);
  }
  if (plan.batches.empty()) {
    plan.fails = true;
    return plan;
  }
  for (auto& d : plan.batches) d.per_rank = (d.end - d.begin) / R;
  DispatchedBatch& tail = plan.batches.back();
  tail.last = true;
  const std::int64_t observed = tail.end - tail.begin;
  if (!o.drop_last && observed % R != 0) {
    // Completed with the first num_processes samples of the epoch's first dispatched batch.
    const DispatchedBatch& head = plan.batches.front();
    tail.pad_begin = head.begin;
    tail.pad = std::min(R, head.end - head.begin);
    tail.per_rank += 1;
  }
  return plan;
}

Batch rank_slice(const DispatchedBatch& batch, std::int64_t rank, const SampleOrder& order) {
  Batch ids;
  for (std::int64_t i = batch.slice_begin(rank); i < batch.slice_end(rank); ++i) ids.push_back(order[batch.position(i)]);
  return ids;
}

}  // namespace accel
