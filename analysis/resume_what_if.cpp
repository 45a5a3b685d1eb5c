#include "analysis/resume_what_if.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "core/accelerate_release.hpp"
#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"
#include "core/stateful_loader_state.hpp"
#include "sim/resume_simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::analysis {
namespace {

using trace::ResumeCase;
using trace::ResumeMode;

std::int64_t resume_ranks(const ResumeCase& c) { return c.resume.resume_ranks.value_or(c.job.prepare.num_processes); }
std::int64_t resume_batch(const ResumeCase& c) { return c.resume.resume_batch_size.value_or(c.job.loader.batch_size); }

// Ids in training order: step by step, rank by rank within a step (the order a global batch is formed).
template <typename F>
void for_each_in_step_order(const std::vector<const std::vector<Batch>*>& ranks, F f) {
  std::size_t steps = 0;
  for (const auto* r : ranks) steps = std::max(steps, r->size());
  for (std::size_t j = 0; j < steps; ++j) {
    for (const auto* r : ranks) {
      if (j < r->size()) for (SampleId id : (*r)[j]) f(id);
    }
  }
}

void note(IdDelta& d, SampleId id, std::vector<char>& listed) {
  if (listed[static_cast<std::size_t>(id)] || d.first.closed()) return;
  listed[static_cast<std::size_t>(id)] = 1;
  d.first.add(id);
}

// Where a shuffled loader's order comes from, as far as a restart is concerned (the release's rules,
// core/accelerate_release.hpp, for this world size).
enum class ShuffleSource {
  None,             // not shuffled
  OwnGenerator,     // a generator of the loader's own, made at prepare and never saved
  GlobalEachEpoch,  // a seed drawn from torch's global generator every pass (which load_state restores)
  Accumulating,     // 0.25's sampler, its seed accumulating pass by pass (never saved)
  FrozenEpoch,      // 0.24's sampler: one permutation every pass
  EpochSeeded,      // the SeedableRandomSampler: initial_seed + the loader's epoch counter (never saved)
};

ShuffleSource shuffle_source(const ResumeCase& c) {
  if (!c.job.loader.shuffle) return ShuffleSource::None;
  const AccelerateRelease release = c.job.prepare.release;
  const bool sharded = c.job.prepare.num_processes > 1;
  if (c.job.prepare.use_seedable_sampler) {
    switch (seedable_sampler_rule(release)) {
      case SeedableSamplerRule::Accumulating: return ShuffleSource::Accumulating;
      case SeedableSamplerRule::InertOnShards:
        if (sharded) break;  // the plain RandomSampler iterates: the default rule below
        return ShuffleSource::EpochSeeded;
      case SeedableSamplerRule::Absent:  // Accelerator(...) refuses the option: nothing runs
      case SeedableSamplerRule::EpochSeeded: return ShuffleSource::EpochSeeded;
    }
  }
  const ShuffleGeneratorRule rule = shuffle_generator_rule(release);
  if (rule == ShuffleGeneratorRule::SeedableAccumulating) return ShuffleSource::Accumulating;
  if (!sharded || rule == ShuffleGeneratorRule::GlobalGeneratorPerEpoch) return ShuffleSource::GlobalEachEpoch;
  if (rule == ShuffleGeneratorRule::SeedableFrozenEpoch) return ShuffleSource::FrozenEpoch;
  return ShuffleSource::OwnGenerator;
}

bool is_seedable(const ResumeCase& c) { return shuffle_source(c) == ShuffleSource::EpochSeeded; }

}  // namespace

std::int64_t batches_per_epoch(const ResumeCase& c) {
  PrepareOptions o = c.job.prepare;
  o.process_index = 0;
  const auto loader = std::get<DataLoaderShard>(prepare_data_loader(c.job.loader, o));
  const auto len = loader.len();
  return len.ok() ? len.value() : 0;
}

std::pair<std::int64_t, std::int64_t> epoch_and_step_of(std::int64_t optimizer_step, std::int64_t grad_accum,
                                                        std::int64_t per_epoch) {
  const std::int64_t batches = optimizer_step * grad_accum;
  if (per_epoch <= 0) return {0, batches};
  return {batches / per_epoch, batches % per_epoch};
}

std::string change_list(const std::vector<ResumeChange>& changes) {
  std::string s;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (i) s += i + 1 == changes.size() ? " and " : ", ";
    s += changes[i].what + " (" + changes[i].flag + ")";
  }
  return s;
}

void compare_epoch(ResumeEpochOutcome& eo, std::int64_t n, const IdVisitor& expected, const IdVisitor& already_trained,
                   const IdVisitor& resumed) {
  // +1 per occurrence in the uninterrupted epoch, -1 per occurrence in what the two jobs trained on.
  std::vector<std::int64_t> balance(static_cast<std::size_t>(n), 0);
  expected([&](SampleId id) { ++balance[static_cast<std::size_t>(id)]; });
  already_trained([&](SampleId id) { --balance[static_cast<std::size_t>(id)]; });
  resumed([&](SampleId id) { --balance[static_cast<std::size_t>(id)]; });
  for (std::int64_t b : balance) {
    if (b > 0) eo.missing.count += b;
    if (b < 0) eo.extra.count -= b;
  }
  std::vector<char> listed(static_cast<std::size_t>(n), 0);
  resumed([&](SampleId id) {
    if (balance[static_cast<std::size_t>(id)] < 0) note(eo.extra, id, listed);
  });
  std::fill(listed.begin(), listed.end(), 0);
  expected([&](SampleId id) {
    if (balance[static_cast<std::size_t>(id)] > 0) note(eo.missing, id, listed);
  });
  eo.identical = eo.extra.count == 0 && eo.missing.count == 0;
}

ResumeOutcome compare_resume(const ResumeCase& c) {
  const trace::ResumeTrace t = sim::simulate_resume(c);
  // A release that raises stops the script: the job is rejected, as the what-if reports any AccelerateError.
  for (const trace::ResumeRankRecord& r : t.ranks) {
    if (!r.error) continue;
    const std::string job = r.error->where == "first_group" ? "the first job" : "the restarted job";
    throw AccelerateError(py_error_type(r.error->type).value_or(PyErrorType::RuntimeError), job, r.error->message);
  }
  const std::int64_t world = c.job.prepare.num_processes;
  const std::int64_t world2 = resume_ranks(c);
  const std::int64_t n = c.job.loader.dataset_len;
  ResumeOutcome out;
  out.same_shape = world2 == world && resume_batch(c) == c.job.loader.batch_size;
  for (std::int64_t e = c.resume.epoch; e < c.job.epochs; ++e) {
    const auto pe = static_cast<std::size_t>(e);
    const auto pr = static_cast<std::size_t>(e - c.resume.epoch);
    ResumeEpochOutcome eo;
    eo.epoch = e;
    std::vector<std::vector<Batch>> before(static_cast<std::size_t>(world));  // epoch E, before the checkpoint
    std::vector<const std::vector<Batch>*> uninterrupted, trained_before, trained_after;
    for (std::int64_t r = 0; r < world; ++r) {
      const auto& u = t.ranks[static_cast<std::size_t>(r)].uninterrupted.at(pe);
      uninterrupted.push_back(&u);
      if (e == c.resume.epoch) {
        const auto s = std::min<std::size_t>(static_cast<std::size_t>(c.resume.step), u.size());
        before[static_cast<std::size_t>(r)].assign(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(s));
      }
      trained_before.push_back(&before[static_cast<std::size_t>(r)]);
    }
    for (std::int64_t r = 0; r < world2; ++r) trained_after.push_back(&t.ranks[static_cast<std::size_t>(r)].resumed.at(pr));
    const auto visit = [](const std::vector<const std::vector<Batch>*>& ranks) -> IdVisitor {
      return [&ranks](const std::function<void(SampleId)>& f) { for_each_in_step_order(ranks, f); };
    };
    compare_epoch(eo, n, visit(uninterrupted), visit(trained_before), visit(trained_after));
    if (out.same_shape) {
      for (std::int64_t r = 0; r < world && eo.identical; ++r) {
        const auto& u = *uninterrupted[static_cast<std::size_t>(r)];
        const auto skip = static_cast<std::ptrdiff_t>(e == c.resume.epoch ? std::min<std::size_t>(static_cast<std::size_t>(c.resume.step), u.size()) : 0);
        eo.identical = std::vector<Batch>(u.begin() + skip, u.end()) == *trained_after[static_cast<std::size_t>(r)];
      }
    } else {
      eo.identical = eo.extra.count == 0 && eo.missing.count == 0;
    }
    out.identical = out.identical && eo.identical;
    out.extra.count += eo.extra.count;
    out.missing.count += eo.missing.count;
    out.extra.first.append(eo.extra.first);
    out.missing.first.append(eo.missing.first);
    out.epochs.push_back(std::move(eo));
  }
  return out;
}

namespace {

struct Candidate {
  ResumeChange change;
  std::function<bool(ResumeCase&)> apply;  // false: not applicable to this case
  int group = 0;                            // at most one candidate of a non-zero group per recipe
};

bool set_mode(ResumeCase& c, ResumeMode m) {
  if (c.resume.mode == m) return false;
  c.resume.mode = m;
  c.job.accelerator->dataloader_config.use_stateful_dataloader = m == ResumeMode::Stateful;
  return true;
}

std::vector<Candidate> candidates(const ResumeCase& c) {
  std::vector<Candidate> out;
  const std::pair<ResumeMode, const char*> modes[] = {
      {ResumeMode::SkipFirstBatches, "resume with accelerator.skip_first_batches(dataloader, S) in epoch E"},
      {ResumeMode::Continue, "resume by iterating the prepared loader and `continue`-ing over its first S batches"},
      {ResumeMode::Stateful, "use_stateful_dataloader=True (load_state restores the loader's position)"},
  };
  for (const auto& [m, what] : modes) {
    out.push_back({{what, std::string("--resume-with ") + trace::mode_name(m)}, [m](ResumeCase& x) { return set_mode(x, m); }, 1});
  }
  out.push_back({{"call dataloader.set_epoch(epoch) at the top of every epoch", "--loop-set-epoch"},
                 [](ResumeCase& x) {
                   if (x.resume.loop_set_epoch) return false;
                   x.resume.loop_set_epoch = true;
                   return true;
                 }});
  out.push_back({{"use_seedable_sampler=True in DataLoaderConfiguration", "--use-seedable-sampler"},
                 [](ResumeCase& x) {
                   if (!x.job.loader.shuffle || x.job.prepare.use_seedable_sampler) return false;
                   x.job.prepare.use_seedable_sampler = true;
                   x.job.accelerator->dataloader_config.use_seedable_sampler = true;
                   return true;
                 }});
  out.push_back({{"seed the script: set_seed(42) right after Accelerator()", "--set-seed 42"},
                 [](ResumeCase& x) {
                   if (!x.job.loader.shuffle || x.job.torch_manual_seed) return false;
                   x.job.torch_manual_seed = PythonInt{42};
                   return true;
                 }});
  const std::int64_t seen = c.resume.step * c.job.loader.batch_size * c.job.prepare.num_processes;
  const std::int64_t per_step = resume_batch(c) * resume_ranks(c);
  if ((resume_ranks(c) != c.job.prepare.num_processes || resume_batch(c) != c.job.loader.batch_size) && per_step > 0 &&
      seen % per_step == 0) {
    const std::int64_t k = seen / per_step;
    out.push_back({{"skip " + std::to_string(k) + " batches instead of " + std::to_string(c.resume.step) + " (the " +
                        std::to_string(seen) + " samples already trained on, in the restarted job's global batches of " +
                        std::to_string(per_step) + ")",
                    "--resume-skip " + std::to_string(k)},
                   [k](ResumeCase& x) {
                     if (x.resume.mode == ResumeMode::Stateful || x.resume.mode == ResumeMode::None) return false;
                     x.resume.skip = k;
                     return true;
                   }, 2});
  }
  if (c.resume.resume_ranks || c.resume.resume_batch_size) {
    out.push_back({{"restart on the checkpoint's " + std::to_string(c.job.prepare.num_processes) + " processes with batch size " +
                        std::to_string(c.job.loader.batch_size),
                    "drop --resume-ranks / --resume-batch-size"},
                   [](ResumeCase& x) {
                     x.resume.resume_ranks.reset();
                     x.resume.resume_batch_size.reset();
                     return true;
                   }, 2});
  }
  return out;
}

ResumeRecipe find_recipe(const ResumeCase& c) {
  ResumeRecipe recipe;
  recipe.needed = true;
  const auto all = candidates(c);
  const std::size_t k = all.size();
  // Smallest first: every single change, then pairs, then triples, each verified by simulating it.
  for (std::size_t size = 1; size <= 3 && !recipe.found; ++size) {
    std::vector<std::size_t> pick(size);
    std::function<bool(std::size_t, std::size_t)> choose = [&](std::size_t at, std::size_t from) -> bool {
      if (at == size) {
        int used_groups = 0;
        ResumeCase x = c;
        std::vector<ResumeChange> changes;
        for (std::size_t i : pick) {
          const int g = all[i].group;
          if (g != 0 && (used_groups & (1 << g))) return false;
          used_groups |= g != 0 ? (1 << g) : 0;
          if (!all[i].apply(x)) return false;
          changes.push_back(all[i].change);
        }
        ++recipe.candidates_simulated;
        try {
          if (!compare_resume(x).identical) return false;
        } catch (const trace::ConfigError&) {
          return false;
        } catch (const AccelerateError&) {
          return false;
        }
        recipe.found = true;
        recipe.changes = std::move(changes);
        return true;
      }
      for (std::size_t i = from; i < k; ++i) {
        pick[at] = i;
        if (choose(at + 1, i + 1)) return true;
      }
      return false;
    };
    choose(0, 0);
  }
  if (recipe.found) {
    recipe.statement = "Identical after: " + change_list(recipe.changes) + " (verified by simulating it).";
  } else {
    recipe.statement = "No combination of up to three of these changes makes this resume identical (" +
                       std::to_string(recipe.candidates_simulated) +
                       " simulated): resume mode, set_epoch in the loop, the seedable sampler, set_seed, the skip "
                       "count, the original ranks and batch size.";
  }
  return recipe;
}

std::vector<std::string> reasons_of(const ResumeCase& c, const ResumeOutcome& o) {
  std::vector<std::string> out;
  if (o.identical) return out;
  const auto& r = c.resume;
  const std::int64_t world = c.job.prepare.num_processes;
  const bool later_epochs = r.epoch + 1 < c.job.epochs;
  if (r.mode == ResumeMode::None) {
    out.push_back("Nothing is skipped: the first " + std::to_string(r.step) + " batches of epoch " +
                  std::to_string(r.epoch) + " are trained on again on every rank.");
  }
  if (c.job.loader.shuffle && !c.job.torch_manual_seed && !(is_seedable(c) && c.job.prepare.data_seed)) {
    out.push_back("Nothing seeds the shuffle: torch seeds every new process from the OS, so the restarted job's order "
                  "is not the first job's.");
  }
  const std::string release = c.job.prepare.release.name();
  const std::string E = std::to_string(r.epoch);
  switch (shuffle_source(c)) {
    case ShuffleSource::GlobalEachEpoch:
      out.push_back(std::string(world == 1 ? "With one process the RandomSampler has no generator of its own"
                                           : "In Accelerate " + release + " each rank's RandomSampler has no generator of its own") +
                    ": it draws a seed from torch's global generator every epoch, and load_state restores that generator "
                    "as the checkpoint left it, after epoch " + E + "'s draw, so the restarted epoch " + E +
                    " is shuffled like the uninterrupted epoch " + std::to_string(r.epoch + 1) + ".");
      break;
    case ShuffleSource::OwnGenerator:
      if (r.epoch > 0) {
        out.push_back("The RandomSampler's own generator (the one Accelerate synchronises from rank 0) is not in the "
                      "checkpoint: the restarted job starts it afresh, so epoch " + E +
                      " gets epoch 0's order, and every later epoch the order of " + E +
                      std::string(r.epoch == 1 ? " epoch" : " epochs") + " earlier.");
      }
      break;
    case ShuffleSource::Accumulating:
      if (r.epoch > 0) {
        out.push_back("Accelerate " + release + "'s SeedableRandomSampler adds to its seed after every pass, and the "
                      "checkpoint does not hold it: the restarted job's sampler starts from its first seed, so epoch " + E +
                      " is shuffled as epoch 0.");
      }
      break;
    case ShuffleSource::EpochSeeded:
      if (!r.loop_set_epoch) {
        if (r.epoch > 0) {
          out.push_back("The SeedableRandomSampler seeds each epoch with data_seed + the loader's iteration counter, "
                        "which save_state does not save (no release saves a map-style loader's sampler): without "
                        "set_epoch the restarted epoch " + E + " is shuffled as epoch 0.");
        }
        if (r.mode == ResumeMode::SkipFirstBatches && later_epochs) {
          out.push_back("skip_first_batches returns a new loader that counts its own passes, so the prepared loader's "
                        "counter has not moved when epoch " + std::to_string(r.epoch + 1) +
                        " starts: without set_epoch it replays an earlier epoch's order.");
        }
      } else if (r.mode == ResumeMode::SkipFirstBatches && r.epoch > 0 &&
                 skip_resets_seedable_epoch(c.job.prepare.release)) {
        out.push_back("In Accelerate " + release + " the loader skip_first_batches returns starts at iteration 0 and "
                      "hands it to the sampler when its pass starts, undoing set_epoch: the restarted epoch " + E +
                      " is shuffled as epoch 0.");
      }
      break;
    case ShuffleSource::None:
    case ShuffleSource::FrozenEpoch: break;
  }
  if (r.mode == ResumeMode::Stateful && world > 1 && adjusts_stateful_state_for_prefetch(c.job.prepare.release)) {
    out.push_back("Accelerate " + release + "'s adjust_state_dict_for_prefetch takes " + std::to_string(world - 1) +
                  " (num_processes - 1) off the batch count of the state save_state writes, though the shard took its "
                  "snapshot before looking ahead: the restarted epoch " + E + " starts that many batches early (1.13.0 "
                  "adjusts nothing).");
  }
  if (r.mode == ResumeMode::Stateful) {
    const std::vector<StatefulLoaderState> states = sim::saved_loader_states(c);
    const StatefulLoaderState& restored = states.at(static_cast<std::size_t>(r.state_writer.value_or(0)));
    if (restored.iterator_finished) {
      out.push_back(std::string("The checkpoint's StatefulDataLoader state says the iterator finished: ") +
                    (r.step == 0 ? "a checkpoint before an epoch keeps the last snapshot of the epoch before, "
                                   "taken after its last batch"
                                 : "DataLoaderShard looks one batch ahead, so the snapshot save_state reads after "
                                   "the epoch's last batch was taken once the loader had run out") +
                    "; torchdata replaces a finished iterator with a fresh one, so the restarted epoch " +
                    std::to_string(r.epoch) + " starts again from its first batch.");
    }
  }
  if (!o.same_shape) {
    if (r.mode == ResumeMode::Stateful) {
      out.push_back("The StatefulDataLoader restores a count of batches, not of samples: with another batch size or "
                    "number of processes it skips a different number of samples.");
    } else if (r.mode != ResumeMode::None) {
      out.push_back("The checkpoint was taken after " + std::to_string(r.step) + " global batches of " +
                    std::to_string(c.job.loader.batch_size * world) + " samples; the restarted job's global batches hold " +
                    std::to_string(resume_batch(c) * resume_ranks(c)) + ", and the samples land on other ranks.");
    }
  }
  return out;
}

}  // namespace

ResumeReport resume_what_if(const ResumeCase& c, std::optional<std::string> conversion) {
  if (c.resume.mode == ResumeMode::Stateful && !c.resume.state_writer) {
    // Every rank writes its StatefulDataLoader state to the one dl_state_dict.bin without a barrier, and every
    // restarted rank loads that file: when the ranks' states differ (only some at their last batch, with
    // even_batches=False), the survivor is whichever rank wrote last. Each possible survivor is simulated; the
    // report shows a non-identical one when there is one, and says it is a race.
    const std::vector<StatefulLoaderState> states = sim::saved_loader_states(c);
    std::vector<std::int64_t> writers;
    for (std::size_t r = 0; r < states.size(); ++r) {
      bool seen = false;
      for (std::int64_t w : writers) seen = seen || states[static_cast<std::size_t>(w)] == states[r];
      if (!seen) writers.push_back(static_cast<std::int64_t>(r));
    }
    if (writers.size() > 1) {
      std::vector<ResumeReport> each;
      std::string race =
          "The ranks' StatefulDataLoader states differ and every rank writes the same dl_state_dict.bin "
          "with no barrier, so which one the restarted job loads is a race:";
      std::size_t shown = 0;
      for (std::int64_t w : writers) {
        ResumeCase pinned = c;
        pinned.resume.state_writer = w;
        each.push_back(resume_what_if(pinned, conversion));
        const auto& s = states[static_cast<std::size_t>(w)];
        race += std::string(w == writers.front() ? " " : "; ") + "rank " + std::to_string(w) + "'s (" +
                (s.iterator_finished ? "finished" : std::to_string(s.batches_yielded) + " batches in") + ") " +
                (each.back().outcome.identical ? "resumes exactly" : "does not");
        if (!each.back().outcome.identical && shown == 0) shown = each.size() - 1;
      }
      ResumeReport report = each[shown];
      report.config.resume.state_writer.reset();
      report.reasons.insert(report.reasons.begin(), race + ".");
      return report;
    }
  }
  ResumeReport report;
  report.config = c;
  report.conversion = std::move(conversion);
  report.batches_per_epoch = batches_per_epoch(c);
  report.outcome = compare_resume(c);
  report.reasons = reasons_of(c, report.outcome);
  if (report.outcome.identical) {
    report.recipe.statement = "The resume is identical as configured: nothing to change.";
  } else {
    report.recipe = find_recipe(c);
  }
  return report;
}

}  // namespace accel::analysis
