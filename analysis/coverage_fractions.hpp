// The dataset's coverage in equal bins of ids with exact counts per bin (how many ids of the bin are yielded
// once, more than once, never, or were seen before a resume point), so a chart can draw each bin's fractions
// instead of its worst sample. Memory O(bins) for permutations, one byte per sample otherwise.
#pragma once

#include <cstdint>
#include <vector>

#include "core/coverage.hpp"
#include "core/sample_order.hpp"

namespace accel::analysis {

struct BinCounts {
  std::int64_t first_id = 0;  // ids [first_id, end_id)
  std::int64_t end_id = 0;
  std::int64_t once = 0;
  std::int64_t duplicated = 0;     // ids yielded more than once
  std::int64_t dropped = 0;        // ids never yielded
  std::int64_t before_resume = 0;  // never yielded in this pass, but before the resume point
  std::int64_t size() const noexcept { return end_id - first_id; }
};

// Bin b holds ids [b*n/bins, (b+1)*n/bins); at most one bin per id.
std::vector<BinCounts> coverage_fractions(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                          std::int64_t dataset_len, bool permutation, std::int64_t bins,
                                          std::int64_t resume_from = 0);
std::vector<BinCounts> coverage_fractions(const MultiplicityCounter& counter, std::int64_t bins);

}  // namespace accel::analysis
