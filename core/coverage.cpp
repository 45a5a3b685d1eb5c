// Coverage of one epoch: the closed form over runs for permutations, the byte-per-sample counter
// otherwise, and the binned strip the HTML report draws (see coverage.hpp).
#include "coverage.hpp"

#include <algorithm>
#include <map>

#include "mutation.hpp"

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

CoverageCounts permutation_coverage_counts(const std::vector<PositionRun>& runs, std::int64_t samples,
                                           std::int64_t dataset_len, std::int64_t resume_from) {
  CoverageCounts c;
  c.dataset_len = dataset_len;
  for (const auto& r : runs) c.yielded += (r.end - r.begin) * r.times;
  for (const Segment& s : sweep(runs, samples)) {
    const std::int64_t width = s.end - s.begin;
    if (s.times == 0) {
      const std::int64_t before = std::clamp(resume_from - s.begin, std::int64_t{0}, width);
      c.before_resume += before;
      c.dropped += width - before;
    } else {
      c.distinct += width;
      c.max_times = std::max(c.max_times, s.times);
      if (s.times > 1) {
        c.repeated += width;
        c.duplicated += width * (mutant(Mutation::PermutationCountsOneExtraYield) ? 1 : s.times - 1);
      }
    }
  }
  c.dropped += dataset_len - samples;  // none for a true permutation
  return c;
}

CoverageDetail measure_coverage(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                std::int64_t dataset_len, bool permutation, std::size_t limit,
                                std::int64_t resume_from) {
  CoverageDetail d;
  d.counts.dataset_len = dataset_len;
  const std::int64_t samples = order.size();
  if (permutation) {
    d.counts = permutation_coverage_counts(runs, samples, dataset_len, resume_from);
    // The ids: only the first `limit` runs of the dropped and of the duplicated segments are read; a
    // sequential order's segment is one run whatever its length.
    d.duplicated_ids = IdRanges(limit);
    d.dropped_ids = IdRanges(limit);
    const auto collect = [&](IdRanges& into, std::int64_t begin, std::int64_t end) {
      if (order.is_sequential()) {
        into.add_run(begin, end - 1);
        return;
      }
      for (std::int64_t p = begin; p < end && into.add(order[p]); ++p) {
      }
    };
    for (const Segment& s : sweep(runs, samples)) {
      if (d.dropped_ids.closed() && d.duplicated_ids.closed()) break;
      if (s.times == 0) {
        const std::int64_t before = std::clamp(resume_from - s.begin, std::int64_t{0}, s.end - s.begin);
        collect(d.dropped_ids, s.begin + before, s.end);
      } else if (s.times > 1) {
        collect(d.duplicated_ids, s.begin, s.end);
      }
    }
    return d;
  }
  for (const auto& r : runs) d.counts.yielded += (r.end - r.begin) * r.times;
  // A sampler with replacement or num_samples != len: count every id.
  MultiplicityCounter counter(dataset_len);
  for (const auto& r : runs) {
    order.visit([&](const auto& ids) {
      for (std::int64_t p = r.begin; p < r.end; ++p) counter.add(static_cast<SampleId>(ids[p]), r.times);
    });
  }
  const std::int64_t yielded = d.counts.yielded;
  d = counter.finish(limit);
  d.counts.yielded = yielded;
  return d;
}

MultiplicityCounter::MultiplicityCounter(std::int64_t dataset_len)
    : dataset_len_(std::max<std::int64_t>(0, dataset_len)), counts_(static_cast<std::size_t>(dataset_len_), 0) {}

void MultiplicityCounter::saturate(SampleId id, std::uint8_t& c, std::int64_t times) {
  std::int64_t& exact = saturated_[id];
  if (c < kSaturated) exact = c;
  exact += times;
  c = static_cast<std::uint8_t>(kSaturated);
}

std::int64_t MultiplicityCounter::times(SampleId id) const {
  if (id < 0 || id >= dataset_len_) return 0;
  const std::uint8_t c = counts_[static_cast<std::size_t>(id)];
  return c < kSaturated ? c : saturated_.at(id);
}

CoverageDetail MultiplicityCounter::finish(std::size_t limit) const {
  CoverageDetail d;
  d.counts.dataset_len = dataset_len_;
  // Branch-free counting over the bytes (vectorised); the saturated samples are corrected after.
  std::int64_t dropped = 0, repeated = 0, sum_below = 0;
  std::uint8_t max_byte = 0;
  const std::uint8_t* c = counts_.data();
  const auto n = static_cast<std::size_t>(dataset_len_);
  for (std::size_t i = 0; i < n; ++i) {
    dropped += c[i] == 0;
    repeated += c[i] > 1;
    sum_below += c[i] < kSaturated ? c[i] : 0;
    max_byte = std::max(max_byte, c[i]);
  }
  std::int64_t total = sum_below;
  std::int64_t max_times = max_byte;
  for (const auto& [id, exact] : saturated_) {
    total += exact;
    max_times = std::max(max_times, exact);
  }
  d.counts.dropped = dropped;
  d.counts.distinct = dataset_len_ - dropped;
  d.counts.repeated = repeated;
  d.counts.duplicated = total - d.counts.distinct;
  d.counts.max_times = max_times;
  // The first runs of each kind, in id order; stops as soon as both are full.
  d.dropped_ids = IdRanges(limit);
  d.duplicated_ids = IdRanges(limit);
  bool dropped_open = true, duplicated_open = true;
  for (std::size_t i = 0; i < n && (dropped_open || duplicated_open); ++i) {
    if (c[i] == 0 && dropped_open) dropped_open = d.dropped_ids.add(static_cast<SampleId>(i));
    if (c[i] > 1 && duplicated_open) duplicated_open = d.duplicated_ids.add(static_cast<SampleId>(i));
  }
  return d;
}

namespace {

std::vector<BinStatus> to_status(const std::vector<std::uint8_t>& flags) {
  std::vector<BinStatus> out(flags.size());
  for (std::size_t b = 0; b < out.size(); ++b) {
    out[b] = flags[b] & 1 ? BinStatus::Dropped : flags[b] & 2 ? BinStatus::Duplicated : BinStatus::Seen;
  }
  return out;
}

}  // namespace

std::vector<BinStatus> coverage_bins(const std::vector<PositionRun>& runs, const SampleOrder& order,
                                     std::int64_t dataset_len, bool permutation, std::int64_t bins) {
  const std::int64_t n = dataset_len;
  bins = std::min(bins, n);
  if (bins <= 0) return {};
  // Bit 0: some id of the bin is never yielded; bit 1: some id is yielded more than once.
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(bins), 0);
  // The bin of id i: the largest b with b*n/bins <= i.
  const auto bin_of = [&](std::int64_t id) { return static_cast<std::size_t>(((id + 1) * bins - 1) / n); };
  const auto mark = [&](std::int64_t id, std::int64_t times) {
    if (id < 0 || id >= n || times == 1) return;
    flags[bin_of(id)] |= times == 0 ? 1 : 2;
  };
  if (permutation) {
    for (const Segment& s : sweep(runs, order.size())) {
      if (s.times == 1 || s.begin >= s.end) continue;
      if (order.is_sequential()) {
        // Ids equal positions: mark whole bins.
        for (std::size_t b = bin_of(s.begin); b <= bin_of(s.end - 1); ++b) flags[b] |= s.times == 0 ? 1 : 2;
        continue;
      }
      order.visit([&](const auto& ids) {
        for (std::int64_t p = s.begin; p < s.end; ++p) mark(static_cast<std::int64_t>(ids[p]), s.times);
      });
    }
    for (std::int64_t id = order.size(); id < n; ++id) mark(id, 0);  // none for a true permutation
  } else {
    MultiplicityCounter counter(n);
    for (const auto& r : runs) {
      order.visit([&](const auto& ids) {
        for (std::int64_t p = r.begin; p < r.end; ++p) counter.add(static_cast<SampleId>(ids[p]), r.times);
      });
    }
    return coverage_bins(counter, bins);
  }
  return to_status(flags);
}

std::vector<BinStatus> coverage_bins(const MultiplicityCounter& counter, std::int64_t bins) {
  const std::int64_t n = counter.dataset_len();
  bins = std::min(bins, n);
  if (bins <= 0) return {};
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(bins), 0);
  for (std::int64_t b = 0; b < bins; ++b) {
    for (std::int64_t id = b * n / bins; id < (b + 1) * n / bins; ++id) {
      const std::int64_t t = counter.times(id);
      if (t != 1) flags[static_cast<std::size_t>(b)] |= t == 0 ? 1 : 2;
    }
  }
  return to_status(flags);
}

}  // namespace accel
