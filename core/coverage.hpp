// How often each sample is yielded in one epoch, computed from runs of order positions rather than
// by materialising every batch.
//
// Every loader Accelerate builds covers contiguous runs of the epoch order (plus padding that cycles
// its start), so a job's whole epoch is a handful of weighted runs: counting duplicates and drops is
// a sweep over them, and when the order is a permutation of the dataset the per-sample counts follow
// without a per-sample map. Where no closed form exists (sampling with replacement, num_samples != len,
// ranks that shuffle differently) one pass counts ids into a map of one byte per sample.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "batch.hpp"
#include "id_ranges.hpp"
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
  IdRanges duplicated_ids;  // up to `limit` runs, in epoch order
  IdRanges dropped_ids;     // up to `limit` runs, in epoch order (then ids the order never holds)
};

// `order` is the epoch order the runs index; `permutation` says it holds every id of the dataset
// exactly once (sequential, or a shuffle without replacement and num_samples == dataset_len), which
// lets the counts come from the runs alone. Otherwise ids are counted one by one.
// Positions below `resume_from` that are never yielded count as before_resume, not dropped.
CoverageDetail measure_coverage(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                std::int64_t dataset_len, bool permutation,
                                std::size_t limit = IdRanges::kDefaultMaxRanges, std::int64_t resume_from = 0);

// measure_coverage's counts for an order of `samples` positions that is a permutation of the dataset, from the
// runs alone: no order, no ids (O(runs log runs)).
CoverageCounts permutation_coverage_counts(const std::vector<PositionRun>& runs, std::int64_t samples,
                                           std::int64_t dataset_len, std::int64_t resume_from = 0);

// How often each dataset sample is yielded, one byte per sample: the fall-back for orders that are not
// permutations and for replays. A byte saturates at 255; the rare sample yielded 255 times or more
// keeps its exact count on the side, so every count (max_times included) stays exact.
class MultiplicityCounter {
 public:
  explicit MultiplicityCounter(std::int64_t dataset_len);

  // Ids outside [0, dataset_len) are ignored.
  void add(SampleId id, std::int64_t times = 1) {
    if (id < 0 || id >= dataset_len_) return;
    std::uint8_t& c = counts_[static_cast<std::size_t>(id)];
    if (c + times < kSaturated) {
      c = static_cast<std::uint8_t>(c + times);
    } else {
      saturate(id, c, times);
    }
  }
  // Counts and (up to `limit` runs, in id order) the dropped and duplicated ids; yielded is left 0.
  CoverageDetail finish(std::size_t limit) const;
  // The exact count of one sample.
  std::int64_t times(SampleId id) const;
  std::int64_t dataset_len() const noexcept { return dataset_len_; }

 private:
  static constexpr std::int64_t kSaturated = 255;
  void saturate(SampleId id, std::uint8_t& c, std::int64_t times);

  std::int64_t dataset_len_;
  std::vector<std::uint8_t> counts_;
  std::unordered_map<SampleId, std::int64_t> saturated_;  // exact counts of the samples at 255
};

// Coverage of the dataset in `bins` equal bins of ids (bin b holds ids [b*n/bins, (b+1)*n/bins)), each
// the worst status of its ids: 0 some sample never yielded, 2 some yielded more than once, 1 every
// sample once. Memory O(bins) for permutations (O(runs + bins) time when the order is sequential), a
// MultiplicityCounter otherwise.
enum class BinStatus : std::uint8_t { Dropped = 0, Seen = 1, Duplicated = 2 };
std::vector<BinStatus> coverage_bins(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                     std::int64_t dataset_len, bool permutation, std::int64_t bins);
std::vector<BinStatus> coverage_bins(const MultiplicityCounter& counter, std::int64_t bins);

// Adds the runs for virtual positions [begin, end) of an order of `samples` positions extended by
// cycling its first `period` positions (Accelerate's padding).
void add_virtual_runs(std::vector<PositionRun>& runs, std::int64_t begin, std::int64_t end, std::int64_t samples,
                      std::int64_t period);

}  // namespace accel
