// The what-if analysis: each option computed directly from the loaders' structure (EpochPlan runs and
// one shared epoch order, drawn once per distinct order), or replayed rank by rank where the ranks
// shuffle differently.
#include "analysis/what_if.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/accelerate_release.hpp"
#include "core/epoch_plan.hpp"
#include "core/error.hpp"
#include "sim/simulator.hpp"

namespace accel::analysis {
namespace {

constexpr std::size_t kShownIds = 32;
constexpr std::size_t kShownOccurrences = 5;

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
  SampleOrder get(const DataLoaderArgs& loader, const PrepareOptions& options, const Progress& progress) {
    if (order_ && same_pass_order(loader_, options_, loader, options)) return *order_;
    order_.reset();
    if (draws_randperm(loader)) {
      tell(progress, "drawing torch.randperm(" + std::to_string(loader.dataset_len) + ") (" +
                           (inside_out(loader, options) ? "inside-out loop" : "forward swap loop") + ")");
    }
    order_ = pass_order(loader, options, 0);
    loader_ = loader;
    options_ = options;
    return *order_;
  }

 private:
  std::optional<SampleOrder> order_;
  DataLoaderArgs loader_;
  PrepareOptions options_;
};

// Every rank replayed through the simulator, one rank at a time (O(N/R) batches alive), counting ids into
// a byte-per-sample map: for configs whose ranks do not share one order.
void analyze_by_replay(const trace::LoaderCase& c, Scenario& s, std::int64_t strip_bins, const Progress& progress) {
  trace::LoaderCase one_pass = c;
  one_pass.epochs = 1;
  one_pass.schedule.resize(1);
  if (one_pass.set_epoch) one_pass.set_epoch->resize(1);
  MultiplicityCounter counter(c.loader.dataset_len);
  std::int64_t yielded = 0;
  const auto consume = [&](const trace::RankRecord& r) {
    const auto& pass = r.epochs.at(0);
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
  s.coverage = counter.finish(kShownIds);
  s.coverage.counts.yielded = yielded;
  if (strip_bins > 0) s.coverage_strip = coverage_bins(counter, strip_bins);
  finish_steps(s);
}

Scenario analyze_with(const trace::LoaderCase& c, std::string label, std::string flags, OrderCache& cache,
                      std::int64_t strip_bins, const Progress& progress) {
  Scenario s;
  s.label = std::move(label);
  s.flags = std::move(flags);
  s.config = c;
  s.dispatches = resolve_dispatch_batches(c.loader, c.prepare);
  s.loader_class = s.dispatches ? "DataLoaderDispatcher" : "DataLoaderShard";
  s.ranks_share_order = !sim::ranks_shuffle_differently(c);
  try {
    if (!s.ranks_share_order) {
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
    const SampleOrder order = cache.get(c.loader, options, progress);
    const auto runs = plan.runs();
    const bool permutation = !c.loader.shuffle || (!c.loader.replacement && order.size() == c.loader.dataset_len);
    s.resumed_from = plan.resume_position();
    s.coverage = measure_coverage(runs, order, c.loader.dataset_len, permutation, kShownIds, s.resumed_from);
    if (strip_bins > 0) s.coverage_strip = coverage_bins(runs, order, c.loader.dataset_len, permutation, strip_bins);
    // Evidence: where the first duplicated samples are yielded (the padded tail of the epoch).
    if (s.coverage.counts.duplicated > 0 && !s.coverage.duplicated_ids.empty()) {
      const SampleId wanted = s.coverage.duplicated_ids.front();
      for (std::int64_t r = 0; r < R && s.duplicate_occurrences.size() < kShownOccurrences; ++r) {
        const std::int64_t n = plan.batches(r);
        for (std::int64_t j = std::max<std::int64_t>(0, n - 2); j < n; ++j) {
          for (std::int64_t p : plan.batch_positions(r, j)) {
            if (order[p] == wanted && s.duplicate_occurrences.size() < kShownOccurrences) {
              s.duplicate_occurrences.push_back({r, j, wanted});
            }
          }
        }
        // The first occurrence is early in the epoch on rank 0 or so; look there too.
        if (n > 2) {
          for (std::int64_t p : plan.batch_positions(r, 0)) {
            if (order[p] == wanted && s.duplicate_occurrences.size() < kShownOccurrences) {
              s.duplicate_occurrences.push_back({r, 0, wanted});
            }
          }
        }
      }
    }
    finish_steps(s);
  } catch (const AccelerateError& e) {
    s.rejected = std::string(python_name(e.type())) + ": " + e.message();
  }
  return s;
}

}  // namespace

std::string rank_ranges(const std::vector<std::int64_t>& ranks) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i) os << ", ";
    os << ranks[i];
    if (j > i) os << (j == i + 1 ? ", " : "-") << ranks[j];
    i = j + 1;
  }
  return os.str();
}

Scenario analyze(const trace::LoaderCase& c, std::string label, std::string flags) {
  OrderCache cache;
  return analyze_with(c, std::move(label), std::move(flags), cache, 0, nullptr);
}

std::vector<BinStatus> coverage_strip(const trace::LoaderCase& c, std::int64_t bins) {
  OrderCache cache;
  return analyze_with(c, "", "", cache, bins, nullptr).coverage_strip;
}

namespace {

// No seed reaches the shuffle: torch seeds every process from the OS.
bool unseeded_shuffle(const trace::LoaderCase& c) {
  return c.loader.shuffle && !c.torch_manual_seed && !(c.prepare.use_seedable_sampler && c.prepare.data_seed) &&
         !c.loader.generator_seed;
}

// The even_batches=False alternative as the table simulated it: advised only when it removes duplicates, and
// always with what it costs (ranks left waiting in a collective), never on a config that already has it.
std::string even_batches_advice(const WhatIfReport& report) {
  const Scenario& base = report.scenarios.front();
  if (!base.config.prepare.even_batches) return "";
  for (const Scenario& alt : report.scenarios) {
    if (alt.label != "even_batches=False" || alt.rejected || alt.iteration_error) continue;
    const std::int64_t before = base.coverage.counts.duplicated, after = alt.coverage.counts.duplicated;
    if (after >= before) return "";
    std::ostringstream os;
    os << "; even_batches=False (simulated) " << (after == 0 ? "removes them" : "leaves " + std::to_string(after) + " extra yields");
    if (alt.waiting_ranks.empty()) {
      os << " and the ranks stay in lock-step";
    } else {
      os << ", but ranks " << rank_ranges(alt.waiting_ranks) << " then wait forever at step " << alt.min_steps
         << " in any per-step collective unless the loop runs under join_uneven_inputs";
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
    report.warnings.push_back(std::string("mixed_precision fp16: the loss scaler skips the optimizer step (and the "
                                          "scheduler's) whenever the gradients overflow, so training takes more steps "
                                          "than the table counts") +
                              (l.training && !l.overflow_simulated ? "; --overflow-prob P --overflow-seed S simulates it"
                                                                   : ""));
  }
}

std::string ids_text(const std::vector<SampleId>& ids, std::int64_t total) {
  std::ostringstream os;
  // Consecutive ids read as ranges: "0-22".
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (i) os << ", ";
    os << ids[i];
    if (j > i) os << (j == i + 1 ? ", " : "-") << ids[j];
    i = j + 1;
  }
  if (total > static_cast<std::int64_t>(ids.size())) os << ", ...";
  return os.str();
}

void add_warnings(WhatIfReport& report) {
  const Scenario& s = report.scenarios.front();
  auto& w = report.warnings;
  if (s.rejected) {
    w.push_back("Accelerate rejects this configuration: " + *s.rejected);
    return;
  }
  if (s.iteration_error) w.push_back("every rank fails while iterating: " + *s.iteration_error);
  const auto& cov = s.coverage.counts;
  if (cov.duplicated > 0) {
    std::ostringstream os;
    os << cov.repeated << " samples are seen ";
    if (cov.max_times == 2) {
      os << "twice";
    } else {
      os << "more than once (up to " << cov.max_times << " times, " << cov.duplicated << " extra yields)";
    }
    os << " (ids " << ids_text(s.coverage.duplicated_ids, cov.repeated)
       << "): metrics computed without gather_for_metrics are biased";
    if (!s.dispatches && report.dataset_kind == "map") os << even_batches_advice(report);
    // IterableDatasetShard's length is a multiple of its batch size, so GradientState.remainder is 0 (or -1
    // with drop_last) and gather_for_metrics has nothing to cut: the hint above would mislead here.
    if (!s.dispatches && report.dataset_kind == "iterable") {
      os << "; gather_for_metrics does not remove them either (the shard reports remainder 0; --eval shows what the "
            "metric gets)";
    }
    w.push_back(os.str());
  }
  if (cov.dropped > 0) {
    std::ostringstream os;
    os << cov.dropped << " samples are never seen in the epoch (ids " << ids_text(s.coverage.dropped_ids, cov.dropped)
       << ")";
    if (s.config.loader.drop_last) os << ": drop_last drops the incomplete last step on every rank";
    if (!s.ranks_share_order) os << ": the ranks shuffle differently (no rng synchronisation)";
    w.push_back(os.str());
  }
  if (s.config.loader.shuffle && s.config.prepare.data_seed && !s.config.prepare.use_seedable_sampler) {
    w.push_back("data_seed is set but use_seedable_sampler is False: Accelerate only hands data_seed to "
                "SeedableRandomSampler, so it has no effect (--use-seedable-sampler, or set_seed, seeds the shuffle)");
  }
  if (unseeded_shuffle(s.config)) {
    std::string advice;
    if (!s.ranks_share_order) {
      // The advice is the simulated outcome of the same config with one seed on every rank.
      trace::LoaderCase seeded = s.config;
      seeded.torch_manual_seed = PythonInt{0};
      seeded.seed_per_rank = false;
      const Scenario fixed = analyze(seeded, "set_seed", "--set-seed N");
      if (!fixed.rejected && !fixed.iteration_error) {
        advice = "; with set_seed(N) on every rank (--set-seed N, simulated) " +
                 std::to_string(fixed.coverage.counts.duplicated) + " duplicated and " +
                 std::to_string(fixed.coverage.counts.dropped) + " never seen, the same on every run";
      }
    }
    w.push_back(std::string("shuffle without a seed: torch seeds every process from the OS, so the order differs every "
                            "run") +
                (s.ranks_share_order
                     ? "; every rank follows one order, so the counts hold for every run (the ids shown are one run's)"
                     : " and every rank shuffles differently, so which samples are duplicated or never seen changes too "
                       "(the counts are one possible run)" + advice));
  }
  if (!s.short_ranks.empty()) {
    std::ostringstream os;
    os << "ranks " << rank_ranges(s.short_ranks) << " get " << (s.max_steps - s.min_steps == 1 ? "one batch" : "fewer batches")
       << " fewer (" << s.min_steps << " vs " << s.max_steps << "): a collective in the loop (all_reduce, gather) will hang "
       << "ranks " << rank_ranges(s.waiting_ranks) << " at step " << s.min_steps;
    w.push_back(os.str());
  }
  if (!s.len_mismatch_ranks.empty()) {
    const auto r = s.len_mismatch_ranks.front();
    std::ostringstream os;
    os << "len() disagrees with what is yielded on ranks " << rank_ranges(s.len_mismatch_ranks) << " (rank " << r
       << ": len() " << s.len_per_rank[static_cast<std::size_t>(r)] << ", yields " << s.batches_per_rank[static_cast<std::size_t>(r)]
       << "): progress bars and schedules sized by len() are off";
    w.push_back(os.str());
  }
  if (s.resumed_from > 0) {
    std::ostringstream os;
    os << "resuming with skip_first_batches(" << s.config.skip_first_batches.value_or(0) << ") starts at sample position "
       << s.resumed_from << "; the skipped loader does not advance the prepared loader's epoch counter";
    if (s.config.loader.shuffle && s.config.prepare.use_seedable_sampler) {
      os << ", so the next pass over the prepared loader replays the same permutation";
    }
    w.push_back(os.str());
  }
  for (std::size_t i = 1; i < report.scenarios.size(); ++i) {
    const Scenario& alt = report.scenarios[i];
    if (alt.rejected || alt.iteration_error) continue;
    const auto& a = alt.coverage.counts;
    if ((cov.duplicated > 0 || cov.dropped > 0 || !s.short_ranks.empty()) && a.duplicated == 0 && a.dropped == 0 &&
        alt.short_ranks.empty()) {
      w.push_back("every sample exactly once, ranks in lock-step: " + alt.label + " (" + alt.flags + ")");
      break;
    }
  }
}

}  // namespace

WhatIfReport what_if(const trace::LoaderCase& c, const WhatIfOptions& options) {
  WhatIfReport report;
  report.api = c.api == "accelerator" ? "accelerator" : "prepare_data_loader";
  report.accelerate_version = kAccelerateVersion;
  report.launch = options.launch;
  report.unseeded_shuffle = unseeded_shuffle(c);
  report.num_processes = c.prepare.num_processes;
  report.dataset_len = c.loader.dataset_len;
  report.dataset_kind = c.loader.dataset_kind == DatasetKind::Map ? "map" : "iterable";
  report.torch_version = c.prepare.torch_version == TorchVersion::v1_13 ? "1.13" : "2.6";
  if (!c.loader.shuffle) {
    report.order = c.loader.dataset_generator_seed ? "dataset generator (randperm per pass)" : "sequential";
  } else if (c.prepare.use_seedable_sampler) {
    const auto seed = c.prepare.data_seed ? c.prepare.data_seed : c.torch_manual_seed;
    report.order = seed ? "SeedableRandomSampler(seed=" + to_string(*seed) + ")"
                        : "SeedableRandomSampler(no seed: differs every run)";
  } else {
    report.order = std::string("RandomSampler") + (c.prepare.synchronize_generator ? " (generator synchronised" : " (not synchronised") +
                   (c.loader.generator_seed || c.torch_manual_seed ? ")" : ", no seed: differs every run)");
  }

  if (draws_randperm(c.loader)) report.randperm_loop = inside_out(c.loader, c.prepare) ? "inside-out" : "forward";

  // Every option below goes through this (it shadows reports::analyze here): one order cache for all of
  // them, the coverage strip for the first, progress for each.
  OrderCache cache;
  const auto analyze = [&](const trace::LoaderCase& variant, std::string label, std::string flags) {
    const bool first = report.scenarios.empty();
    tell(options.progress, "analysing " + (first ? std::string("the configuration") : label));
    return analyze_with(variant, std::move(label), std::move(flags), cache, first ? options.coverage_bins : 0,
                        options.progress);
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
  if (c.prepare.num_processes > 1) {
    // Same global batch either way: split_batches=True takes batch_size as the global batch.
    trace::LoaderCase alt = c;
    alt.prepare.split_batches = !c.prepare.split_batches;
    const std::int64_t R = c.prepare.num_processes;
    if (alt.prepare.split_batches) {
      alt.loader.batch_size = c.loader.batch_size * R;
      report.scenarios.push_back(analyze(alt, "split_batches=True, batch_size=" + std::to_string(alt.loader.batch_size),
                                         "--split-batches --batch-size " + std::to_string(alt.loader.batch_size)));
    } else if (c.loader.batch_size % R == 0) {
      alt.loader.batch_size = c.loader.batch_size / R;
      report.scenarios.push_back(analyze(alt, "split_batches=False, batch_size=" + std::to_string(alt.loader.batch_size),
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
  add_warnings(report);
  add_launch_warnings(report);
  return report;
}

}  // namespace accel::analysis
