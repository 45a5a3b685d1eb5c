#include "analysis/recorded_judgement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "core/accelerate_release.hpp"
#include "core/draws_before_prepare.hpp"
#include "core/id_ranges.hpp"
#include "sim/simulator.hpp"
#include "trace/recorded_json.hpp"

namespace accel::analysis {
namespace {

struct Seen {
  std::int64_t rank = 0, step = 0;
};

// One epoch over every rank: what each rank saw in it (all segments) and whether every rank finished it.
struct EpochView {
  std::int64_t epoch = 0;
  std::vector<std::int64_t> steps;  // per rank: the last step reached (start_step + batches of its last segment)
  std::vector<bool> complete;       // per rank: its last segment ran to the loader's end
  std::vector<std::int64_t> yields;  // per rank: batches yielded in all segments
  std::unordered_map<SampleId, std::vector<Seen>> seen;
  bool all_complete() const { return std::all_of(complete.begin(), complete.end(), [](bool c) { return c; }); }
};

std::vector<EpochView> epochs_of(const trace::RecordedRun& run) {
  std::map<std::int64_t, EpochView> by_epoch;
  const auto world = static_cast<std::size_t>(run.num_processes);
  for (const auto& rank : run.ranks) {
    // The last segment of each epoch on this rank decides completeness.
    std::map<std::int64_t, std::int64_t> last_segment;
    for (const auto& p : rank.passes) last_segment[p.epoch] = std::max(last_segment[p.epoch], p.segment);
    for (const auto& p : rank.passes) {
      EpochView& e = by_epoch[p.epoch];
      if (e.steps.empty()) {
        e.epoch = p.epoch;
        e.steps.assign(world, 0);
        e.complete.assign(world, false);
        e.yields.assign(world, 0);
      }
      const auto r = static_cast<std::size_t>(rank.rank);
      e.yields[r] += static_cast<std::int64_t>(p.batches.size());
      if (p.segment == last_segment[p.epoch]) {
        e.steps[r] = std::max(e.steps[r], p.end_step());
        e.complete[r] = p.complete;
      }
      for (std::size_t s = 0; s < p.batches.size(); ++s) {
        for (SampleId id : p.batches[s]) e.seen[id].push_back({rank.rank, p.start_step + static_cast<std::int64_t>(s)});
      }
    }
  }
  std::vector<EpochView> out;
  for (auto& [_, e] : by_epoch) out.push_back(std::move(e));
  return out;
}

std::string ranks_text(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) out += ", ...";
  return out;
}

std::string batch_text(const Batch& b) {
  std::string out = "[";
  for (std::size_t i = 0; i < b.size() && i < 16; ++i) out += (i ? ", " : "") + std::to_string(b[i]);
  if (b.size() > 16) out += ", ...";
  return out + "]";
}

}  // namespace

CheckReport judge_recorded(const trace::RecordedRun& run, const std::vector<std::string>& requirements) {
  const std::vector<std::string> known = {"no-duplicates", "no-drops", "full-coverage", "lockstep", "len-consistent"};
  for (const auto& name : requirements) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::invalid_argument("'" + name +
                                  "' is not judged on a recording; one of no-duplicates, no-drops, full-coverage, "
                                  "lockstep, len-consistent");
    }
    if ((name == "no-drops" || name == "full-coverage") && !run.dataset_len) {
      throw std::invalid_argument(name + ": the recording has no dataset length (len(dataset) raised), so nothing says "
                                         "which samples should have been seen");
    }
  }
  // full-coverage is no-duplicates and no-drops: each judged once, in the order first asked for.
  std::vector<std::string> checks;
  for (const auto& name : requirements) {
    const std::vector<std::string> parts = name == "full-coverage" ? std::vector<std::string>{"no-duplicates", "no-drops"}
                                                                   : std::vector<std::string>{name};
    for (const auto& part : parts) {
      if (std::find(checks.begin(), checks.end(), part) == checks.end()) checks.push_back(part);
    }
  }
  CheckReport out;
  const auto views = epochs_of(run);
  for (const EpochView& e : views) {
    const std::string pass = "epoch " + std::to_string(e.epoch);
    std::vector<std::int64_t> incomplete;
    for (std::size_t r = 0; r < e.complete.size(); ++r) {
      if (!e.complete[r]) incomplete.push_back(static_cast<std::int64_t>(r));
    }
    const std::string not_judged = "not judged: the epoch was broken off on rank(s) " + ranks_text(incomplete);
    for (const auto& name : checks) {
      if (name == "no-duplicates") {
        IdRanges dup;
        std::int64_t repeated = 0, extra = 0;
        std::string where;
        std::vector<SampleId> ids;
        for (const auto& [id, seen] : e.seen) {
          if (seen.size() > 1) ids.push_back(id);
        }
        std::sort(ids.begin(), ids.end());
        for (SampleId id : ids) {
          const auto& s = e.seen.at(id);
          ++repeated;
          extra += static_cast<std::int64_t>(s.size()) - 1;
          dup.add(id);
          if (where.empty()) {
            where = "; sample " + std::to_string(id) + " at rank " + std::to_string(s[0].rank) + " step " +
                    std::to_string(s[0].step) + " and rank " + std::to_string(s[1].rank) + " step " +
                    std::to_string(s[1].step);
          }
        }
        out.outcomes.push_back({"no-duplicates", pass, repeated == 0,
                                repeated ? std::to_string(repeated) + " samples seen more than once (" +
                                               std::to_string(extra) + " extra), ids " + format_id_ranges(dup, repeated) +
                                               where
                                         : ""});
      }
      if (name == "no-drops") {
        if (!e.all_complete()) {
          out.outcomes.push_back({"no-drops", pass, true, not_judged, true});
          continue;
        }
        // The gaps between the distinct ids seen: cost in the recording's size, not the dataset's (issue 48).
        std::vector<SampleId> seen_ids;
        seen_ids.reserve(e.seen.size());
        for (const auto& [id, _] : e.seen) {
          if (id >= 0 && id < *run.dataset_len) seen_ids.push_back(id);
        }
        std::sort(seen_ids.begin(), seen_ids.end());
        IdRanges missing;
        std::int64_t count = 0;
        SampleId next = 0;  // the first id not yet accounted for
        const auto gap = [&](SampleId first, SampleId last) {
          if (first > last) return;
          missing.add_run(first, last);
          count += last - first + 1;
        };
        for (SampleId id : seen_ids) {
          gap(next, id - 1);
          next = id + 1;
        }
        gap(next, *run.dataset_len - 1);
        out.outcomes.push_back({"no-drops", pass, count == 0,
                                count ? std::to_string(count) + " of " + std::to_string(*run.dataset_len) +
                                            " samples never seen, ids " + format_id_ranges(missing, count)
                                      : ""});
      }
      if (name == "lockstep") {
        if (!e.all_complete()) {
          out.outcomes.push_back({"lockstep", pass, true, not_judged, true});
          continue;
        }
        const auto [lo, hi] = std::minmax_element(e.steps.begin(), e.steps.end());
        std::string evidence;
        if (*lo != *hi) {
          std::vector<std::int64_t> short_ranks;
          for (std::size_t r = 0; r < e.steps.size(); ++r) {
            if (e.steps[r] == *lo) short_ranks.push_back(static_cast<std::int64_t>(r));
          }
          evidence = (short_ranks.size() == 1 ? "rank " + ranks_text(short_ranks) + " yields "
                                              : "ranks " + ranks_text(short_ranks) + " yield ") +
                     std::to_string(*lo) + " batches, others up to " +
                     std::to_string(*hi) + ": the others wait forever in a collective at step " + std::to_string(*lo);
        }
        out.outcomes.push_back({"lockstep", pass, *lo == *hi, evidence});
      }
      if (name == "len-consistent") {
        std::string evidence;
        for (const auto& rank : run.ranks) {
          const auto r = static_cast<std::size_t>(rank.rank);
          if (!rank.len || !e.complete[r] || e.steps[r] == *rank.len) continue;
          evidence = "rank " + std::to_string(rank.rank) + ": len(dataloader) " + std::to_string(*rank.len) +
                     ", yields " + std::to_string(e.steps[r]);
          break;
        }
        out.outcomes.push_back({"len-consistent", pass, evidence.empty(), evidence});
      }
    }
  }
  if (views.empty()) {
    for (const auto& name : checks) out.outcomes.push_back({name, "recording", false, "no pass was recorded"});
  }
  return out;
}

namespace {

using trace::Json;

// The recording's first segments against the simulation of `config` (the recorded configuration, resolved).
void compare_with(const trace::RecordedRun& run, const Json& config, RecordedDiff& out) {
  const auto parsed = trace::parse_config(config);
  const auto* loader = std::get_if<trace::LoaderCase>(&parsed);
  if (!loader) {
    out.why_not = "the recorded configuration is not a data loader the simulator runs";
    return;
  }
  const trace::Trace simulated = sim::simulate(*loader);
  out.comparable = true;
  const auto* records = std::get_if<std::vector<trace::RankRecord>>(&simulated.body);
  for (const auto& rank : run.ranks) {
    std::vector<const trace::RecordedPass*> first;
    for (const auto& p : rank.passes) {
      if (p.segment == 0) first.push_back(&p);
    }
    for (std::size_t k = 0; k < first.size(); ++k) {
      const trace::RecordedPass& rec = *first[k];
      const std::vector<Batch>* sim_batches = nullptr;
      std::string sim_error;
      if (simulated.error) {
        sim_error = simulated.error->type + ": " + simulated.error->message;
      } else if (records && static_cast<std::size_t>(rank.rank) < records->size() &&
                 k < (*records)[static_cast<std::size_t>(rank.rank)].epochs.size()) {
        sim_batches = &(*records)[static_cast<std::size_t>(rank.rank)].epochs[k].batches;
      }
      const std::size_t n = std::max(rec.batches.size(), sim_batches ? sim_batches->size() : std::size_t{0});
      for (std::size_t s = 0; s < n; ++s) {
        const bool have_rec = s < rec.batches.size();
        const bool have_sim = sim_batches && s < sim_batches->size();
        if (have_rec && have_sim && rec.batches[s] == (*sim_batches)[s]) {
          ++out.batches_compared;
          continue;
        }
        // A broken-off pass ends early: only what it recorded is compared.
        if (!have_rec && !rec.complete) break;
        out.divergence = RecordedDivergence{
            rank.rank, rec.epoch, rec.start_step + static_cast<std::int64_t>(s),
            have_rec ? batch_text(rec.batches[s]) : "no batch (the pass ended)",
            have_sim ? batch_text((*sim_batches)[s]) : (sim_error.empty() ? "no batch (the pass ended)" : sim_error)};
        return;
      }
    }
  }
}

// A shuffle that differs from its first step, on a release whose prepare seeds the sampler's generator from torch's
// global generator, when the recorder saw the seed it got: the usual cause is a model built between set_seed and
// prepare. The draws that give that seed are searched for, and the simulation with them is run before they are
// advised.
std::optional<DrawsHint> draws_hint(const trace::RecordedRun& run, const Json& config, const RecordedDiff& diff) {
  if (!diff.divergence || !run.sampler_generator_seed) return std::nullopt;
  const auto& first_pass = run.ranks.front().passes;
  const bool at_start = std::any_of(run.ranks.begin(), run.ranks.end(), [&](const trace::RecordedRank& r) {
    return r.rank == diff.divergence->rank && !r.passes.empty() && r.passes.front().epoch == diff.divergence->epoch &&
           r.passes.front().start_step == diff.divergence->step;
  });
  if (!at_start || first_pass.empty() || first_pass.front().start_step != 0) return std::nullopt;
  const auto parsed = trace::parse_config(config);
  const auto* loader = std::get_if<trace::LoaderCase>(&parsed);
  if (!loader || !loader->loader.shuffle || loader->prepare.use_seedable_sampler || !loader->torch_manual_seed ||
      shuffle_generator_rule(loader->prepare.release) != ShuffleGeneratorRule::SeededFromGlobalAtPrepare) {
    return std::nullopt;
  }
  DrawsHint hint;
  hint.sampler_generator_seed = *run.sampler_generator_seed;
  hint.torch_seed = sim::process_seed(*loader, 0);
  hint.draws = draws_before_prepare(hint.torch_seed, hint.sampler_generator_seed);
  if (hint.draws == std::optional<std::uint64_t>(loader->prepare.process_generator_draws)) return std::nullopt;
  if (hint.draws) {
    Json with = config;
    with["global_rng_draws"] = *hint.draws;
    RecordedDiff again;
    compare_with(run, with, again);
    hint.remaining = again.divergence;
  }
  return hint;
}

}  // namespace

RecordedDiff diff_recorded(const trace::RecordedRun& run, std::optional<std::uint64_t> rng_draws) {
  RecordedDiff out;
  auto config = trace::recorded_simulation_config(run, &out.why_not);
  if (!config) return out;
  if (rng_draws) (*config)["global_rng_draws"] = *rng_draws;
  compare_with(run, *config, out);
  if (out.comparable && !rng_draws) out.draws_hint = draws_hint(run, *config, out);
  return out;
}

}  // namespace accel::analysis
