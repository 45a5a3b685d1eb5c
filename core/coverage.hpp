// How often each sample is yielded in one epoch, computed from runs of order positions rather than
// by materialising every batch.
//
// Every loader Accelerate builds covers contiguous runs of the epoch order (plus padding that cycles
// its start), so a job's whole epoch is a handful of weighted runs: counting duplicates and drops is
// a sweep over them, and when the order is a permutation of the dataset the per-sample counts follow
// without a per-sample map.
#pragma once

#include <cstdint>
#include <vector>

#include "batch.hpp"
#include "sample_order.hpp"

namespace accel {

struct PositionRun {
  std::int64_t begin = 0;  // order positions [begin, end), each yielded `times` times
  std::int64_t end = 0;
  std::int64_t times = 1;
};

struct CoverageCounts {
  std::int64_t dataset_len = 0;
  std::int64_t yielded = 0;     // samples yielded, repeats included
  std::int64_t distinct = 0;    // dataset samples yielded at least once
  std::int64_t duplicated = 0;  // yields beyond each sample's first
  std::int64_t dropped = 0;     // dataset samples never yielded
  std::int64_t before_resume = 0;  // never yielded, but before the resume point: seen before the checkpoint
  std::int64_t repeated = 0;    // dataset samples yielded more than once
  std::int64_t max_times = 0;   // the most times one sample is yielded
  friend bool operator==(const CoverageCounts&, const CoverageCounts&) = default;
};

struct CoverageDetail {
  CoverageCounts counts;
  std::vector<SampleId> duplicated_ids;  // up to `limit`, in epoch order
  std::vector<SampleId> dropped_ids;     // up to `limit`, in epoch order (then ids the order never holds)
};

// `order` is the epoch order the runs index; `permutation` says it holds every id of the dataset
// exactly once (sequential, or a shuffle without replacement and num_samples == dataset_len), which
// lets the counts come from the runs alone. Otherwise ids are counted one by one.
// Positions below `resume_from` that are never yielded count as before_resume, not dropped.
CoverageDetail measure_coverage(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                std::int64_t dataset_len, bool permutation, std::size_t limit = 10,
                                std::int64_t resume_from = 0);

// Adds the runs for virtual positions [begin, end) of an order of `samples` positions extended by
// cycling its first `period` positions (Accelerate's padding).
void add_virtual_runs(std::vector<PositionRun>& runs, std::int64_t begin, std::int64_t end, std::int64_t samples,
                      std::int64_t period);

}  // namespace accel
