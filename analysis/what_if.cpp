// The what-if analysis: each option computed directly from the loaders' structure (EpochPlan runs and
// one shared epoch order, drawn once per distinct order), or replayed rank by rank where the ranks
// shuffle differently.
#include "analysis/what_if.hpp"
#include "analysis/counted.hpp"

#include "core/saturating.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "core/accelerate_release.hpp"
#include "core/epoch_plan.hpp"
#include "core/error.hpp"
#include "core/hf_stream_plan.hpp"
#include "core/worker_epoch_plan.hpp"
#include "sim/ddp_training.hpp"
#include "sim/rank_ranges.hpp"
#include "sim/simulator.hpp"

namespace accel::analysis {
namespace {

constexpr std::size_t kShownIds = 32;
constexpr std::size_t kShownOccurrences = 5;
// Positions of one batch read for the duplicate evidence: batches up to this size are read whole.
constexpr std::int64_t kEvidenceScan = std::int64_t{1} << 16;

std::optional<std::int64_t> first_pass_skip(const trace::LoaderCase& c) {
  if (!c.schedule.empty() && c.schedule.front() == trace::LoaderRole::Skipped) return c.skip_first_batches;
  return std::nullopt;
}

void finish_steps(Scenario& s) {
  if (s.batches_per_rank.empty()) return;
  const auto [lo, hi] = std::minmax_element(s.batches_per_rank.begin(), s.batches_per_rank.end());
  s.min_steps = *lo;
  s.max_steps = *hi;
  for (std::size_t r = 0; r < s.batches_per_rank.size(); ++r) {
    const auto n = s.batches_per_rank[r];
    if (n < s.max_steps) s.short_ranks.push_back(static_cast<std::int64_t>(r));
    // A rank with more batches enters a collective at step min_steps that the short ranks never do.
    if (n > s.min_steps) s.waiting_ranks.push_back(static_cast<std::int64_t>(r));
    if (s.len_per_rank[r] >= 0 && s.len_per_rank[r] != n) s.len_mismatch_ranks.push_back(static_cast<std::int64_t>(r));
  }
}

using Progress = std::function<void(const std::string&)>;

void tell(const Progress& progress, const std::string& line) {
  if (progress) progress(line);
}

// An iterable dataset read by DataLoader workers, or a datasets.IterableDataset (which hands each rank and worker
// shards of its own): no run of one shared epoch order describes its batches.
bool workers_interleave(const DataLoaderArgs& loader) {
  return loader.dataset_kind == DatasetKind::Iterable && loader.workers.active();
}
// A shuffled map-style datasets.Dataset maps every index to another example: replayed, so every id shown is the
// example's, not the sampler's index.
bool own_streams(const DataLoaderArgs& loader) {
  return workers_interleave(loader) || loader.hf_dataset.has_value() || loader.hf_map_shuffle_seed.has_value();
}
std::string own_streams_reason(const DataLoaderArgs& loader) {
  return loader.hf_dataset             ? "a datasets.IterableDataset gives every rank and worker its own shards"
         : loader.hf_map_shuffle_seed ? "a shuffled datasets.Dataset reads example permutation[i] for index i"
                                      : "DataLoader workers each yield their own stream";
}

bool draws_randperm(const DataLoaderArgs& loader) {
  if (loader.dataset_kind == DatasetKind::Iterable) return loader.dataset_generator_seed.has_value();
  return loader.shuffle && !loader.replacement;
}

bool inside_out(const DataLoaderArgs& loader, const PrepareOptions& options) {
  return options.torch_version == TorchVersion::v2_6 && loader.dataset_len >= kRandpermInsideOutThreshold;
}

// The last epoch order drawn. The variants a what-if compares mostly share it (same_pass_order), so each
// distinct shuffle is drawn once; one entry, released before the next is drawn, so at most one large
// permutation is alive at a time.
class OrderCache {
 public:
  // `skipped`: the pass is run by skip_first_batches' loader (pass_order's before_any_prepared_pass).
  SampleOrder get(const DataLoaderArgs& loader, const PrepareOptions& options, bool skipped, const Progress& progress) {
    if (order_ && skipped == skipped_ && same_pass_order(loader_, options_, loader, options)) return *order_;
    order_.reset();
    if (draws_randperm(loader)) {
      tell(progress, "drawing torch.randperm(" + std::to_string(loader.dataset_len) + ") (" +
                         (inside_out(loader, options) ? "inside-out loop" : "forward swap loop") + ")");
    }
    order_ = pass_order(loader, options, 0, skipped);
    loader_ = loader;
    options_ = options;
    skipped_ = skipped;
    return *order_;
  }

 private:
  std::optional<SampleOrder> order_;
  DataLoaderArgs loader_;
  PrepareOptions options_;
  bool skipped_ = false;
};

// Rows: every rank up to kTimelineEveryRank ranks; else runs of consecutive ranks with equal steps, and when those
// are still too many, equal buckets of ranks (a row then spans its ranks' fewest to most steps).
std::vector<TimelineRow> timeline_rows(const std::vector<std::int64_t>& steps) {
  const std::int64_t R = static_cast<std::int64_t>(steps.size());
  std::vector<TimelineRow> rows;
  const auto at = [&](std::int64_t r) { return steps[static_cast<std::size_t>(r)]; };
  if (R <= kTimelineEveryRank) {
    for (std::int64_t r = 0; r < R; ++r) rows.push_back({r, r, at(r), at(r)});
    return rows;
  }
  for (std::int64_t r = 0; r < R;) {
    std::int64_t e = r;
    while (e + 1 < R && at(e + 1) == at(r)) ++e;
    rows.push_back({r, e, at(r), at(r)});
    r = e + 1;
  }
  if (static_cast<std::int64_t>(rows.size()) <= kTimelineRows) return rows;
  rows.clear();
  for (std::int64_t b = 0; b < kTimelineRows; ++b) {
    const std::int64_t lo = b * R / kTimelineRows, hi = (b + 1) * R / kTimelineRows - 1;
    TimelineRow row{lo, hi, at(lo), at(lo)};
    for (std::int64_t r = lo; r <= hi; ++r) {
      row.min_steps = std::min(row.min_steps, at(r));
      row.max_steps = std::max(row.max_steps, at(r));
    }
    rows.push_back(row);
  }
  return rows;
}

// Shown steps: all of them when few; else the first, those around the step where ranks wait, the last.
std::vector<std::pair<std::int64_t, std::int64_t>> timeline_steps(std::int64_t min_steps, std::int64_t max_steps) {
  constexpr std::int64_t kAll = 96, kHead = 16, kAround = 8, kTail = 16;
  if (max_steps <= kAll) return {{0, max_steps}};
  std::vector<std::pair<std::int64_t, std::int64_t>> wanted = {
      {0, kHead},
      {std::max<std::int64_t>(0, min_steps - kAround), std::min(max_steps, min_steps + kAround + 1)},
      {max_steps - kTail, max_steps}};
  std::sort(wanted.begin(), wanted.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& w : wanted) {
    if (w.first >= w.second) continue;
    if (!out.empty() && w.first <= out.back().second) {
      out.back().second = std::max(out.back().second, w.second);
    } else {
      out.push_back(w);
    }
  }
  return out;
}

Timeline make_timeline(const Scenario& s, const EpochPlan* plan, const SampleOrder* order) {
  Timeline t;
  t.rows = timeline_rows(s.batches_per_rank);
  t.step_ranges = timeline_steps(s.min_steps, s.max_steps);
  // Ids for each shown cell, from the loaders' structure: O(batch) per cell, skipped for huge batches.
  constexpr std::int64_t kMaxBatchForIds = 4096;
  if (!plan || !order) {
    t.ids_note = "sample ids not kept: " + s.replay_reason + " (replayed one rank at a time)";
    return t;
  }
  // Padding per shown cell, over every rank of the row: O(1) per rank and step.
  for (const TimelineRow& row : t.rows) {
    std::vector<std::int64_t> cells;
    for (const auto& [begin, end] : t.step_ranges) {
      for (std::int64_t j = begin; j < end; ++j) {
        std::int64_t padded = 0;
        for (std::int64_t r = row.first_rank; r <= row.last_rank; ++r) {
          if (j < s.batches_per_rank[static_cast<std::size_t>(r)]) padded += plan->padded_in_batch(r, j);
        }
        cells.push_back(padded);
      }
    }
    t.padded.push_back(std::move(cells));
  }
  if (s.config.loader.batch_size > kMaxBatchForIds) {
    t.ids_note = "sample ids not kept for batches over " + std::to_string(kMaxBatchForIds) + " samples";
    return t;
  }
  t.ids_kept = true;
  for (const TimelineRow& row : t.rows) {
    std::vector<std::vector<SampleId>> cells;
    const std::int64_t r = row.first_rank, n = s.batches_per_rank[static_cast<std::size_t>(r)];
    for (const auto& [begin, end] : t.step_ranges) {
      for (std::int64_t j = begin; j < end; ++j) {
        std::vector<SampleId> ids;
        if (j < n) {
          plan->visit_batch_positions(r, j, kTimelineIds, [&](std::int64_t p) {
            ids.push_back((*order)[p]);
            return true;
          });
        }
        cells.push_back(std::move(ids));
      }
    }
    t.ids.push_back(std::move(cells));
  }
  return t;
}

// A StatefulDataLoader with workers in 0.34.0 - 1.12.x (snapshot_raises): what every rank's every pass raises.
std::string snapshot_failure(const trace::LoaderCase& c) {
  const bool dispatches = resolve_dispatch_batches(c.loader, c.prepare);
  return std::string("KeyError: '_sampler_iter_yielded' on ") + (dispatches ? "rank 0" : "every rank") +
         " in every pass, before any batch" +
         (dispatches ? " (the other ranks then fail in the broadcast: RuntimeError: Connection closed by peer)" : "") +
         ": Accelerate " + c.prepare.release.name() +
         " reads that count from a StatefulDataLoader's state, which has none with num_workers > 0 (1.13.0 on: "
         "read only where present)";
}

// Every rank replayed through the simulator, one rank at a time (O(N/R) batches alive), counting ids into
// a byte-per-sample map: for configs whose ranks do not share one order.
void analyze_by_replay(const trace::LoaderCase& c, Scenario& s, std::int64_t strip_bins, const Progress& progress) {
  trace::LoaderCase one_pass = c;
  one_pass.epochs = 1;
  one_pass.schedule.resize(1);
  if (one_pass.set_epoch) one_pass.set_epoch->resize(1);
  MultiplicityCounter counter(c.loader.dataset_len);
  std::int64_t yielded = 0;
  std::int64_t failed_ranks = 0;
  std::optional<std::string> first_failure;
  const auto consume = [&](const trace::RankRecord& r) {
    const auto& pass = r.epochs.at(0);
    if (pass.error) {
      ++failed_ranks;
      if (!first_failure)
        first_failure = pass.error->type + ": " + pass.error->message + " (rank " + std::to_string(r.rank) + ")";
    }
    s.batches_per_rank.push_back(static_cast<std::int64_t>(pass.batches.size()));
    // len() of the loader this pass iterates: the skipped loader's on a resume, as the direct path reports.
    const auto& iterated = pass.skipped_loader ? *pass.skipped_loader : r.attributes;
    s.len_per_rank.push_back(iterated.len.value_or(-1));
    s.loader_class = r.attributes.loader_class;
    for (const Batch& b : pass.batches) {
      for (SampleId id : b) counter.add(id);
      yielded += static_cast<std::int64_t>(b.size());
    }
  };
  const std::int64_t R = one_pass.prepare.num_processes;
  if (sim::needs_communicator(one_pass)) {
    // Ranks that talk run together; the simulator holds the whole trace.
    const trace::Trace t = sim::simulate(one_pass);
    if (t.error) {
      s.rejected = t.error->type + ": " + t.error->message;
      return;
    }
    for (const auto& r : std::get<std::vector<trace::RankRecord>>(t.body)) consume(r);
  } else {
    try {
      for (std::int64_t r = 0; r < R; ++r) {
        tell(progress, "replaying rank " + std::to_string(r + 1) + "/" + std::to_string(R));
        consume(sim::simulate_rank(one_pass, r));
      }
    } catch (const AccelerateError& e) {
      s.batches_per_rank.clear();
      s.len_per_rank.clear();
      s.rejected = std::string(python_name(e.type())) + ": " + e.message();
      return;
    }
  }
  if (failed_ranks == R && first_failure) {
    // Every rank's pass raised (as replayed): the snapshot rule says why, in the report's words, where it applies.
    s.iteration_error =
        snapshot_raises(c.prepare.release, c.prepare.use_stateful_dataloader, c.loader.workers.active(), R) &&
                !first_pass_skip(c)
            ? snapshot_failure(c)
            : *first_failure;
  }
  s.coverage = counter.finish(kShownIds);
  s.coverage.counts.yielded = yielded;
  if (strip_bins > 0) {
    s.coverage_strip = coverage_bins(counter, strip_bins);
    s.coverage_fractions = coverage_fractions(counter, strip_bins);
  }
  finish_steps(s);
  if (strip_bins > 0) s.timeline = make_timeline(s, nullptr, nullptr);  // replayed: ids not kept
}

// What a scenario needs of its epoch order: its ids (the report shows them), or only the counts (a fix's outcome
// quoted in a warning), which a permutation's runs give without drawing it.
enum class Need { Ids, Counts };

// Every rank's steps and len() from a plan that computes them (WorkerEpochPlan, HfStreamPlan).
template <typename Plan>
void take_rank_steps(const Plan& plan, Scenario& s) {
  for (std::int64_t r = 0; r < plan.num_ranks(); ++r) {
    s.batches_per_rank.push_back(plan.batches(r));
    const auto len = plan.len(r);
    s.len_per_rank.push_back(len.ok() ? len.value() : -1);
  }
}

// The plan of the first pass where it applies (the ranks share an order, nothing skipped, the dispatcher forms a
// batch), with every rank's steps and len() taken into `s`; nothing where the caller replays instead.
template <typename Plan>
std::optional<Plan> plan_first_pass(const trace::LoaderCase& c, Scenario& s) {
  PrepareOptions options = c.prepare;
  options.process_seed = sim::process_seed(c, 0);
  if (!s.ranks_share_order || first_pass_skip(c) || !Plan::applies(c.loader, options)) return std::nullopt;
  std::optional<Plan> plan(std::in_place, c.loader, options);
  if (plan->dispatch_fails()) return std::nullopt;  // the replay names the broadcast's failure on every rank
  take_rank_steps(*plan, s);
  return plan;
}

// The coverage of runs over ids (a sequential order's positions): listed in id order, as a replay lists them.
void cover_id_runs(Scenario& s, const std::vector<PositionRun>& runs, std::int64_t n, std::int64_t strip_bins) {
  const SampleOrder order = SampleOrder::sequential(n);
  s.coverage = measure_coverage(runs, order, n, true, kShownIds);
  if (strip_bins > 0) {
    s.coverage_strip = coverage_bins(runs, order, n, true, strip_bins);
    s.coverage_fractions = coverage_fractions(runs, order, n, true, strip_bins);
  }
}

// A datasets.IterableDataset read shard by shard, in order (core/hf_stream_plan.hpp): ids are the shards' ranges, so
// counts, the ids shown and the strip come from id runs, whatever the examples number. False where the plan does
// not apply: the caller replays.
bool analyze_hf_streams(const trace::LoaderCase& c, Scenario& s, std::int64_t strip_bins, Need need) {
  const std::optional<HfStreamPlan> planned = plan_first_pass<HfStreamPlan>(c, s);
  if (!planned) return false;
  const HfStreamPlan& plan = *planned;
  const std::int64_t n = c.loader.dataset_len;
  if (need == Need::Counts && strip_bins == 0) {
    s.coverage.counts = permutation_coverage_counts(plan.id_runs(), n, n);
    s.ids_drawn = false;
  } else {
    cover_id_runs(s, plan.id_runs(), n, strip_bins);
  }
  finish_steps(s);
  if (strip_bins > 0) s.timeline = make_timeline(s, nullptr, nullptr);  // as a replay's: no ids per step
  return true;
}

// Past this many position runs a strided split's ids are counted one by one instead.
constexpr std::size_t kMaxWorkerRuns = std::size_t{1} << 20;

// DataLoader workers over an iterable dataset, from the workers' streams (core/worker_epoch_plan.hpp) instead of a
// replay: the counts from the runs alone; the ids shown counted from the same runs, one byte per sample, so they are
// listed in id order as a replay lists them. False where the plan does not apply: the caller replays.
bool analyze_workers(const trace::LoaderCase& c, Scenario& s, OrderCache& cache, std::int64_t strip_bins,
                     const Progress& progress, Need need) {
  const std::optional<WorkerEpochPlan> planned = plan_first_pass<WorkerEpochPlan>(c, s);
  if (!planned) return false;
  const WorkerEpochPlan& plan = *planned;
  const std::int64_t n = c.loader.dataset_len;
  if (need == Need::Counts && strip_bins == 0) {
    s.coverage.counts = permutation_coverage_counts(plan.layout_runs(), n, n);
    s.ids_drawn = false;
  } else if (const auto runs = c.loader.dataset_generator_seed ? std::nullopt : plan.position_runs(kMaxWorkerRuns)) {
    cover_id_runs(s, *runs, n, strip_bins);  // a sequential order: ids are positions
  } else {
    const SampleOrder order = cache.get(c.loader, plan.options(), false, progress);
    MultiplicityCounter counter(n);
    std::int64_t yielded = 0;
    for (const WorkerRun& run : plan.runs()) {
      const WorkerStream& stream = plan.streams()[static_cast<std::size_t>(run.worker)];
      order.visit([&](const auto& ids) {
        for (std::int64_t i = run.begin, p = stream.position(run.begin); i < run.end; ++i, p += stream.stride)
          counter.add(static_cast<SampleId>(ids[p]), run.times);
      });
      yielded += (run.end - run.begin) * run.times;
    }
    s.coverage = counter.finish(kShownIds);
    s.coverage.counts.yielded = yielded;
    if (strip_bins > 0) {
      s.coverage_strip = coverage_bins(counter, strip_bins);
      s.coverage_fractions = coverage_fractions(counter, strip_bins);
    }
  }
  finish_steps(s);
  if (strip_bins > 0) s.timeline = make_timeline(s, nullptr, nullptr);  // as a replay's: no ids per step
  return true;
}

Scenario analyze_with(const trace::LoaderCase& c, std::string label, std::string flags, OrderCache& cache,
                      std::int64_t strip_bins, const Progress& progress, Need need = Need::Ids,
                      std::int64_t drawn_shuffle_limit = kDrawnShuffleLimit) {
  if (draws_randperm(c.loader) && c.loader.dataset_len > drawn_shuffle_limit) {
    need = Need::Counts;  // the ids and the strip would draw it
    strip_bins = 0;
  }
  Scenario s;
  s.label = std::move(label);
  s.flags = std::move(flags);
  s.config = c;
  s.dispatches = resolve_dispatch_batches(c.loader, c.prepare);
  s.loader_class = s.dispatches ? "DataLoaderDispatcher" : "DataLoaderShard";
  s.ranks_share_order = !sim::ranks_shuffle_differently(c);
  try {
    sim::check_release_keywords(c);
    if (s.ranks_share_order && workers_interleave(c.loader) && !c.loader.hf_dataset &&
        analyze_workers(c, s, cache, strip_bins, progress, need)) {
      return s;
    }
    if (c.loader.hf_dataset && analyze_hf_streams(c, s, strip_bins, need)) return s;
    if (!s.ranks_share_order) {
      s.replay_reason = "the ranks shuffle differently";
    } else if (own_streams(c.loader)) {
      s.replay_reason = own_streams_reason(c.loader);
    }
    if (!s.replay_reason.empty()) {
      analyze_by_replay(c, s, strip_bins, progress);
      return s;
    }
    PrepareOptions options = c.prepare;
    options.process_seed = sim::process_seed(c, 0);
    const auto skip = first_pass_skip(c);
    const EpochPlan plan(c.loader, options, skip);
    const std::int64_t R = plan.num_ranks();
    for (std::int64_t r = 0; r < R; ++r) {
      s.batches_per_rank.push_back(plan.batches(r));
      const auto len = plan.len(r);
      s.len_per_rank.push_back(len.ok() ? len.value() : -1);
    }
    if (plan.dispatch_fails()) {
      s.iteration_error = "TypeError: no batch can be formed, every rank fails in the broadcast";
    }
    if (plan.snapshot_raises()) {
      s.iteration_error = snapshot_failure(c);
      finish_steps(s);
      return s;
    }
    const auto runs = plan.runs();
    s.resumed_from = plan.resume_position();
    if (need == Need::Counts && strip_bins == 0) {
      // Drawing a shuffle of 10^9 ids costs seconds and gigabytes (issue 25); its counts need none of it.
      if (const auto length = permutation_pass_length(c.loader, options, 0)) {
        s.coverage.counts = permutation_coverage_counts(runs, *length, c.loader.dataset_len, s.resumed_from);
        s.ids_drawn = false;
        finish_steps(s);
        return s;
      }
    }
    const SampleOrder order = cache.get(c.loader, options, skip.has_value(), progress);
    const bool permutation = !c.loader.shuffle || (!c.loader.replacement && order.size() == c.loader.dataset_len);
    s.coverage = measure_coverage(runs, order, c.loader.dataset_len, permutation, kShownIds, s.resumed_from);
    if (strip_bins > 0) {
      s.coverage_strip = coverage_bins(runs, order, c.loader.dataset_len, permutation, strip_bins);
      s.coverage_fractions =
          coverage_fractions(runs, order, c.loader.dataset_len, permutation, strip_bins, s.resumed_from);
    }
    // Evidence: where the first duplicated samples are yielded (the padded tail of the epoch).
    // Each batch is scanned up to kEvidenceScan positions, so huge batches cost what small ones do; the
    // occurrences found are real ones, maybe not every one.
    if (s.coverage.counts.duplicated > 0 && !s.coverage.duplicated_ids.empty()) {
      const SampleId wanted = s.coverage.duplicated_ids.ranges().front().first;
      const auto look_in = [&](std::int64_t r, std::int64_t j) {
        // One occurrence per batch: a padded batch that repeats the id many times is one place to look.
        plan.visit_batch_positions(r, j, kEvidenceScan, [&](std::int64_t p) {
          if (order[p] != wanted) return true;
          s.duplicate_occurrences.push_back({r, j, wanted});
          return false;
        });
      };
      for (std::int64_t r = 0; r < R && s.duplicate_occurrences.size() < kShownOccurrences; ++r) {
        const std::int64_t n = plan.batches(r);
        for (std::int64_t j = std::max<std::int64_t>(0, n - 2);
             j < n && s.duplicate_occurrences.size() < kShownOccurrences; ++j) {
          look_in(r, j);
        }
        // The first occurrence is early in the epoch on rank 0 or so; look there too.
        if (n > 2 && s.duplicate_occurrences.size() < kShownOccurrences) look_in(r, 0);
      }
    }
    finish_steps(s);
    if (strip_bins > 0) {
      s.timeline = make_timeline(s, &plan, &order);
      // A rank's padded batches end its pass (padding follows the order's last position): count them from the end.
      for (std::int64_t r = 0; r < R; ++r) {
        std::int64_t padded = 0;
        for (std::int64_t j = s.batches_per_rank[static_cast<std::size_t>(r)] - 1;
             j >= 0 && plan.padded_in_batch(r, j) > 0; --j) {
          ++padded;
        }
        s.padded_batches_per_rank.push_back(padded);
      }
    }
  } catch (const AccelerateError& e) {
    s.rejected = std::string(python_name(e.type())) + ": " + e.message();
  }
  return s;
}

}  // namespace

std::string rank_ranges(const std::vector<std::int64_t>& ranks) { return sim::rank_ranges(ranks); }

Scenario analyze(const trace::LoaderCase& c, std::string label, std::string flags, std::int64_t drawn_shuffle_limit) {
  OrderCache cache;
  return analyze_with(c, std::move(label), std::move(flags), cache, 0, nullptr, Need::Ids, drawn_shuffle_limit);
}

std::vector<BinStatus> coverage_strip(const trace::LoaderCase& c, std::int64_t bins) {
  OrderCache cache;
  return analyze_with(c, "", "", cache, bins, nullptr).coverage_strip;
}

std::string ids_text(const Scenario& s, const IdRanges& ids, std::int64_t total) {
  if (!s.ids_drawn)
    return "ids not drawn: a shuffle past the limit is counted, not drawn (the what-if's --draw-ids draws it)";
  return "ids " + format_id_ranges(ids, total);
}

Scenario analyze_counts(const trace::LoaderCase& c, std::string label, std::string flags) {
  OrderCache cache;
  return analyze_with(c, std::move(label), std::move(flags), cache, 0, nullptr, Need::Counts);
}

namespace {

// No seed reaches the shuffle: torch seeds every process from the OS.
bool unseeded_shuffle(const trace::LoaderCase& c) {
  if (!c.loader.shuffle || c.torch_manual_seed || c.loader.generator_seed) return false;
  if (c.loader.dataset_kind != DatasetKind::Map) return !(c.prepare.use_seedable_sampler && c.prepare.data_seed);
  // The release's rules: an unseeded torch.Generator() (0.14 - 0.23, 0.30 - 1.5.2) orders alike every run.
  return !shuffle_seeding(c.loader, c.prepare).fixed;
}

// A seeded shuffle whose order comes from the global generator's position at prepare (Accelerate seeds the
// sampler's generator from it; one process and the dispatcher draw from it every pass): anything the script
// draws between set_seed and prepare moves the ids. A SeedableRandomSampler and a user generator do not.
bool ids_follow_global_generator(const trace::LoaderCase& c) {
  return c.loader.shuffle && c.loader.dataset_kind == DatasetKind::Map && c.torch_manual_seed &&
         shuffle_seeding(c.loader, c.prepare).global_draws;
}

// The DDP training loop over a scenario's ranks (sim/ddp_training.hpp, what `accel-sim launch` runs for real),
// predicted from each rank's batches per pass (`passes` when every pass was computed, else the first pass's
// counts for every pass, which holds unless a pass is a skip_first_batches loader). nullopt when no prediction
// holds: too many micro-steps, or a Join whose ranks pair different collectives.
std::optional<sim::TrainingVerdict> predict_ddp(const Scenario& s, const std::vector<PassFigures>* passes,
                                                const sim::TrainingLoop& loop) {
  constexpr std::int64_t kMaxMicroSteps = 10'000'000;
  const trace::LoaderCase& c = s.config;
  const std::int64_t R = c.prepare.num_processes;
  if (R < 2 || s.rejected || s.iteration_error || s.batches_per_rank.size() != static_cast<std::size_t>(R)) {
    return std::nullopt;
  }
  const bool every_pass = passes && static_cast<std::int64_t>(passes->size()) == c.epochs;
  const bool skips = std::find(c.schedule.begin(), c.schedule.end(), trace::LoaderRole::Skipped) != c.schedule.end();
  if (!every_pass && skips) return std::nullopt;
  std::vector<std::vector<std::int64_t>> batches(static_cast<std::size_t>(R));
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t e = 0; e < c.epochs; ++e) {
      batches[static_cast<std::size_t>(r)].push_back(
          every_pass ? (*passes)[static_cast<std::size_t>(e)].steps_per_rank.at(static_cast<std::size_t>(r))
                     : s.batches_per_rank[static_cast<std::size_t>(r)]);
    }
  }
  return sim::predict_training(batches, loop, sim::join_enabled(c, loop), kMaxMicroSteps);
}

// The even_batches=False alternative as the table simulated it: advised only when it removes duplicates, and
// always with what it costs (ranks left waiting in a collective) and with join_uneven_inputs applied and
// simulated, never on a config that already has it.
std::string even_batches_advice(const WhatIfReport& report) {
  const Scenario& base = report.scenarios.front();
  if (!base.config.prepare.even_batches) return "";
  for (const Scenario& alt : report.scenarios) {
    if (alt.label != "even_batches=False" || alt.rejected || alt.iteration_error) continue;
    const std::int64_t before = base.coverage.counts.duplicated, after = alt.coverage.counts.duplicated;
    if (after >= before) return "";
    std::ostringstream os;
    os << "; even_batches=False (simulated) "
       << (after == 0 ? "removes them" : "leaves " + std::to_string(after) + " extra yields");
    if (alt.waiting_ranks.empty()) {
      os << " and the ranks stay in lock-step";
      return os.str();
    }
    os << ", but ranks " << rank_ranges(alt.waiting_ranks) << " then wait forever at step " << alt.min_steps
       << " in any per-step collective";
    sim::TrainingLoop join;
    join.join_uneven_inputs = true;
    // Accelerate 1.15 runs join_uneven_inputs only on multi-device (GPU) jobs; on CPUs it does nothing.
    const bool cpu = report.launch && report.launch->use_cpu;
    join.multi_device = !cpu;
    // The alternative's passes are not computed one by one: its first pass stands for every pass.
    const auto joined = predict_ddp(alt, nullptr, join);
    if (cpu) {
      os << "; join_uneven_inputs would not save it: Accelerate ignores it on multi-CPU jobs (simulated: the ranks "
            "still wait)";
    } else if (joined && joined->completed) {
      // The launch the hint names runs the same mesh, or it would test another job.
      const std::string mesh = report.mesh ? (report.api == "accelerator" ? "--parallelism " : "--device-mesh ") +
                                                 mesh_dims_text(report.mesh->mesh, ",") + " "
                                           : "";
      os << "; under accelerator.join_uneven_inputs([model]) on GPUs (simulated, as `accel-sim launch " << mesh
         << "--no-even-batches --join-uneven-inputs --distributed-type MULTI_GPU` runs it) every rank completes "
            "(Accelerate ignores join_uneven_inputs on multi-CPU jobs)";
    } else {
      // Advice that was not shown to hold is not given as a fix.
      os << " (join_uneven_inputs could not be shown to save it here)";
    }
    return os.str();
  }
  return "";
}

void add_launch_warnings(WhatIfReport& report) {
  if (!report.launch) return;
  const LaunchSetup& l = *report.launch;
  if (l.mixed_precision == "fp16" && !l.use_cpu) {
    // Accelerator.__init__ builds a GradScaler for fp16 on an accelerator (never on the CPU).
    report.warnings.push_back(
        Warning(code::kFp16SkippedSteps, Severity::Note,
                std::string("mixed_precision fp16: the loss scaler skips the optimizer step (and the "
                            "scheduler's) whenever the gradients overflow, so training takes more steps "
                            "than the table counts") +
                    (l.training && !l.overflow_simulated ? "; --overflow-prob P --overflow-seed S simulates it" : ""))
            .with("mixed_precision", l.mixed_precision));
  }
}

const Scenario* scenario_labelled(const WhatIfReport& report, const std::string& label) {
  for (const Scenario& s : report.scenarios) {
    if (s.label == label) return &s;
  }
  return nullptr;
}

// "worker_split=strided yields 1024 samples (24 duplicated, 0 dropped, 32 steps)": a simulated alternative.
std::string outcome_text(const Scenario& s) {
  if (s.rejected) return s.label + " is rejected (" + *s.rejected + ")";
  const auto& cov = s.coverage.counts;
  return s.label + " (" + s.flags + ") yields " + std::to_string(cov.yielded) + " samples (" +
         std::to_string(cov.duplicated) + " duplicated, " + std::to_string(cov.dropped) + " dropped, " +
         std::to_string(s.max_steps) + " steps)";
}

HfDatasetReport hf_dataset_report(const trace::LoaderCase& c) {
  const HfIterableDataset& ds = *c.loader.hf_dataset;
  HfDatasetReport out;
  out.datasets_version = datasets_version(ds.release());
  out.num_shards = static_cast<std::int64_t>(ds.shard_sizes().size());
  out.shuffled = ds.is_shuffled();
  out.split_by_node = c.loader.hf_split_by_node;
  const std::int64_t R = c.prepare.num_processes;
  out.n_shards = c.loader.hf_split_by_node ? ds.split_dataset_by_node(0, R).n_shards() : ds.n_shards();
  const HfDatasetPath path = hf_dataset_path(c.loader, c.prepare);
  out.path = hf_dataset_path_name(path);
  const std::string n = std::to_string(out.n_shards), r = std::to_string(R);
  // The comparison the release makes (hf_shard_rule): 1.14.0 on takes .shard() at n_shards >= R, 1.8.1 - 1.13 above R.
  const HfShardRule rule = hf_shard_rule(c.prepare.release);
  const bool strict = rule == HfShardRule::MoreShardsThanRanks;
  const std::string release = c.prepare.release.name();
  switch (path) {
    case HfDatasetPath::Shard:
      out.path_text = "dataset.shard(num_shards=" + r + ", index=rank): n_shards " + n + (strict ? " > " : " >= ") +
                      "num_processes " + r +
                      " and batches are neither split nor dispatched, so every rank reads whole contiguous shards, "
                      "unpadded";
      break;
    case HfDatasetPath::IterableDatasetShard:
      out.path_text =
          std::string("IterableDatasetShard: ") +
          (c.prepare.split_batches             ? std::string("split_batches=True")
           : rule == HfShardRule::None          ? "Accelerate " + release + " has no .shard() path (1.8.1 on)"
           : strict                             ? "n_shards " + n + " <= num_processes " + r + " (Accelerate " +
                                                      release + " takes .shard() only above it)"
                                                : "n_shards " + n + " < num_processes " + r) +
          ", so every rank reads the whole stream and keeps its slice of each global batch (padded from the "
          "stream's start)";
      break;
    case HfDatasetPath::Dispatched:
      out.path_text = "DataLoaderDispatcher: rank 0 reads the stream and sends every rank its slice";
      break;
    case HfDatasetPath::Unsharded:
      out.path_text = "one process: the dataset is read as it is";
      break;
  }
  if (path == HfDatasetPath::Shard) {
    for (std::int64_t rank = 0; rank < R; ++rank) {
      PrepareOptions o = c.prepare;
      o.process_index = rank;
      const HfIterableDataset mine = hf_rank_dataset(c.loader, o);
      if (const auto read = mine.read_shards()) {
        // Shards read whole and in order: the list is the answer (an empty one yields no id, so it is not named).
        std::int64_t examples = 0;
        std::vector<std::int64_t> shards;
        for (std::int64_t s : *read) {
          const std::int64_t size = ds.shard_sizes()[static_cast<std::size_t>(s)];
          examples += size;
          if (size > 0) shards.push_back(s);
        }
        out.examples_per_rank.push_back(examples);
        out.shards_per_rank.push_back(std::move(shards));
        continue;
      }
      const std::vector<std::int64_t> ids = mine.stream();
      out.examples_per_rank.push_back(static_cast<std::int64_t>(ids.size()));
      // Which shards: read off the ids (a shard's examples are consecutive ids), in reading order.
      std::vector<std::int64_t> offsets{0};
      for (std::int64_t size : ds.shard_sizes()) offsets.push_back(offsets.back() + size);
      std::vector<std::int64_t> shards;
      std::vector<bool> seen(ds.shard_sizes().size(), false);
      for (std::int64_t id : ids) {
        const auto s =
            static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), id) - offsets.begin() - 1);
        if (!seen[s]) {
          seen[s] = true;
          shards.push_back(static_cast<std::int64_t>(s));
        }
      }
      out.shards_per_rank.push_back(std::move(shards));
    }
  }
  return out;
}

// A datasets.IterableDataset's own hazards: whole shards of unequal size per rank (.shard()), and a stream the
// script split by node that Accelerate splits again.
void add_hf_warnings(WhatIfReport& report) {
  if (!report.hf_dataset) return;
  const Scenario& s = report.scenarios.front();
  if (s.rejected) return;
  const HfDatasetReport& hf = *report.hf_dataset;
  const auto& cov = s.coverage.counts;
  std::vector<std::string> fixes;
  for (const Scenario& f : report.scenarios) {
    if (&f == &s || f.rejected) continue;
    if (f.min_steps == f.max_steps && !f.iteration_error) fixes.push_back(outcome_text(f));
  }
  const auto simulated = [&](std::ostringstream& os) {
    if (fixes.empty()) return;
    os << "; simulated, in lock-step: ";
    for (std::size_t i = 0; i < fixes.size(); ++i) os << (i ? "; " : "") << fixes[i];
  };
  if (hf.path == "shard" && s.min_steps != s.max_steps) {
    std::ostringstream os;
    os << "Accelerate hands every rank whole shards (dataset.shard(" << report.num_processes
       << ", rank)) and pads nothing: the ranks read ";
    for (std::size_t r = 0; r < hf.examples_per_rank.size(); ++r) os << (r ? ", " : "") << hf.examples_per_rank[r];
    os << " examples (" << s.min_steps << " to " << s.max_steps << " steps), so "
       << (s.waiting_ranks.size() == 1 ? "rank " : "ranks ") << rank_ranges(s.waiting_ranks)
       << (s.waiting_ranks.size() == 1 ? " waits" : " wait") << " forever at step " << s.min_steps
       << " in any per-step collective, or stop early and leave the rest unread";
    simulated(os);
    report.warnings.insert(report.warnings.begin(), Warning(code::kHfUnevenShards, Severity::Error, os.str())
                                                        .with("min_steps", s.min_steps)
                                                        .with("max_steps", s.max_steps));
  }
  if (hf.split_by_node && (hf.path == "shard" || hf.path == "IterableDatasetShard") && cov.dropped > 0) {
    std::ostringstream os;
    os << "the script's split_dataset_by_node already gave every rank its part of the stream, and Accelerate "
       << (hf.path == "shard" ? "shards that part again (dataset.shard)"
                              : "slices that part again (IterableDatasetShard)")
       << ": " << cov.dropped << " of " << report.dataset_len << " examples are never read";
    if (const Scenario* f = scenario_labelled(report, "without split_dataset_by_node")) {
      os << "; simulated: " << outcome_text(*f);
    }
    report.warnings.insert(report.warnings.begin(),
                           Warning(code::kHfSplitTwice, Severity::Error, os.str()).with("dropped", cov.dropped));
  }
}

// What the DataLoader's workers do to the stream, measured against the same job with num_workers=0.
void add_worker_warnings(WhatIfReport& report) {
  const Scenario& s = report.scenarios.front();
  const DataLoaderWorkers& workers = s.config.loader.workers;
  if (s.rejected || s.iteration_error || !workers_interleave(s.config.loader)) return;
  const Scenario* single = scenario_labelled(report, "num_workers=0");
  if (!single || single->rejected) return;
  const std::int64_t W = workers.num_workers;
  const auto& cov = s.coverage.counts;
  const auto& base = single->coverage.counts;
  if (workers.split == WorkerSplit::None && W > 1 && !s.config.loader.hf_dataset) {
    std::ostringstream os;
    os << "num_workers=" << W
       << " and the dataset does not split its stream by worker (get_worker_info() unused, --worker-split none): every "
          "worker iterates its own copy of all "
       << report.dataset_len << " samples, so the job yields " << cov.yielded << " samples where num_workers=0 yields "
       << base.yielded << " (each sample " << W << " times";
    if (cov.max_times > W) os << ", up to " << cov.max_times << " with Accelerate's padding";
    os << ")";
    std::vector<std::string> fixes;
    for (const char* label : {"worker_split=strided", "num_workers=0"}) {
      if (const Scenario* f = scenario_labelled(report, label)) fixes.push_back(outcome_text(*f));
    }
    if (!fixes.empty()) {
      os << "; simulated: ";
      for (std::size_t i = 0; i < fixes.size(); ++i) os << (i ? "; " : "") << fixes[i];
    }
    report.warnings.insert(report.warnings.begin(), Warning(code::kWorkerDuplicates, Severity::Warning, os.str())
                                                        .with("num_workers", W)
                                                        .with("samples_yielded", cov.yielded)
                                                        .with("samples_yielded_without_workers", base.yielded)
                                                        .with("max_times", cov.max_times));
    return;
  }
  if (s.max_steps != single->max_steps || cov.dropped != base.dropped) {
    std::ostringstream os;
    os << "each of the " << W << " workers batches its own part of the stream ("
       << (s.config.loader.hf_dataset
               ? std::string("the datasets.IterableDataset's shards worker_id, worker_id + W, ...")
               : "worker_split " + std::string(worker_split_name(workers.split)))
       << ") and can end with a short batch of its own: " << s.max_steps << " steps and " << cov.dropped
       << " samples dropped per pass, where num_workers=0 gives " << single->max_steps << " steps and " << base.dropped
       << " dropped";
    report.warnings.push_back(
        Warning(code::kWorkerPartialBatches, cov.dropped > base.dropped ? Severity::Warning : Severity::Note, os.str())
            .with("num_workers", W)
            .with("steps", s.max_steps)
            .with("steps_without_workers", single->max_steps)
            .with("dropped", cov.dropped)
            .with("dropped_without_workers", base.dropped));
  }
}

void add_warnings(WhatIfReport& report) {
  const Scenario& s = report.scenarios.front();
  auto& w = report.warnings;
  if (s.rejected) {
    w.push_back(Warning(code::kRejectedConfig, Severity::Error, "Accelerate rejects this configuration: " + *s.rejected)
                    .with("error", *s.rejected));
    return;
  }
  if (s.iteration_error) {
    w.push_back(
        Warning(code::kIterationError, Severity::Error, "every rank fails while iterating: " + *s.iteration_error)
            .with("error", *s.iteration_error));
  }
  const auto& cov = s.coverage.counts;
  // A job whose every rank fails yields nothing: what it would duplicate or drop is not the finding.
  if (cov.duplicated > 0 && !s.iteration_error) {
    std::ostringstream os;
    os << counted(cov.repeated, "sample is", "samples are") << " seen ";
    if (cov.max_times == 2) {
      os << "twice";
    } else {
      os << "more than once (up to " << cov.max_times << " times, " << cov.duplicated << " extra yields)";
    }
    os << " (" << ids_text(s, s.coverage.duplicated_ids, cov.repeated)
       << "): metrics computed without gather_for_metrics are biased";
    if (!s.dispatches && report.dataset_kind == "map") os << even_batches_advice(report);
    // IterableDatasetShard's length is a multiple of its batch size, so GradientState.remainder is 0 (or -1
    // with drop_last) and gather_for_metrics has nothing to cut: the hint above would mislead here.
    if (!s.dispatches && report.dataset_kind == "iterable") {
      os << "; gather_for_metrics does not remove them either (the shard reports remainder 0; --eval shows what the "
            "metric gets)";
    }
    w.push_back(Warning(code::kDuplicatedSamples, Severity::Warning, os.str())
                    .with("duplicated", cov.duplicated)
                    .with("repeated_samples", cov.repeated)
                    .with("max_times_seen", cov.max_times)
                    .with("ids", s.coverage.duplicated_ids.first_ids(kShownIds)));
  }
  if (cov.dropped > 0 && !s.iteration_error) {
    std::ostringstream os;
    os << counted(cov.dropped, "sample is", "samples are") << " never seen in the epoch ("
       << ids_text(s, s.coverage.dropped_ids, cov.dropped) << ")";
    if (s.config.loader.drop_last) os << ": drop_last drops the incomplete last step on every rank";
    if (!s.ranks_share_order) os << ": the ranks shuffle differently (no rng synchronisation)";
    w.push_back(Warning(code::kDroppedSamples, Severity::Warning, os.str())
                    .with("dropped", cov.dropped)
                    .with("ids", s.coverage.dropped_ids.first_ids(kShownIds)));
  }
  if (s.config.loader.shuffle && s.config.prepare.data_seed && !s.config.prepare.use_seedable_sampler) {
    // The fix applied and simulated: the same config with use_seedable_sampler=True.
    trace::LoaderCase seedable = s.config;
    seedable.prepare.use_seedable_sampler = true;
    const Scenario fixed = analyze_counts(seedable, "use_seedable_sampler=True", "--use-seedable-sampler");
    std::string fix = "--use-seedable-sampler, or set_seed, seeds the shuffle";
    if (!fixed.rejected && !fixed.iteration_error) {
      fix = "with --use-seedable-sampler (simulated) SeedableRandomSampler(seed=" +
            to_string(*s.config.prepare.data_seed) +
            ") shuffles the same way on every run and every rank: " + std::to_string(fixed.coverage.counts.duplicated) +
            " duplicated, " + std::to_string(fixed.coverage.counts.dropped) + " never seen";
    }
    w.push_back(Warning(code::kDataSeedIgnored, Severity::Warning,
                        "data_seed is set but use_seedable_sampler is False: Accelerate only hands data_seed to "
                        "SeedableRandomSampler, so it has no effect (" +
                            fix + ")")
                    .with("data_seed", to_string(*s.config.prepare.data_seed)));
  }
  if (unseeded_shuffle(s.config)) {
    std::string advice;
    if (!s.ranks_share_order) {
      // The advice is the simulated outcome of the same config with one seed on every rank.
      trace::LoaderCase seeded = s.config;
      seeded.torch_manual_seed = PythonInt{0};
      seeded.seed_per_rank = false;
      const Scenario fixed = analyze_counts(seeded, "set_seed", "--set-seed N");
      if (!fixed.rejected && !fixed.iteration_error) {
        advice = "; with set_seed(N) on every rank (--set-seed N, simulated) " +
                 std::to_string(fixed.coverage.counts.duplicated) + " duplicated and " +
                 std::to_string(fixed.coverage.counts.dropped) + " never seen, the same on every run";
      }
    }
    w.push_back(Warning(code::kUnseededShuffle, s.ranks_share_order ? Severity::Note : Severity::Warning,
                        std::string("shuffle without a seed: torch seeds every process from the OS, so the order "
                                    "differs every run") +
                            (s.ranks_share_order
                                 ? std::string("; every rank follows one order, so the counts hold for every run") +
                                       (s.ids_drawn ? " (the ids shown are one run's)" : "")
                                 : " and every rank shuffles differently, so which samples are duplicated or never "
                                   "seen changes too (the counts are one possible run)" +
                                       advice))
                    .with("ranks_share_order", s.ranks_share_order));
  }
  if (ids_follow_global_generator(s.config)) {
    const std::uint64_t draws = s.config.prepare.process_generator_draws;
    w.push_back(Warning(code::kIdsFollowGlobalGenerator, Severity::Note,
                        draws == 0
                            ? "the ids assume the script draws nothing from torch's global generator between set_seed "
                              "and prepare; building the model there (its initialisation draws) changes which ids "
                              "each rank gets, not the counts: save torch.get_rng_state().numpy().tofile(FILE) just "
                              "before prepare and give --rng-state FILE (or --rng-draws N)"
                            : "the ids follow torch's global generator " + std::to_string(draws) +
                                  " words past set_seed at prepare (--rng-state / --rng-draws): a different model "
                                  "or torch release before prepare changes them, not the counts")
                    .with("draws_before_prepare", static_cast<std::int64_t>(draws)));
  }
  if (!s.short_ranks.empty()) {
    std::ostringstream os;
    const auto ranks_word = [](const std::vector<std::int64_t>& r) { return r.size() == 1 ? "rank " : "ranks "; };
    os << ranks_word(s.short_ranks) << rank_ranges(s.short_ranks) << (s.short_ranks.size() == 1 ? " gets " : " get ")
       << (s.max_steps - s.min_steps == 1 ? "one batch fewer" : "fewer batches") << " (" << s.min_steps << " vs "
       << s.max_steps << "): a collective in the loop (all_reduce, gather) will hang " << ranks_word(s.waiting_ranks)
       << rank_ranges(s.waiting_ranks) << " at step " << s.min_steps;
    std::optional<sim::TrainingVerdict> ddp;
    if (s.config.epochs > 1) {
      // Collectives pair by order, not by epoch: with no collective between passes the short ranks start the
      // next pass and pair its steps with the others' last ones, so a DDP loop blocks later than pass 0 says.
      ddp = predict_ddp(s, &report.passes.passes, {});
      if (ddp) {
        if (ddp->hang && (ddp->hang->epoch != 0 || ddp->hang->step != s.min_steps)) {
          os << "; over " << s.config.epochs
             << " epochs a DDP loop (simulated, as `accel-sim launch` runs it) blocks at "
             << "epoch " << ddp->hang->epoch << " step " << ddp->hang->step << " instead";
          if (ddp->out_of_step) {
            os << ", after averaging gradients of different steps from epoch " << ddp->out_of_step->epoch << " step "
               << ddp->out_of_step->step;
          }
        } else {
          ddp.reset();
        }
      }
    }
    Warning hang(code::kUnevenStepsHang, Severity::Error, os.str());
    if (ddp && ddp->hang) hang.with("ddp_hang_epoch", ddp->hang->epoch).with("ddp_hang_step", ddp->hang->step);
    w.push_back(std::move(hang)
                    .with("short_ranks", s.short_ranks)
                    .with("waiting_ranks", s.waiting_ranks)
                    .with("step", s.min_steps)
                    .with("min_steps", s.min_steps)
                    .with("max_steps", s.max_steps));
  }
  if (!s.len_mismatch_ranks.empty() && !s.iteration_error) {
    const auto r = s.len_mismatch_ranks.front();
    std::ostringstream os;
    os << "len() disagrees with what is yielded on ranks " << rank_ranges(s.len_mismatch_ranks) << " (rank " << r
       << ": len() " << s.len_per_rank[static_cast<std::size_t>(r)] << ", yields "
       << s.batches_per_rank[static_cast<std::size_t>(r)] << "): progress bars and schedules sized by len() are off";
    w.push_back(Warning(code::kLenMismatch, Severity::Warning, os.str())
                    .with("ranks", s.len_mismatch_ranks)
                    .with("rank", r)
                    .with("len", s.len_per_rank[static_cast<std::size_t>(r)])
                    .with("yields", s.batches_per_rank[static_cast<std::size_t>(r)]));
  }
  if (s.resumed_from > 0) {
    std::ostringstream os;
    os << "resuming with skip_first_batches(" << s.config.skip_first_batches.value_or(0)
       << ") starts at sample position " << s.resumed_from
       << "; the skipped loader does not advance the prepared loader's epoch counter";
    if (s.config.loader.shuffle && s.config.prepare.use_seedable_sampler) {
      os << ", so the next pass over the prepared loader replays the same permutation";
    }
    w.push_back(Warning(code::kSkipEpochCounter, Severity::Warning, os.str())
                    .with("skip_first_batches", s.config.skip_first_batches.value_or(0))
                    .with("resumed_from", s.resumed_from));
  }
  for (std::size_t i = 1; i < report.scenarios.size(); ++i) {
    const Scenario& alt = report.scenarios[i];
    if (alt.rejected || alt.iteration_error) continue;
    const auto& a = alt.coverage.counts;
    if ((cov.duplicated > 0 || cov.dropped > 0 || !s.short_ranks.empty()) && a.duplicated == 0 && a.dropped == 0 &&
        alt.short_ranks.empty()) {
      w.push_back(Warning(code::kExactAlternative, Severity::Note,
                          "every sample exactly once, ranks in lock-step: " + alt.label + " (" + alt.flags + ")")
                      .with("option", alt.label)
                      .with("flags", alt.flags));
      break;
    }
  }
}

// Positions of later passes' epoch orders drawn to name their ids; past it, passes that are permutations over
// the first pass's layout get its counts (which a permutation cannot change) without ids.
constexpr std::int64_t kPassIdsBudget = 64'000'000;
// Samples x passes replayed through the simulator for configurations the direct path does not cover.
constexpr std::int64_t kPassReplayBudget = 4'000'000;
// A rank's record of one replayed pass, in sample ids' worth of memory.
constexpr std::int64_t kReplayRecordCost = 16;
constexpr std::size_t kPassIds = 10;

PassFigures first_pass_figures(const Scenario& s) {
  PassFigures p;
  p.pass = 0;
  p.loader = first_pass_skip(s.config) ? "skipped" : "prepared";
  p.steps_per_rank = s.batches_per_rank;
  p.min_steps = s.min_steps;
  p.max_steps = s.max_steps;
  p.samples_yielded = s.coverage.counts.yielded;
  p.duplicated = s.coverage.counts.duplicated;
  p.repeated = s.coverage.counts.repeated;
  p.dropped = s.coverage.counts.dropped;
  // The pass table names the first kPassIds runs of each kind.
  const auto first = [](const IdRanges& ids) {
    IdRanges out(kPassIds);
    out.append(ids);
    return out;
  };
  p.ids_drawn = s.ids_drawn;
  p.duplicated_ids = first(s.coverage.duplicated_ids);
  p.dropped_ids = first(s.coverage.dropped_ids);
  p.method = method_text(s);
  return p;
}

void set_step_range(PassFigures& p) {
  if (p.steps_per_rank.empty()) return;
  const auto [lo, hi] = std::minmax_element(p.steps_per_rank.begin(), p.steps_per_rank.end());
  p.min_steps = *lo;
  p.max_steps = *hi;
}

// Every pass a plain prepared pass with the loader's own epoch counter (no skip, set_epoch absent or e).
bool plain_passes(const trace::LoaderCase& c) {
  for (std::size_t e = 0; e < c.schedule.size(); ++e) {
    if (c.schedule[e] != trace::LoaderRole::Prepared) return false;
  }
  if (c.set_epoch) {
    for (std::size_t e = 0; e < c.set_epoch->size(); ++e) {
      if ((*c.set_epoch)[e] != static_cast<std::int64_t>(e)) return false;
    }
  }
  return true;
}

}  // namespace

PassesSummary every_pass(const trace::LoaderCase& c, const Scenario& first) {
  PassesSummary out;
  out.epochs = std::max<std::int64_t>(c.epochs, 1);
  if (first.rejected) return out;
  out.passes.push_back(first_pass_figures(first));
  if (out.epochs == 1) return out;
  if (first.iteration_error) {
    out.note = "every rank fails while iterating the first pass";
    return out;
  }
  const std::int64_t n = c.loader.dataset_len;
  if (first.ranks_share_order && !own_streams(c.loader) && plain_passes(c)) {
    PrepareOptions options = c.prepare;
    options.process_seed = sim::process_seed(c, 0);
    const EpochPlan plan(c.loader, options);
    const auto runs = plan.runs();
    const bool known_permutation = !c.loader.shuffle || (!c.loader.replacement && !c.loader.num_samples);
    std::int64_t drawn = 0;
    for (std::int64_t e = 1; e < out.epochs; ++e) {
      PassFigures p = first_pass_figures(first);
      p.pass = e;
      if (!draws_randperm(c.loader) && !c.loader.shuffle) {
        out.passes.push_back(std::move(p));  // the same order every pass: the same figures
        continue;
      }
      if (drawn + n <= kPassIdsBudget) {
        drawn += n;
        const SampleOrder order = pass_order(c.loader, options, e);
        const bool permutation = !c.loader.shuffle || (!c.loader.replacement && order.size() == n);
        const CoverageDetail cov = measure_coverage(runs, order, n, permutation, kPassIds);
        p.samples_yielded = cov.counts.yielded;
        p.duplicated = cov.counts.duplicated;
        p.repeated = cov.counts.repeated;
        p.dropped = cov.counts.dropped;
        p.duplicated_ids = cov.duplicated_ids;
        p.dropped_ids = cov.dropped_ids;
      } else if (known_permutation) {
        p.ids_drawn = false;
        p.duplicated_ids = IdRanges(kPassIds);
        p.dropped_ids = IdRanges(kPassIds);
        p.method = "same layout as pass 0 (a permutation every pass: same counts, other ids)";
        out.note = "ids of passes past " + std::to_string(kPassIdsBudget) +
                   " drawn order positions are not drawn; their counts equal the first pass's (every pass is a "
                   "permutation over the same layout)";
      } else {
        out.note = "passes from " + std::to_string(e) +
                   " on are not computed: sampling with replacement needs each "
                   "pass's ids, and drawing them would exceed " +
                   std::to_string(kPassIdsBudget) + " positions";
        break;
      }
      out.passes.push_back(std::move(p));
    }
    return out;
  }
  // The replay holds every rank's every pass: the ids it yields (padding makes that more than n when ranks x
  // batch_size outgrow the dataset) and a record per rank and pass.
  std::int64_t yielded = 0;
  for (std::int64_t b : first.batches_per_rank) yielded = sat_add(yielded, sat_mul(b, c.loader.batch_size));
  const std::int64_t per_pass = sat_add(
      std::max(n, yielded), sat_mul(kReplayRecordCost, static_cast<std::int64_t>(first.batches_per_rank.size())));
  if (per_pass > kPassReplayBudget / out.epochs) {
    out.note = "passes after the first are not computed: this configuration (" +
               (!first.ranks_share_order ? std::string("ranks that shuffle differently")
                : own_streams(c.loader)  ? own_streams_reason(c.loader)
                                         : std::string("skip_first_batches or set_epoch in the schedule")) +
               ") needs the whole job replayed: " + std::to_string(first.batches_per_rank.size()) + " ranks x " +
               std::to_string(out.epochs) + " passes (" + std::to_string(std::max(n, yielded)) +
               " samples yielded per pass) exceed the replay budget of " + std::to_string(kPassReplayBudget);
    return out;
  }
  const trace::Trace t = sim::simulate(c);
  if (t.error) {
    out.note = "the replay of every pass fails: " + t.error->type + ": " + t.error->message;
    return out;
  }
  const auto& ranks = std::get<std::vector<trace::RankRecord>>(t.body);
  for (std::int64_t e = 1; e < out.epochs; ++e) {
    PassFigures p;
    p.pass = e;
    p.method = "replayed";
    MultiplicityCounter counter(n);
    bool failed = false;
    for (const auto& r : ranks) {
      if (e >= static_cast<std::int64_t>(r.epochs.size())) {
        failed = true;
        break;
      }
      const auto& pass = r.epochs[static_cast<std::size_t>(e)];
      p.loader = pass.loader == trace::LoaderRole::Skipped ? "skipped" : "prepared";
      if (pass.error) failed = true;
      p.steps_per_rank.push_back(static_cast<std::int64_t>(pass.batches.size()));
      for (const Batch& b : pass.batches) {
        for (SampleId id : b) counter.add(id);
        p.samples_yielded += static_cast<std::int64_t>(b.size());
      }
    }
    if (failed) {
      out.note = "pass " + std::to_string(e) + " raises on some rank; later passes are not shown";
      break;
    }
    const CoverageDetail cov = counter.finish(kPassIds);
    p.duplicated = cov.counts.duplicated;
    p.repeated = cov.counts.repeated;
    p.dropped = cov.counts.dropped;
    p.duplicated_ids = cov.duplicated_ids;
    p.dropped_ids = cov.dropped_ids;
    set_step_range(p);
    out.passes.push_back(std::move(p));
  }
  return out;
}

namespace {

// A later pass that differs from the first in what is duplicated, dropped or hangs.
void add_pass_warnings(WhatIfReport& report) {
  const auto& passes = report.passes.passes;
  if (passes.size() < 2) return;
  const PassFigures& p0 = passes.front();
  for (const PassFigures& p : passes) {
    if (p.duplicated == p0.duplicated && p.dropped == p0.dropped && p.min_steps == p0.min_steps &&
        p.max_steps == p0.max_steps) {
      continue;
    }
    std::ostringstream os;
    os << "pass " << p.pass << " (" << p.loader << " loader) differs from the first: " << p.max_steps << " steps ("
       << p.min_steps << " on the shortest rank), " << p.duplicated << " duplicated, " << p.dropped
       << " never seen (first pass: " << p0.max_steps << " steps, " << p0.duplicated << " duplicated, " << p0.dropped
       << " never seen)";
    report.warnings.push_back(Warning(code::kLaterPassDiffers, Severity::Warning, os.str())
                                  .with("pass", p.pass)
                                  .with("duplicated", p.duplicated)
                                  .with("dropped", p.dropped)
                                  .with("min_steps", p.min_steps)
                                  .with("max_steps", p.max_steps));
    return;
  }
}

}  // namespace

WhatIfReport what_if(const trace::LoaderCase& c, const WhatIfOptions& options) {
  WhatIfReport report;
  report.api = c.api == "accelerator" ? "accelerator" : "prepare_data_loader";
  report.accelerate_version = c.prepare.release.name();
  report.launch = options.launch;
  report.unseeded_shuffle = unseeded_shuffle(c);
  report.mesh = analyze_mesh(c);
  report.num_processes = data_rank_case(c).prepare.num_processes;
  report.dataset_len = c.loader.dataset_len;
  report.dataset_kind = c.loader.dataset_kind == DatasetKind::Map ? "map"
                        : c.loader.hf_dataset                     ? "hf-iterable"
                                                                  : "iterable";
  if (c.loader.hf_dataset) report.hf_dataset = hf_dataset_report(c);
  report.torch_version = c.prepare.torch_version == TorchVersion::v1_13 ? "1.13" : "2.6";
  if (c.loader.hf_map_shuffle_seed) {
    report.order = "datasets.Dataset.shuffle(seed=" + std::to_string(*c.loader.hf_map_shuffle_seed) + ") read " +
                   (c.loader.shuffle ? "by a RandomSampler" : "in index order");
  } else if (c.loader.hf_dataset) {
    const HfIterableDataset& ds = *c.loader.hf_dataset;
    const bool epochs_permute = epoch_permutes_every_shard_list(ds.release());
    if (const auto& sh = ds.shuffle_options()) {
      report.order = "IterableDataset.shuffle(seed=" + std::to_string(sh->seed) +
                     ", buffer_size=" + std::to_string(sh->buffer_size) + "), reseeded by set_epoch";
    } else {
      report.order = epochs_permute ? "shards in order; set_epoch(e > 0) permutes them" : "shards in order";
    }
  } else if (!c.loader.shuffle) {
    report.order = c.loader.dataset_generator_seed ? "dataset generator (randperm per pass)" : "sequential";
  } else if (c.prepare.use_seedable_sampler) {
    const auto seed = c.prepare.data_seed ? c.prepare.data_seed : c.torch_manual_seed;
    report.order = seed ? "SeedableRandomSampler(seed=" + to_string(*seed) + ")"
                        : "SeedableRandomSampler(no seed: differs every run)";
  } else {
    report.order = std::string("RandomSampler") +
                   (c.prepare.synchronize_generator ? " (generator synchronised" : " (not synchronised") +
                   (c.loader.generator_seed || c.torch_manual_seed ? ")" : ", no seed: differs every run)");
  }
  if (c.loader.shuffle && c.loader.dataset_kind == DatasetKind::Map && c.prepare.release != kDefaultRelease &&
      !c.prepare.use_seedable_sampler) {
    // Another release: its rule for the shuffle's generator (core/accelerate_release.hpp) names the order.
    report.order = std::string("RandomSampler, by Accelerate ") + c.prepare.release.name() + "'s rule: " +
                   shuffle_generator_rule_name(shuffle_generator_rule(c.prepare.release));
  }

  if (draws_randperm(c.loader)) report.randperm_loop = inside_out(c.loader, c.prepare) ? "inside-out" : "forward";

  // Every option below goes through this (it shadows reports::analyze here): one order cache for all of
  // them, the coverage strip for the first, progress for each.
  OrderCache cache;
  const auto analyze = [&](const trace::LoaderCase& variant, std::string label, std::string flags) {
    const bool first = report.scenarios.empty();
    tell(options.progress, "analysing " + (first ? std::string("the configuration") : label));
    // With a mesh each option is the plain job of its own data ranks (a dispatch flip changes them).
    return analyze_with(data_rank_case(variant), std::move(label), std::move(flags), cache,
                        first ? options.coverage_bins : 0, options.progress, Need::Ids, options.drawn_shuffle_limit);
  };
  report.scenarios.push_back(analyze(c, "as configured", "(your flags)"));
  const bool map = c.loader.dataset_kind == DatasetKind::Map;
  const bool dispatch = resolve_dispatch_batches(c.loader, c.prepare);
  if (map && !dispatch) {
    trace::LoaderCase alt = c;
    alt.prepare.even_batches = !c.prepare.even_batches;
    report.scenarios.push_back(analyze(alt, alt.prepare.even_batches ? "even_batches=True" : "even_batches=False",
                                       alt.prepare.even_batches ? "--even-batches" : "--no-even-batches"));
  }
  {
    trace::LoaderCase alt = c;
    alt.loader.drop_last = !c.loader.drop_last;
    report.scenarios.push_back(analyze(alt, alt.loader.drop_last ? "drop_last=True" : "drop_last=False",
                                       alt.loader.drop_last ? "--drop-last" : "(without --drop-last)"));
  }
  if (report.num_processes > 1) {
    // Same global batch either way: split_batches=True takes batch_size as the global batch.
    trace::LoaderCase alt = c;
    alt.prepare.split_batches = !c.prepare.split_batches;
    const std::int64_t R = report.num_processes;
    if (alt.prepare.split_batches) {
      alt.loader.batch_size = c.loader.batch_size * R;
      report.scenarios.push_back(analyze(alt, "split_batches=True, batch_size=" + std::to_string(alt.loader.batch_size),
                                         "--split-batches --batch-size " + std::to_string(alt.loader.batch_size)));
    } else if (c.loader.batch_size % R == 0) {
      alt.loader.batch_size = c.loader.batch_size / R;
      report.scenarios.push_back(analyze(alt,
                                         "split_batches=False, batch_size=" + std::to_string(alt.loader.batch_size),
                                         "--batch-size " + std::to_string(alt.loader.batch_size)));
    }
  }
  if (!map) {
    trace::LoaderCase alt = c;
    alt.prepare.dispatch_batches = !dispatch;
    alt.prepare.put_on_device = true;
    report.scenarios.push_back(analyze(alt, dispatch ? "dispatch_batches=False" : "dispatch_batches=True",
                                       dispatch ? "--no-dispatch-batches" : "--dispatch-batches --put-on-device"));
  }
  if (c.loader.hf_dataset && !c.loader.hf_split_by_node &&
      hf_dataset_path(c.loader, c.prepare) == HfDatasetPath::Shard) {
    // The data fix for whole shards of unequal size: as many examples in equal shards, a multiple of the ranks.
    const HfIterableDataset& ds = *c.loader.hf_dataset;
    const auto S = static_cast<std::int64_t>(ds.shard_sizes().size());
    const std::int64_t R = c.prepare.num_processes, n = ds.dataset_len();
    const std::int64_t even = (S + R - 1) / R * R;
    std::vector<std::int64_t> sizes;
    for (std::int64_t s = 0; s < even; ++s) sizes.push_back(n / even + (s < n % even ? 1 : 0));
    if (sizes != ds.shard_sizes()) {
      trace::LoaderCase alt = c;
      HfIterableDataset resharded = HfIterableDataset::from_shards(sizes, ds.release());
      if (ds.shuffle_options()) resharded = resharded.shuffle(*ds.shuffle_options());
      alt.loader.hf_dataset = resharded;
      report.scenarios.push_back(
          analyze(alt, std::to_string(even) + " equal shards", "--num-shards " + std::to_string(even)));
    }
  }
  if (c.loader.hf_dataset && c.loader.hf_split_by_node) {
    trace::LoaderCase alt = c;
    alt.loader.hf_split_by_node = false;
    report.scenarios.push_back(analyze(alt, "without split_dataset_by_node", "without --split-by-node"));
  }
  if (workers_interleave(c.loader)) {
    // The fixes for workers that all read the whole stream: split it by worker id, or load in the main process.
    if (c.loader.workers.split == WorkerSplit::None && !c.loader.hf_dataset) {
      trace::LoaderCase alt = c;
      alt.loader.workers.split = WorkerSplit::Strided;
      report.scenarios.push_back(analyze(alt, "worker_split=strided", "--worker-split strided"));
    }
    trace::LoaderCase alt = c;
    alt.loader.workers = DataLoaderWorkers{};
    report.scenarios.push_back(analyze(alt, "num_workers=0", "--num-workers 0"));
  }
  report.command_line = options.command_line;
  if (!options.command_line.empty()) report.scenarios.front().flags = options.command_line;
  report.accel_sim_version = options.accel_sim_version;
  tell(options.progress, "every pass");
  report.passes = every_pass(data_rank_case(c), report.scenarios.front());
  add_warnings(report);
  if (!report.scenarios.front().ids_drawn) {
    report.warnings.push_back(
        Warning(code::kIdsNotDrawn, Severity::Note,
                "the shuffle of " + std::to_string(c.loader.dataset_len) + " samples was not drawn (more than " +
                    std::to_string(options.drawn_shuffle_limit) +
                    " positions: seconds and gigabytes per 10^9): the counts are exact, since an epoch order that "
                    "is a permutation cannot change them, but no ids are named; --draw-ids draws it")
            .with("dataset_len", c.loader.dataset_len)
            .with("limit", options.drawn_shuffle_limit));
  }
  add_worker_warnings(report);
  add_hf_warnings(report);
  add_pass_warnings(report);
  add_launch_warnings(report);
  if (report.mesh)
    report.warnings.insert(report.warnings.begin(), report.mesh->findings.begin(), report.mesh->findings.end());
  return report;
}

}  // namespace accel::analysis
