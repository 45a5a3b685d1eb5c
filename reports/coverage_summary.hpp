// The report model of the short what-if summary: per epoch, how many batches each rank yields and
// which dataset samples are seen, seen more than once, or never.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace accel::reports {

struct EpochCoverage {
  std::int64_t epoch = 0;
  std::vector<std::int64_t> batches_per_rank;
  std::int64_t samples_yielded = 0;     // with repeats
  std::int64_t distinct_seen = 0;
  std::int64_t duplicated = 0;          // extra appearances beyond the first
  std::vector<std::int64_t> duplicated_ids;  // first few, ascending
  std::int64_t dropped = 0;             // dataset samples never yielded
  std::vector<std::int64_t> dropped_ids;     // first few, ascending
};

struct CoverageSummary {
  std::int64_t num_processes = 0;
  std::int64_t dataset_len = 0;
  std::vector<std::int64_t> len_per_rank;
  std::vector<EpochCoverage> epochs;
};

CoverageSummary summarize(const trace::LoaderCase& config, const std::vector<trace::RankRecord>& ranks);

// Readable terminal text.
std::string render_terminal(const trace::LoaderCase& config, const CoverageSummary& summary);

}  // namespace accel::reports
