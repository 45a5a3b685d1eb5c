#include "release_upgrade.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "analysis/eval_metrics.hpp"
#include "analysis/resume_what_if.hpp"
#include "analysis/what_if.hpp"
#include "core/accelerate_release.hpp"
#include "core/coverage.hpp"
#include "core/error.hpp"
#include "sim/rank_ranges.hpp"
#include "sim/simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::analysis {
namespace {

using RankEpoch = std::pair<std::int64_t, std::int64_t>;

std::string error_text(const std::optional<trace::ErrorRecord>& e) {
  if (!e) return "no error";
  return e->type + " in " + e->where + ": " + e->message;
}

bool same_error(const std::optional<trace::ErrorRecord>& a, const std::optional<trace::ErrorRecord>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return a->type == b->type && a->where == b->where && a->message == b->message;
}

std::string optional_text(const std::optional<std::int64_t>& v, const char* none) {
  return v ? std::to_string(*v) : std::string(none);
}

std::vector<SampleId> ids_of(const trace::PassRecord& p) {
  std::vector<SampleId> out;
  for (const Batch& b : p.batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::string first_ids(const std::vector<SampleId>& ids) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(ids.size(), 8);
  for (std::size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > shown) out += ", ...";
  return ids.empty() ? std::string("(nothing)") : out;
}

// What one rank's pass changes, as rank-independent phrases.
std::vector<std::string> pass_changes(const trace::PassRecord& a, const trace::PassRecord& b) {
  std::vector<std::string> out;
  if (!same_error(a.error, b.error)) out.push_back("error: " + error_text(a.error) + " -> " + error_text(b.error));
  if (a.batches.size() != b.batches.size()) {
    out.push_back("steps " + std::to_string(a.batches.size()) + " -> " + std::to_string(b.batches.size()));
  }
  const auto ia = ids_of(a);
  const auto ib = ids_of(b);
  if (ia != ib) {
    auto sa = ia, sb = ib;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    if (sa == sb) {
      out.push_back("order changes (the same samples)");
    } else {
      std::vector<SampleId> only_a, only_b;
      std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(only_a));
      std::set_difference(sb.begin(), sb.end(), sa.begin(), sa.end(), std::back_inserter(only_b));
      out.push_back("order changes, and with it the rank's samples (" + std::to_string(only_a.size()) + " of " +
                    std::to_string(ia.size()) + " ids only before, " + std::to_string(only_b.size()) + " only after)");
    }
  }
  if (a.iteration_after != b.iteration_after) {
    out.push_back("loader.iteration after the pass " + optional_text(a.iteration_after, "none (no attribute)") + " -> " +
                  optional_text(b.iteration_after, "none (no attribute)"));
  }
  if (a.sampler_epoch_after != b.sampler_epoch_after) {
    out.push_back("the sampler's epoch after the pass " + optional_text(a.sampler_epoch_after, "none (not seedable)") +
                  " -> " + optional_text(b.sampler_epoch_after, "none (not seedable)"));
  }
  return out;
}

struct EpochFigures {
  std::int64_t duplicated = 0;  // samples yielded more than once across the ranks
  std::int64_t dropped = 0;     // samples of the dataset no rank yielded
  std::string lockstep;         // "every rank takes N steps" or who waits where
};

EpochFigures epoch_figures(const std::vector<trace::RankRecord>& ranks, std::int64_t epoch, std::int64_t dataset_len) {
  EpochFigures f;
  // One byte per sample (an ordered map of every id cost 44% of a 64-rank x 1e6 upgrade).
  MultiplicityCounter seen(dataset_len);
  std::vector<std::int64_t> steps;
  for (const trace::RankRecord& r : ranks) {
    if (epoch >= static_cast<std::int64_t>(r.epochs.size())) {
      steps.push_back(0);
      continue;
    }
    const trace::PassRecord& p = r.epochs[static_cast<std::size_t>(epoch)];
    steps.push_back(static_cast<std::int64_t>(p.batches.size()));
    for (const Batch& b : p.batches)
      for (SampleId id : b) seen.add(id);
  }
  const CoverageCounts counts = seen.finish(1).counts;
  f.duplicated = counts.repeated;
  f.dropped = counts.dropped;
  const auto [lo, hi] = std::minmax_element(steps.begin(), steps.end());
  if (steps.empty() || *lo == *hi) {
    f.lockstep = "in lock-step";
  } else {
    std::vector<std::int64_t> waiting;
    for (std::size_t r = 0; r < steps.size(); ++r)
      if (steps[r] > *lo) waiting.push_back(static_cast<std::int64_t>(r));
    f.lockstep = "ranks " + sim::rank_ranges(waiting) + " wait forever at step " + std::to_string(*lo) +
                 " in a per-step collective";
  }
  return f;
}

// "ranks 0-1, epochs 0-1" when the pairs are every rank of a set with every epoch of a set; else each rank's epochs.
std::string where_of(const std::vector<RankEpoch>& pairs) {
  std::set<std::int64_t> ranks, epochs;
  for (const auto& [r, e] : pairs) {
    ranks.insert(r);
    epochs.insert(e);
  }
  const auto text = [](const char* one, const char* many, const std::set<std::int64_t>& s) {
    return std::string(s.size() == 1 ? one : many) + " " + sim::rank_ranges({s.begin(), s.end()});
  };
  if (pairs.size() == ranks.size() * epochs.size()) return text("rank", "ranks", ranks) + ", " + text("epoch", "epochs", epochs);
  std::map<std::int64_t, std::set<std::int64_t>> by_rank;
  for (const auto& [r, e] : pairs) by_rank[r].insert(e);
  std::string out;
  for (const auto& [r, es] : by_rank) out += (out.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ", ") + text("epoch", "epochs", es);
  return out;
}

void add_rules(const trace::LoaderCase& from, const trace::LoaderCase& to, UpgradeReport& out) {
  const AccelerateRelease a = from.prepare.release, b = to.prepare.release;
  const auto rule = [&](const std::string& what, const std::string& before, const std::string& after) {
    if (before != after) out.rules.push_back(what + ": " + a.name() + ": " + before + "; " + b.name() + ": " + after);
  };
  if (from.loader.shuffle && !from.prepare.use_seedable_sampler) {
    rule("shuffle", shuffle_generator_rule_name(shuffle_generator_rule(a)), shuffle_generator_rule_name(shuffle_generator_rule(b)));
  }
  if (from.loader.shuffle && from.prepare.use_seedable_sampler) {
    const auto name = [](SeedableSamplerRule r) -> std::string {
      switch (r) {
        case SeedableSamplerRule::Absent: return "no use_seedable_sampler option (TypeError)";
        case SeedableSamplerRule::Accumulating: return "a SeedableRandomSampler with an accumulating seed";
        case SeedableSamplerRule::InertOnShards: return "the SeedableRandomSampler is stored but not iterated when sharding";
        case SeedableSamplerRule::EpochSeeded: return "a SeedableRandomSampler seeded initial_seed + epoch";
      }
      return "?";
    };
    rule("use_seedable_sampler", name(seedable_sampler_rule(a)), name(seedable_sampler_rule(b)));
  }
  if (from.skip_first_batches) {
    const auto skip = [](AccelerateRelease r) -> std::string {
      if (!has_skip_first_batches(r)) return "no skip_first_batches";
      if (skip_keeps_loader_options(r)) {
        return "the skipped loader keeps the prepared loader's iteration, torch_device_mesh, slice_fn_for_dispatch and "
               "_drop_last, and its total_batch_size (so its remainder) looks through the SkipBatchSampler";
      }
      if (skip_keeps_iteration(r)) return "the skipped loader keeps the prepared loader's iteration";
      return skip_resets_seedable_epoch(r) ? "the skipped loader starts at iteration 0 and resets a seedable sampler's epoch"
                                           : "the skipped loader starts at iteration 0";
    };
    rule("skip_first_batches", skip(a), skip(b));
  }
  if (from.loader.hf_dataset) {
    const auto shard = [](HfShardRule r) -> std::string {
      switch (r) {
        case HfShardRule::None: return "always an IterableDatasetShard";
        case HfShardRule::ReadsMissingNShard: return "reads dataset.n_shard (AttributeError)";
        case HfShardRule::MoreShardsThanRanks: return ".shard() with more shards than processes";
        case HfShardRule::AtLeastAsManyShards: return ".shard() with at least as many shards as processes";
      }
      return "?";
    };
    rule("a datasets.IterableDataset", shard(hf_shard_rule(a)), shard(hf_shard_rule(b)));
  }
  if (from.set_epoch) {
    rule("set_epoch", has_loader_set_epoch(a) ? "on the loaders" : "absent (AttributeError)",
         has_loader_set_epoch(b) ? "on the loaders" : "absent (AttributeError)");
  }
}

std::string accelerate_error_text(const AccelerateError& e) {
  return std::string(python_name(e.type())) + " in " + e.where() + ": " + e.message();
}

std::string count_of(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string resume_label(const trace::ResumeCase& c) {
  return "resume from save_state at epoch " + std::to_string(c.resume.epoch) + ", step " + std::to_string(c.resume.step) +
         ", with " + trace::mode_name(c.resume.mode) + (c.resume.loop_set_epoch ? " and set_epoch in the loop" : "");
}

std::string metrics_label(const trace::MetricsCase& c) {
  return std::string(c.use_gather_object ? "gather_object" : "gather_for_metrics") + " over one pass of this loader" +
         (c.break_after ? " (the loop breaks at step " + std::to_string(*c.break_after) + ")" : "");
}

}  // namespace

std::string resume_outcome(const trace::ResumeCase& config) {
  try {
    const ResumeOutcome o = compare_resume(config);
    if (o.identical) return "identical to the uninterrupted job";
    std::vector<std::int64_t> differing;
    for (const ResumeEpochOutcome& e : o.epochs)
      if (!e.identical) differing.push_back(e.epoch);
    std::string out = "not identical in " + std::string(differing.size() == 1 ? "epoch " : "epochs ") +
                      sim::rank_ranges(differing);
    if (o.extra.count == 0 && o.missing.count == 0) return out + " (the same samples, in another order)";
    return out + ": " + count_of(o.extra.count, "sample", "samples") + " trained again, " +
           count_of(o.missing.count, "sample", "samples") + " never trained";
  } catch (const AccelerateError& e) {
    return "fails: " + accelerate_error_text(e);
  } catch (const trace::ConfigError& e) {
    return std::string("cannot be simulated: ") + e.what();
  }
}

std::string metrics_outcome(const trace::MetricsCase& config) {
  try {
    const EvalOutcome o = evaluate(config);
    if (o.error) return "fails: " + *o.error;
    std::string out;
    if (o.failure) {
      out = "never finishes: " + *o.failure +
            (o.failure_step ? " (step " + std::to_string(*o.failure_step) + ")" : std::string()) + "; ";
    }
    const std::int64_t n = config.loader.loader.dataset_len;
    if (o.exact()) return "exact: each of the " + count_of(n, "sample", "samples") + " once";
    std::vector<std::string> off;
    if (o.metric_duplicates.count > 0) off.push_back(count_of(o.metric_duplicates.count, "duplicate", "duplicates"));
    if (o.metric_missing.count > 0) off.push_back(std::to_string(o.metric_missing.count) + " missing");
    std::string why;
    for (const std::string& x : off) why += (why.empty() ? "" : ", ") + x;
    return out + "inexact: the metric gets " + count_of(o.metric_samples, "value", "values") + " for " +
           count_of(n, "sample", "samples") + (why.empty() ? std::string() : " (" + why + ")");
  } catch (const AccelerateError& e) {
    return "fails: " + accelerate_error_text(e);
  } catch (const trace::ConfigError& e) {
    return std::string("cannot be simulated: ") + e.what();
  }
}

UpgradeReport upgrade_report(const UpgradeSide& from, const UpgradeSide& to, std::vector<std::string> not_compared) {
  UpgradeReport out = upgrade_report(from.loader, to.loader);
  out.not_compared = std::move(not_compared);
  const auto compare = [&](const std::string& label, const std::string& before, const std::string& after) {
    out.outcomes.push_back({label, before, after});
    if (before != after) out.changes.push_back({label, before + " -> " + after});
  };
  if (from.resume && to.resume) compare(resume_label(*from.resume), resume_outcome(*from.resume), resume_outcome(*to.resume));
  if (from.metrics && to.metrics) {
    compare(metrics_label(*from.metrics), metrics_outcome(*from.metrics), metrics_outcome(*to.metrics));
  }
  return out;
}

std::int64_t upgrade_replay_positions(const trace::LoaderCase& config) {
  const std::int64_t n = std::max(config.loader.dataset_len, config.loader.num_samples.value_or(0));
  const std::int64_t epochs = std::max<std::int64_t>(config.epochs, 1);
  return n > std::numeric_limits<std::int64_t>::max() / epochs ? std::numeric_limits<std::int64_t>::max() : n * epochs;
}

UpgradeReport upgrade_structure(const UpgradeSide& from, const UpgradeSide& to, std::vector<std::string> not_compared,
                                const std::string& why) {
  UpgradeReport out;
  out.from = from.loader.prepare.release.name();
  out.to = to.loader.prepare.release.name();
  out.replayed = false;
  add_rules(from.loader, to.loader, out);
  out.not_compared = std::move(not_compared);
  // Only where the what-if computes the pass without replaying it: the ranks share one order, no workers or streams.
  const auto structural = [](const trace::LoaderCase& c) {
    return !sim::ranks_shuffle_differently(c) && c.loader.workers.num_workers == 0 && !c.loader.hf_dataset &&
           !c.loader.hf_map_shuffle_seed;
  };
  if (structural(from.loader) && structural(to.loader)) {
    const Scenario a = analyze_counts(from.loader, "", "");
    const Scenario b = analyze_counts(to.loader, "", "");
    const auto failure = [](const Scenario& s) -> std::string {
      if (s.rejected) return *s.rejected;
      return s.iteration_error.value_or("");
    };
    if (failure(a) != failure(b)) {
      out.changes.push_back({"job", "error: " + (failure(a).empty() ? "none" : failure(a)) + " -> " +
                                        (failure(b).empty() ? "none" : failure(b))});
    }
    if (!a.rejected && !b.rejected) {
      std::map<std::string, std::vector<std::int64_t>> steps;
      for (std::size_t r = 0; r < std::min(a.batches_per_rank.size(), b.batches_per_rank.size()); ++r) {
        if (a.batches_per_rank[r] != b.batches_per_rank[r]) {
          steps["steps " + std::to_string(a.batches_per_rank[r]) + " -> " + std::to_string(b.batches_per_rank[r])]
              .push_back(static_cast<std::int64_t>(r));
        }
      }
      for (const auto& [what, ranks] : steps) {
        out.changes.push_back(
            {std::string(ranks.size() == 1 ? "rank " : "ranks ") + sim::rank_ranges(ranks) + ", epoch 0", what});
      }
      const CoverageCounts& ca = a.coverage.counts;
      const CoverageCounts& cb = b.coverage.counts;
      if (ca.repeated != cb.repeated) {
        out.changes.push_back({"epoch 0", "samples seen more than once across the ranks " +
                                              std::to_string(ca.repeated) + " -> " + std::to_string(cb.repeated)});
      }
      if (ca.dropped != cb.dropped) {
        out.changes.push_back(
            {"epoch 0", "samples no rank sees " + std::to_string(ca.dropped) + " -> " + std::to_string(cb.dropped)});
      }
    }
    out.not_compared.insert(
        out.not_compared.begin(),
        "every rank's ids and order, the passes after the first, the resume and the evaluation: " + why);
  } else {
    out.not_compared.insert(out.not_compared.begin(), "every rank and pass, the resume and the evaluation: " + why);
  }
  return out;
}

UpgradeReport upgrade_report(const trace::LoaderCase& from, const trace::LoaderCase& to) {
  UpgradeReport out;
  out.from = from.prepare.release.name();
  out.to = to.prepare.release.name();
  add_rules(from, to, out);
  const trace::Trace a = sim::simulate(from);
  const trace::Trace b = sim::simulate(to);
  if (!same_error(a.error, b.error)) out.changes.push_back({"job", "error: " + error_text(a.error) + " -> " + error_text(b.error)});
  const auto* ra = std::get_if<std::vector<trace::RankRecord>>(&a.body);
  const auto* rb = std::get_if<std::vector<trace::RankRecord>>(&b.body);
  if (!ra || !rb) throw std::invalid_argument("upgrade: a loader configuration is needed");
  if (ra->empty() || rb->empty()) return out;  // one side fails as a whole: nothing per rank to compare
  // Per rank and pass, grouped by what changes.
  std::vector<std::pair<std::string, std::vector<RankEpoch>>> groups;
  const auto add = [&](const std::string& what, RankEpoch at) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
    if (it == groups.end()) {
      groups.push_back({what, {at}});
    } else {
      it->second.push_back(at);
    }
  };
  const std::int64_t epochs = std::max(from.epochs, to.epochs);
  for (std::size_t r = 0; r < std::min(ra->size(), rb->size()); ++r) {
    const auto& ea = (*ra)[r].epochs;
    const auto& eb = (*rb)[r].epochs;
    for (std::size_t e = 0; e < std::min(ea.size(), eb.size()); ++e) {
      for (const std::string& what : pass_changes(ea[e], eb[e])) {
        add(what, {static_cast<std::int64_t>(r), static_cast<std::int64_t>(e)});
        if (what.rfind("order", 0) == 0) {
          if (out.examples.size() < 2) {
            out.examples.push_back("rank " + std::to_string(r) + ", epoch " + std::to_string(e) + ": " +
                                   first_ids(ids_of(ea[e])) + "  ->  " + first_ids(ids_of(eb[e])));
          }
        }
      }
    }
    if (!same_error((*ra)[r].error, (*rb)[r].error)) {
      out.changes.push_back({"rank " + std::to_string(r), "error: " + error_text((*ra)[r].error) + " -> " +
                                                                 error_text((*rb)[r].error)});
    }
  }
  for (const auto& [what, at] : groups) out.changes.push_back({where_of(at), what});
  // Across the ranks, per epoch, grouped the same way.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> across;
  for (std::int64_t e = 0; e < epochs; ++e) {
    const EpochFigures fa = epoch_figures(*ra, e, from.loader.dataset_len);
    const EpochFigures fb = epoch_figures(*rb, e, to.loader.dataset_len);
    std::vector<std::string> whats;
    if (fa.duplicated != fb.duplicated) {
      whats.push_back("samples seen more than once across the ranks " + std::to_string(fa.duplicated) + " -> " +
                      std::to_string(fb.duplicated));
    }
    if (fa.dropped != fb.dropped) {
      whats.push_back("samples no rank sees " + std::to_string(fa.dropped) + " -> " + std::to_string(fb.dropped));
    }
    if (fa.lockstep != fb.lockstep) whats.push_back("hangs: " + fa.lockstep + " -> " + fb.lockstep);
    for (const std::string& what : whats) {
      auto it = std::find_if(across.begin(), across.end(), [&](const auto& g) { return g.first == what; });
      if (it == across.end()) {
        across.push_back({what, {e}});
      } else {
        it->second.push_back(e);
      }
    }
  }
  for (const auto& [what, es] : across) {
    out.changes.push_back({std::string(es.size() == 1 ? "epoch " : "epochs ") + sim::rank_ranges(es), what});
  }
  return out;
}

}  // namespace accel::analysis
