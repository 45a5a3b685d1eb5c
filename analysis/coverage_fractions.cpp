#include "analysis/coverage_fractions.hpp"

#include <algorithm>
#include <map>

namespace accel::analysis {
namespace {

std::vector<BinCounts> empty_bins(std::int64_t n, std::int64_t bins) {
  std::vector<BinCounts> out(static_cast<std::size_t>(bins));
  for (std::int64_t b = 0; b < bins; ++b) {
    out[static_cast<std::size_t>(b)].first_id = b * n / bins;
    out[static_cast<std::size_t>(b)].end_id = (b + 1) * n / bins;
  }
  return out;
}

}  // namespace

std::vector<BinCounts> coverage_fractions(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                          std::int64_t n, bool permutation, std::int64_t bins,
                                          std::int64_t resume_from) {
  bins = std::min(bins, n);
  if (bins <= 0) return {};
  if (!permutation) {
    MultiplicityCounter counter(n);
    for (const auto& r : runs) {
      order.visit([&](const auto& ids) {
        for (std::int64_t p = r.begin; p < r.end; ++p) counter.add(static_cast<SampleId>(ids[p]), r.times);
      });
    }
    return coverage_fractions(counter, bins);
  }
  std::vector<BinCounts> out = empty_bins(n, bins);
  const auto bin_of = [&](std::int64_t id) { return static_cast<std::size_t>(((id + 1) * bins - 1) / n); };
  // Every id starts as yielded once; the segments whose multiplicity is not 1 move ids out of `once`.
  for (auto& b : out) b.once = b.size();
  const auto mark = [&](std::int64_t id, std::int64_t times, bool before) {
    if (id < 0 || id >= n || times == 1) return;
    BinCounts& b = out[bin_of(id)];
    --b.once;
    if (times >= 2) {
      ++b.duplicated;
    } else if (before) {
      ++b.before_resume;
    } else {
      ++b.dropped;
    }
  };
  // Sweep the runs' boundaries: segments [begin, end) of order positions with one multiplicity.
  std::map<std::int64_t, std::int64_t> delta;
  delta[0] += 0;
  delta[order.size()] += 0;
  for (const auto& r : runs) {
    if (r.begin >= r.end) continue;
    delta[r.begin] += r.times;
    delta[r.end] -= r.times;
  }
  std::int64_t times = 0;
  for (auto it = delta.begin(); it != delta.end(); ++it) {
    times += it->second;
    const auto next = std::next(it);
    if (next == delta.end()) break;
    const std::int64_t begin = std::max<std::int64_t>(it->first, 0), end = std::min(next->first, order.size());
    if (times == 1 || begin >= end) continue;
    order.visit([&](const auto& ids) {
      for (std::int64_t p = begin; p < end; ++p) mark(static_cast<std::int64_t>(ids[p]), times, p < resume_from);
    });
  }
  for (std::int64_t id = order.size(); id < n; ++id) mark(id, 0, false);
  return out;
}

std::vector<BinCounts> coverage_fractions(const MultiplicityCounter& counter, std::int64_t bins) {
  const std::int64_t n = counter.dataset_len();
  bins = std::min(bins, n);
  if (bins <= 0) return {};
  std::vector<BinCounts> out = empty_bins(n, bins);
  for (auto& b : out) {
    for (std::int64_t id = b.first_id; id < b.end_id; ++id) {
      const std::int64_t t = counter.times(id);
      (t == 0 ? b.dropped : t == 1 ? b.once : b.duplicated) += 1;
    }
  }
  return out;
}

}  // namespace accel::analysis
