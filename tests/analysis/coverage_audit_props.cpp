// The what-if's coverage audit against enumeration: the counts the report computes in closed form
// (EpochPlan runs swept over the epoch order) or with the byte-per-sample MultiplicityCounter must equal
// what every rank's loader actually yields, counted id by id. Generated configs cover map and iterable
// datasets, sequential and shuffled orders (seedable, RandomSampler with replacement / num_samples),
// skip_first_batches, dispatching, and ranks that shuffle differently (the replay path).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>

#include "core/coverage.hpp"
#include "analysis/what_if.hpp"
#include "sim/simulator.hpp"

namespace accel {
namespace {

struct Enumerated {
  std::vector<std::int64_t> times;  // per id
  std::vector<std::int64_t> batches_per_rank;
  std::vector<std::int64_t> len_per_rank;
  std::int64_t yielded = 0;
};

// Every rank's first pass, from the simulator (the per-rank loaders), counted id by id.
std::optional<Enumerated> enumerate(const trace::LoaderCase& c) {
  trace::LoaderCase one = c;
  one.epochs = 1;
  one.schedule.resize(1);
  const trace::Trace t = sim::simulate(one);
  if (t.error) return std::nullopt;
  Enumerated e;
  e.times.assign(static_cast<std::size_t>(c.loader.dataset_len), 0);
  for (const auto& r : std::get<std::vector<trace::RankRecord>>(t.body)) {
    const auto& pass = r.epochs.at(0);
    e.batches_per_rank.push_back(static_cast<std::int64_t>(pass.batches.size()));
    e.len_per_rank.push_back((pass.skipped_loader ? *pass.skipped_loader : r.attributes).len.value_or(-1));
    for (const Batch& b : pass.batches) {
      for (SampleId id : b) ++e.times.at(static_cast<std::size_t>(id));
      e.yielded += static_cast<std::int64_t>(b.size());
    }
  }
  return e;
}

// A choice drawn uniformly whatever the test's size (RapidCheck scales inRange with it, which would
// leave the last choices to the largest tests).
int choice(int options) { return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, options)); }

trace::LoaderCase gen_case() {
  trace::LoaderCase c;
  const bool iterable = choice(2) == 1;
  c.loader.dataset_kind = iterable ? DatasetKind::Iterable : DatasetKind::Map;
  c.prepare.num_processes = *rc::gen::inRange<std::int64_t>(1, 17);
  c.loader.dataset_len = *rc::gen::inRange<std::int64_t>(0, 1500);
  c.loader.batch_size = *rc::gen::inRange<std::int64_t>(1, 13);
  c.prepare.split_batches = *rc::gen::arbitrary<bool>();
  if (c.prepare.split_batches) {
    c.loader.batch_size = std::max<std::int64_t>(1, c.loader.batch_size / c.prepare.num_processes) * c.prepare.num_processes;
  }
  c.prepare.even_batches = *rc::gen::arbitrary<bool>();
  c.loader.drop_last = *rc::gen::arbitrary<bool>();
  const int order = choice(5);  // 0 sequential, 1 seedable, 2 RandomSampler, 3 with replacement/num_samples, 4 per-rank seeds
  if (iterable) {
    if (order != 0) c.loader.dataset_generator_seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    c.dataset_generator = c.loader.dataset_generator_seed.has_value();
    if (choice(4) == 0) {
      c.prepare.dispatch_batches = true;
      c.prepare.put_on_device = true;
    }
  } else if (order != 0 && c.loader.dataset_len > 0) {
    c.loader.shuffle = true;
    c.torch_manual_seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    if (order == 1) {
      c.prepare.use_seedable_sampler = true;
      c.prepare.data_seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    }
    if (order == 3) {
      c.loader.replacement = *rc::gen::arbitrary<bool>();
      c.loader.num_samples = *rc::gen::inRange<std::int64_t>(1, 2 * c.loader.dataset_len + 2);
    }
    if (order == 4) c.seed_per_rank = true;  // RandomSampler, no rng sync: every rank shuffles its own way
  }
  c.schedule = {trace::LoaderRole::Prepared};
  if (choice(3) == 0) {
    c.api = "prepare_data_loader+skip_first_batches";
    c.skip_first_batches = *rc::gen::inRange<std::int64_t>(0, 6);
    c.schedule = {trace::LoaderRole::Skipped};
  }
  return c;
}

std::string describe(const trace::LoaderCase& c) {
  std::ostringstream os;
  os << "{ranks=" << c.prepare.num_processes << " len=" << c.loader.dataset_len << " batch=" << c.loader.batch_size
     << " iterable=" << (c.loader.dataset_kind == DatasetKind::Iterable) << " split=" << c.prepare.split_batches
     << " even=" << c.prepare.even_batches << " drop=" << c.loader.drop_last << " shuffle=" << c.loader.shuffle
     << " seedable=" << c.prepare.use_seedable_sampler << " replacement=" << c.loader.replacement
     << " num_samples=" << c.loader.num_samples.value_or(-1) << " per_rank_seed=" << c.seed_per_rank
     << " dataset_generator=" << c.dataset_generator << " dispatch=" << c.prepare.dispatch_batches.value_or(false)
     << " skip=" << c.skip_first_batches.value_or(-1) << "}";
  return os.str();
}

RC_GTEST_PROP(Coverage, ReportCountsEqualEnumerationOfEveryRank, ()) {
  const trace::LoaderCase c = gen_case();
  RC_LOG() << describe(c) << "\n";
  const analysis::Scenario s = analysis::analyze(c, "case", "");
  const auto e = enumerate(c);
  RC_ASSERT(s.rejected.has_value() == !e.has_value());
  if (!e || s.iteration_error) return;
  RC_TAG(s.ranks_share_order ? "computed directly" : "replayed", c.loader.dataset_kind == DatasetKind::Iterable ? "iterable" : "map");
  RC_ASSERT(s.batches_per_rank == e->batches_per_rank);
  RC_ASSERT(s.len_per_rank == e->len_per_rank);
  const auto& k = s.coverage.counts;
  std::int64_t distinct = 0, repeated = 0, never = 0, max_times = 0;
  std::set<SampleId> never_ids, repeated_ids;
  for (std::size_t id = 0; id < e->times.size(); ++id) {
    const std::int64_t t = e->times[id];
    distinct += t > 0;
    repeated += t > 1;
    never += t == 0;
    max_times = std::max(max_times, t);
    if (t == 0) never_ids.insert(static_cast<SampleId>(id));
    if (t > 1) repeated_ids.insert(static_cast<SampleId>(id));
  }
  RC_ASSERT(k.yielded == e->yielded);
  RC_ASSERT(k.distinct == distinct);
  RC_ASSERT(k.repeated == repeated);
  RC_ASSERT(k.duplicated == e->yielded - distinct);
  RC_ASSERT(k.max_times == max_times);
  // Samples before the resume point are reported apart from the drops; together they are the unseen.
  RC_ASSERT(k.dropped + k.before_resume == never);
  if (!c.skip_first_batches) RC_ASSERT(k.before_resume == 0);
  // The ids named: up to 32 runs; every one of them when fewer runs exist.
  const auto held = [](const IdRanges& ids) {
    std::vector<SampleId> out;
    for (const IdRange& r : ids.ranges()) {
      for (SampleId id = r.first; id <= r.last; ++id) out.push_back(id);
    }
    return out;
  };
  const auto dup_held = held(s.coverage.duplicated_ids), drop_held = held(s.coverage.dropped_ids);
  RC_ASSERT(s.coverage.duplicated_ids.ranges().size() <= 32u);
  if (s.coverage.duplicated_ids.ranges().size() < 32u)
    RC_ASSERT(static_cast<std::int64_t>(dup_held.size()) == repeated);
  RC_ASSERT(std::set<SampleId>(dup_held.begin(), dup_held.end()).size() == dup_held.size());
  for (SampleId id : dup_held) RC_ASSERT(repeated_ids.count(id) == 1u);
  for (SampleId id : drop_held) RC_ASSERT(never_ids.count(id) == 1u);
  // The HTML strip: the worst status of each bin of ids.
  const std::int64_t bins = *rc::gen::inRange<std::int64_t>(1, 50);
  const auto strip = analysis::coverage_strip(c, bins);
  const std::int64_t n = c.loader.dataset_len;
  RC_ASSERT(static_cast<std::int64_t>(strip.size()) == std::min(bins, n));
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(strip.size()); ++b) {
    BinStatus want = BinStatus::Seen;
    for (std::int64_t id = b * n / std::min(bins, n); id < (b + 1) * n / std::min(bins, n); ++id) {
      const auto t = e->times[static_cast<std::size_t>(id)];
      if (t == 0) want = BinStatus::Dropped;
      if (t > 1 && want != BinStatus::Dropped) want = BinStatus::Duplicated;
    }
    RC_ASSERT(strip[static_cast<std::size_t>(b)] == want);
  }
}

// The closed form (sweep over runs of a permutation) and the byte map agree on any runs, including
// samples yielded 255 times or more (where the byte saturates).
RC_GTEST_PROP(Coverage, ClosedFormEqualsByteMapOnAnyRuns, ()) {
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 3000);
  const bool shuffled = *rc::gen::arbitrary<bool>();
  SampleOrder order = SampleOrder::sequential(n);
  if (shuffled) {
    TorchGenerator g(*rc::gen::inRange<std::uint64_t>(0, 100000));
    order = randperm_order(n, g);
  }
  std::vector<PositionRun> runs;
  const int count = *rc::gen::inRange(0, 8);
  for (int i = 0; i < count; ++i) {
    const std::int64_t a = *rc::gen::inRange<std::int64_t>(0, n);
    const std::int64_t b = *rc::gen::inRange<std::int64_t>(a, n + 1);
    runs.push_back({a, b, *rc::gen::element<std::int64_t>(1, 1, 2, 3, 200, 300, 70000)});
  }
  const std::int64_t resume = *rc::gen::inRange<std::int64_t>(0, n + 1);
  const auto closed = measure_coverage(runs, order, n, true, 1000000, resume);
  const auto counted = measure_coverage(runs, order, n, false, 1000000);
  RC_ASSERT(closed.counts.yielded == counted.counts.yielded);
  RC_ASSERT(closed.counts.distinct == counted.counts.distinct);
  RC_ASSERT(closed.counts.duplicated == counted.counts.duplicated);
  RC_ASSERT(closed.counts.repeated == counted.counts.repeated);
  RC_ASSERT(closed.counts.max_times == counted.counts.max_times);
  RC_ASSERT(closed.counts.dropped + closed.counts.before_resume == counted.counts.dropped);
  auto a = closed.duplicated_ids.first_ids(SIZE_MAX), b = counted.duplicated_ids.first_ids(SIZE_MAX);
  std::sort(a.begin(), a.end());
  RC_ASSERT(a == b);  // the counter lists ids in id order, the sweep in epoch order
  RC_ASSERT(static_cast<std::int64_t>(a.size()) == closed.counts.repeated);
  const std::int64_t bins = *rc::gen::inRange<std::int64_t>(1, 100);
  RC_ASSERT(coverage_bins(runs, order, n, true, bins) == coverage_bins(runs, order, n, false, bins));
}

}  // namespace
}  // namespace accel

// 1000 cases per property unless RC_PARAMS says otherwise; RapidCheck prints the seed it uses
// ("Using configuration: ... seed=N"), and RC_PARAMS="seed=N" replays a run.
int main(int argc, char** argv) {
  const char* given = std::getenv("RC_PARAMS");
  std::string params = given ? given : "";
  if (params.find("max_success") == std::string::npos) {
    if (!params.empty()) params += " ";
    params += "max_success=1000";
  }
  setenv("RC_PARAMS", params.c_str(), 1);
  std::cout << "coverage_audit_props: RC_PARAMS=\"" << params << "\" (add seed=N to replay a failure)\n";
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
