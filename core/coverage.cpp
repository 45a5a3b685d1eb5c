#include "coverage.hpp"

#include <algorithm>
#include <map>

namespace accel {

void add_virtual_runs(std::vector<PositionRun>& runs, std::int64_t begin, std::int64_t end, std::int64_t samples,
                      std::int64_t period) {
  if (begin >= end) return;
  if (begin < samples) runs.push_back({begin, std::min(end, samples), 1});
  begin = std::max(begin, samples);
  if (begin >= end || period <= 0) return;
  // Padding: virtual p >= samples is order position (p - samples) % period.
  std::int64_t a = begin - samples;
  const std::int64_t b = end - samples;
  const std::int64_t head_end = std::min(b, (a / period + 1) * period);
  runs.push_back({a % period, (head_end - 1) % period + 1, 1});
  a = head_end;
  if (a >= b) return;
  const std::int64_t cycles = (b - a) / period;
  if (cycles > 0) runs.push_back({0, period, cycles});
  a += cycles * period;
  if (a < b) runs.push_back({0, b - a, 1});
}

namespace {

// Piecewise-constant multiplicity over order positions, from a sweep of the runs.
struct Segment {
  std::int64_t begin, end, times;
};

std::vector<Segment> sweep(const std::vector<PositionRun>& runs, std::int64_t samples) {
  std::map<std::int64_t, std::int64_t> delta;
  delta[0] += 0;
  delta[samples] += 0;
  for (const auto& r : runs) {
    if (r.begin >= r.end || r.times == 0) continue;
    delta[r.begin] += r.times;
    delta[r.end] -= r.times;
  }
  std::vector<Segment> out;
  std::int64_t level = 0;
  for (auto it = delta.begin(); it != delta.end(); ++it) {
    level += it->second;
    auto next = std::next(it);
    if (next == delta.end()) break;
    if (it->first >= samples) break;
    out.push_back({it->first, std::min(next->first, samples), level});
  }
  return out;
}

}  // namespace

CoverageDetail measure_coverage(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                std::int64_t dataset_len, bool permutation, std::size_t limit,
                                std::int64_t resume_from) {
  CoverageDetail d;
  d.counts.dataset_len = dataset_len;
  const std::int64_t samples = order.size();
  for (const auto& r : runs) d.counts.yielded += (r.end - r.begin) * r.times;
  if (permutation) {
    for (const Segment& s : sweep(runs, samples)) {
      const std::int64_t width = s.end - s.begin;
      if (s.times == 0) {
        const std::int64_t before = std::clamp(resume_from - s.begin, std::int64_t{0}, width);
        d.counts.before_resume += before;
        d.counts.dropped += width - before;
        for (std::int64_t p = s.begin + before; p < s.end && d.dropped_ids.size() < limit; ++p) {
          d.dropped_ids.push_back(order[p]);
        }
      } else {
        d.counts.distinct += width;
        d.counts.max_times = std::max(d.counts.max_times, s.times);
        if (s.times > 1) {
          d.counts.repeated += width;
          d.counts.duplicated += width * (s.times - 1);
          for (std::int64_t p = s.begin; p < s.end && d.duplicated_ids.size() < limit; ++p) {
            d.duplicated_ids.push_back(order[p]);
          }
        }
      }
    }
    d.counts.dropped += dataset_len - samples;  // none for a true permutation
    return d;
  }
  // A sampler with replacement or num_samples != len: count every id.
  std::vector<std::uint32_t> seen(static_cast<std::size_t>(dataset_len), 0);
  for (const auto& r : runs) {
    for (std::int64_t p = r.begin; p < r.end; ++p) {
      const SampleId id = order[p];
      if (id >= 0 && id < dataset_len) seen[static_cast<std::size_t>(id)] += static_cast<std::uint32_t>(r.times);
    }
  }
  for (std::int64_t id = 0; id < dataset_len; ++id) {
    const auto n = seen[static_cast<std::size_t>(id)];
    if (n == 0) {
      ++d.counts.dropped;
      if (d.dropped_ids.size() < limit) d.dropped_ids.push_back(id);
    } else {
      ++d.counts.distinct;
      d.counts.max_times = std::max<std::int64_t>(d.counts.max_times, n);
      if (n > 1) {
        ++d.counts.repeated;
        d.counts.duplicated += n - 1;
        if (d.duplicated_ids.size() < limit) d.duplicated_ids.push_back(id);
      }
    }
  }
  return d;
}

}  // namespace accel
