// The batches a DataLoaderDispatcher job dispatches, computed directly (no communicator, no threads).
//
// Rank 0's loader fixes everything: each dispatched batch is a run of consecutive positions of the
// epoch order (one underlying batch with split_batches, num_processes of them otherwise), plus, on the
// final batch, the first num_processes samples of the epoch's first dispatched batch when its size is
// not a multiple of num_processes. Every rank takes slice [r*per_rank, (r+1)*per_rank) of it. The
// DataLoaderDispatcher over a communicator is the reference; a property checks they agree.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "batch.hpp"
#include "coverage.hpp"
#include "sample_order.hpp"

namespace accel {

struct DispatchedBatch {
  std::int64_t begin = 0;      // order positions [begin, end) fetched by rank 0
  std::int64_t end = 0;
  std::int64_t pad_begin = 0;  // then order positions [pad_begin, pad_begin + pad) appended (final
  std::int64_t pad = 0;        // batch only): the start of the epoch's first dispatched batch
  std::int64_t per_rank = 0;   // slice length each rank takes
  bool last = false;           // end_of_dataloader

  std::int64_t size() const noexcept { return end - begin + pad; }
  // Rank r's slice as (element offset, length) within this batch, clipped to its size.
  std::int64_t slice_begin(std::int64_t rank) const noexcept;
  std::int64_t slice_end(std::int64_t rank) const noexcept;
  // The order position of element i of this batch.
  std::int64_t position(std::int64_t i) const noexcept {
    return i < end - begin ? begin + i : pad_begin + i - (end - begin);
  }
};

struct DispatchPlanOptions {
  std::int64_t samples = 0;  // length of the epoch order
  std::int64_t batch_size = 1;
  bool drop_last = false;
  bool split_batches = false;
  std::int64_t num_processes = 1;
  std::int64_t skip_underlying = 0;  // map-style skip_first_batches
};

struct DispatchPlan {
  std::vector<DispatchedBatch> batches;  // in dispatch order, before any iterable skip
  // No batch can be formed: every rank raises TypeError from the broadcast.
  bool fails = false;
};

DispatchPlan plan_dispatch(const DispatchPlanOptions& options);

// The same over underlying batches of any sizes laid end to end: underlying batch k covers positions
// [offset(k), offset(k + 1)), k < underlying (rank 0's workers yield short batches mid-pass; the dispatcher
// slices each fetched batch by its observed size all the same). options.samples and batch_size are unused.
DispatchPlan plan_dispatch(const DispatchPlanOptions& options, std::int64_t underlying,
                           const std::function<std::int64_t(std::int64_t)>& offset);

// How many batches the dispatcher sends, and the i-th of them, over those underlying batches.
std::int64_t dispatched_count(const DispatchPlanOptions& options, std::int64_t underlying);
DispatchedBatch dispatched_batch(const DispatchPlanOptions& options, std::int64_t underlying,
                                 const std::function<std::int64_t(std::int64_t)>& offset, std::int64_t i);

// The same one batch at a time, none kept: visit(d) for each in dispatch order; returns how many.
std::int64_t for_each_dispatched(const DispatchPlanOptions& options, std::int64_t underlying,
                                 const std::function<std::int64_t(std::int64_t)>& offset,
                                 const std::function<void(const DispatchedBatch&)>& visit);

// Positions the job yields from dispatched batches [first, end), with multiplicity: each rank's slice.
std::vector<PositionRun> dispatched_runs(const DispatchPlan& plan, std::int64_t num_processes, std::int64_t first);
// Appends one dispatched batch's (merged into the last run where adjacent).
void add_dispatched_runs(std::vector<PositionRun>& runs, const DispatchedBatch& batch, std::int64_t num_processes);

Batch rank_slice(const DispatchedBatch& batch, std::int64_t rank, const SampleOrder& order);

}  // namespace accel
