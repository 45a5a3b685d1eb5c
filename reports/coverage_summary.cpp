#include "coverage_summary.hpp"

#include <algorithm>
#include <sstream>

namespace accel::reports {
namespace {

constexpr std::size_t kShownIds = 10;

std::string ranks_text(const std::vector<std::int64_t>& ranks) {
  // Consecutive ranks are shown as ranges: "0-40, 63".
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i) os << ", ";
    os << ranks[i];
    if (j > i) os << "-" << ranks[j];
    i = j + 1;
  }
  return os.str();
}

std::string ids_text(const std::vector<std::int64_t>& ids, std::int64_t total) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ids.size(); ++i) os << (i ? ", " : "") << ids[i];
  if (total > static_cast<std::int64_t>(ids.size())) os << ", ...";
  return os.str();
}

}  // namespace

CoverageSummary summarize(const trace::LoaderCase& config, const std::vector<trace::RankRecord>& ranks) {
  CoverageSummary s;
  s.num_processes = config.prepare.num_processes;
  s.dataset_len = config.loader.dataset_len;
  for (const auto& r : ranks) s.len_per_rank.push_back(r.attributes.len.value_or(-1));
  for (std::int64_t e = 0; e < config.epochs; ++e) {
    EpochCoverage ec;
    ec.epoch = e;
    std::vector<std::uint32_t> seen(static_cast<std::size_t>(s.dataset_len), 0);
    for (const auto& r : ranks) {
      const auto& pass = r.epochs[static_cast<std::size_t>(e)];
      ec.batches_per_rank.push_back(static_cast<std::int64_t>(pass.batches.size()));
      for (const Batch& b : pass.batches) {
        for (SampleId id : b) {
          ++ec.samples_yielded;
          if (id >= 0 && id < s.dataset_len) ++seen[static_cast<std::size_t>(id)];
        }
      }
    }
    for (std::int64_t id = 0; id < s.dataset_len; ++id) {
      const auto count = seen[static_cast<std::size_t>(id)];
      if (count == 0) {
        ++ec.dropped;
        if (ec.dropped_ids.size() < kShownIds) ec.dropped_ids.push_back(id);
      } else {
        ++ec.distinct_seen;
        if (count > 1) {
          ec.duplicated += count - 1;
          if (ec.duplicated_ids.size() < kShownIds) ec.duplicated_ids.push_back(id);
        }
      }
    }
    s.epochs.push_back(std::move(ec));
  }
  return s;
}

std::string render_terminal(const trace::LoaderCase& config, const CoverageSummary& s) {
  std::ostringstream os;
  const auto& p = config.prepare;
  os << "accel-sim: " << s.num_processes << " ranks, dataset_len " << s.dataset_len << ", batch_size "
     << config.loader.batch_size << ", split_batches " << (p.split_batches ? "on" : "off") << ", even_batches "
     << (p.even_batches ? "on" : "off") << ", drop_last " << (config.loader.drop_last ? "on" : "off");
  if (config.loader.shuffle) {
    os << ", shuffle (" << (p.use_seedable_sampler ? "SeedableRandomSampler" : "RandomSampler");
    if (p.data_seed) os << ", seed " << *p.data_seed;
    os << ")";
  }
  if (config.skip_first_batches) os << ", skip_first_batches " << *config.skip_first_batches << " (first pass)";
  os << "\n";
  for (const EpochCoverage& ec : s.epochs) {
    os << "\nepoch " << ec.epoch << ":\n";
    const auto [lo, hi] = std::minmax_element(ec.batches_per_rank.begin(), ec.batches_per_rank.end());
    if (lo == ec.batches_per_rank.end()) {
      os << "  no ranks\n";
      continue;
    }
    if (*lo == *hi) {
      os << "  batches per rank   " << *lo << " on every rank\n";
    } else {
      std::vector<std::int64_t> fewer;
      for (std::size_t r = 0; r < ec.batches_per_rank.size(); ++r) {
        if (ec.batches_per_rank[r] == *lo) fewer.push_back(static_cast<std::int64_t>(r));
      }
      os << "  batches per rank   " << *hi << " (ranks " << ranks_text(fewer) << " get " << *lo
         << "): not in lock-step, a collective inside the loop would hang\n";
    }
    os << "  samples yielded    " << ec.samples_yielded << " (" << ec.distinct_seen << " distinct of "
       << s.dataset_len << ")\n";
    os << "  duplicated         " << ec.duplicated;
    if (ec.duplicated) os << " (ids " << ids_text(ec.duplicated_ids, ec.duplicated) << ")";
    os << "\n  dropped            " << ec.dropped;
    if (ec.dropped) os << " (ids " << ids_text(ec.dropped_ids, ec.dropped) << ")";
    os << "\n";
  }
  return os.str();
}

}  // namespace accel::reports
