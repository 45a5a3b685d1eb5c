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
  const std::int64_t b = o.batch_size;
  const std::int64_t total = o.drop_last ? o.samples / b : (o.samples + b - 1) / b;
  // Underlying batch k covers [k*b, min((k+1)*b, samples)).
  return plan_dispatch(o, total, [&](std::int64_t k) { return std::min(k * b, o.samples); });
}

std::int64_t dispatched_count(const DispatchPlanOptions& o, std::int64_t total) {
  const std::int64_t first = std::min(o.skip_underlying, total);
  const std::int64_t group = o.split_batches ? 1 : o.num_processes;
  // A group of underlying batches is dispatched unless it is short under drop_last.
  const std::int64_t left = total - first;
  return o.drop_last ? left / group : (left + group - 1) / group;
}

DispatchedBatch dispatched_batch(const DispatchPlanOptions& o, std::int64_t total,
                                 const std::function<std::int64_t(std::int64_t)>& offset, std::int64_t i) {
  const std::int64_t R = o.num_processes;
  const std::int64_t first = std::min(o.skip_underlying, total);
  const std::int64_t group = o.split_batches ? 1 : R;
  const std::int64_t k = first + i * group;
  DispatchedBatch d;
  d.begin = offset(k);
  d.end = offset(std::min(k + group, total));
  d.per_rank = (d.end - d.begin) / R;
  d.last = i + 1 == dispatched_count(o, total);
  if (d.last && !o.drop_last && (d.end - d.begin) % R != 0) {
    // Completed with the first num_processes samples of the epoch's first dispatched batch.
    d.pad_begin = offset(first);
    d.pad = std::min(R, offset(std::min(first + group, total)) - d.pad_begin);
    d.per_rank += 1;
  }
  return d;
}

std::int64_t for_each_dispatched(const DispatchPlanOptions& o, std::int64_t total,
                                 const std::function<std::int64_t(std::int64_t)>& offset,
                                 const std::function<void(const DispatchedBatch&)>& visit) {
  const std::int64_t count = dispatched_count(o, total);
  for (std::int64_t i = 0; i < count; ++i) visit(dispatched_batch(o, total, offset, i));
  return count;
}

DispatchPlan plan_dispatch(const DispatchPlanOptions& o, std::int64_t total,
                           const std::function<std::int64_t(std::int64_t)>& offset) {
  DispatchPlan plan;
  for_each_dispatched(o, total, offset, [&plan](const DispatchedBatch& d) { plan.batches.push_back(d); });
  plan.fails = plan.batches.empty();
  return plan;
}

void add_dispatched_runs(std::vector<PositionRun>& out, const DispatchedBatch& d, std::int64_t R) {
  // Consecutive dispatched batches usually cover adjacent positions: one run for all of them keeps the
  // coverage sweep O(1) instead of O(batches).
  const auto add = [&out](std::int64_t begin, std::int64_t end) {
    if (!out.empty() && out.back().end == begin && out.back().times == 1) {
      out.back().end = end;
    } else {
      out.push_back({begin, end, 1});
    }
  };
  const std::int64_t covered = std::min(R * d.per_rank, d.size());
  const std::int64_t fetched = d.end - d.begin;
  if (covered > 0) add(d.begin, d.begin + std::min(covered, fetched));
  if (covered > fetched) add(d.pad_begin, d.pad_begin + covered - fetched);
}

std::vector<PositionRun> dispatched_runs(const DispatchPlan& plan, std::int64_t R, std::int64_t first) {
  std::vector<PositionRun> out;
  if (plan.fails) return out;
  for (std::size_t k = static_cast<std::size_t>(first); k < plan.batches.size(); ++k)
    add_dispatched_runs(out, plan.batches[k], R);
  return out;
}

Batch rank_slice(const DispatchedBatch& batch, std::int64_t rank, const SampleOrder& order) {
  Batch ids;
  for (std::int64_t i = batch.slice_begin(rank); i < batch.slice_end(rank); ++i) ids.push_back(order[batch.position(i)]);
  return ids;
}

}  // namespace accel
