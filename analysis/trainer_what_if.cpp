#include "analysis/trainer_what_if.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "analysis/eval_metrics.hpp"
#include "analysis/findings.hpp"
#include "core/epoch_plan.hpp"
#include "core/error.hpp"
#include "sim/simulator.hpp"
#include "sim/trainer_simulator.hpp"
#include "trace/trainer_json.hpp"

namespace accel::analysis {
namespace {

using trace::TrainerCase;
using trace::TrainerStepRecord;

// One rank's trained micro-batches of one epoch, in step order (a step's micro-batches in accumulation order).
using EpochBatches = std::map<std::int64_t, std::vector<std::vector<const Batch*>>>;  // epoch -> rank -> batches

// The steps that reached an optimizer step after `after_step`, grouped by data epoch, per rank.
EpochBatches by_epoch(const std::vector<const std::vector<TrainerStepRecord>*>& ranks,
                      const std::vector<std::vector<std::int64_t>>& epochs, std::int64_t after_step) {
  EpochBatches out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto& steps = *ranks[r];
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!steps[i].global_step || *steps[i].global_step <= after_step) continue;
      auto& per_rank = out[epochs[r].at(i)];
      per_rank.resize(ranks.size());
      for (const auto& b : steps[i].batches) per_rank[r].push_back(&b);
    }
  }
  return out;
}

// Ids in training order: micro-batch by micro-batch, rank by rank (the order a global batch is formed).
template <typename F>
void for_each_in_step_order(const std::vector<std::vector<const Batch*>>& ranks, F f) {
  std::size_t steps = 0;
  for (const auto& r : ranks) steps = std::max(steps, r.size());
  for (std::size_t j = 0; j < steps; ++j) {
    for (const auto& r : ranks) {
      if (j < r.size()) {
        for (SampleId id : *r[j]) f(id);
      }
    }
  }
}

std::int64_t world_of(const TrainerCase& c, bool resumed) {
  return resumed ? c.resume->num_processes : c.job.prepare.num_processes;
}

bool same_shape(const TrainerCase& c) {
  const auto& r = *c.resume;
  return r.num_processes == c.job.prepare.num_processes && r.per_device_train_batch_size == c.job.loader.batch_size &&
         r.gradient_accumulation_steps == c.loop.gradient_accumulation_steps;
}

std::vector<const std::vector<TrainerStepRecord>*> job_steps(const trace::TrainerTrace& t, std::int64_t world,
                                                             bool resumed) {
  std::vector<const std::vector<TrainerStepRecord>*> out;
  for (std::int64_t r = 0; r < world; ++r) {
    const auto& rank = t.ranks.at(static_cast<std::size_t>(r));
    out.push_back(resumed ? &rank.resumed_steps : &rank.steps);
  }
  return out;
}

ResumeOutcome compare(const TrainerCase& c, const trace::TrainerTrace& t, const sim::TrainerStepEpochs& epochs) {
  ResumeOutcome out;
  out.same_shape = same_shape(c);
  const std::int64_t n = c.job.loader.dataset_len;
  const std::int64_t g = c.resume->global_step;
  const auto before = job_steps(t, world_of(c, false), false);
  const auto after = job_steps(t, world_of(c, true), true);
  const EpochBatches u = by_epoch(before, epochs.first, g);
  const EpochBatches a = by_epoch(after, epochs.resumed, 0);
  std::vector<std::int64_t> keys;
  for (const auto& [e, _] : u) keys.push_back(e);
  for (const auto& [e, _] : a) keys.push_back(e);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const std::vector<std::vector<const Batch*>> none;
  for (std::int64_t e : keys) {
    const auto& ue = u.count(e) ? u.at(e) : none;
    const auto& ae = a.count(e) ? a.at(e) : none;
    ResumeEpochOutcome eo;
    eo.epoch = e;
    const auto visit = [](const std::vector<std::vector<const Batch*>>& ranks) -> IdVisitor {
      return [&ranks](const std::function<void(SampleId)>& f) { for_each_in_step_order(ranks, f); };
    };
    compare_epoch(
        eo, n, visit(ue), [](const std::function<void(SampleId)>&) {}, visit(ae));
    out.identical = out.identical && eo.identical;
    out.extra.count += eo.extra.count;
    out.missing.count += eo.missing.count;
    out.extra.first.append(eo.extra.first);
    out.missing.first.append(eo.missing.first);
    out.epochs.push_back(std::move(eo));
  }
  if (out.same_shape) {
    // The same shape trains the same batches on the same ranks at the same global steps, or it is not exact.
    for (std::size_t r = 0; r < before.size(); ++r) {
      std::vector<TrainerStepRecord> rest;
      for (const auto& s : *before[r]) {
        if (s.global_step && *s.global_step > g) rest.push_back(s);
      }
      std::vector<TrainerStepRecord> resumed;
      for (const auto& s : *after[r]) {
        if (s.global_step) resumed.push_back(s);
      }
      if (rest != resumed) out.identical = false;
    }
  }
  return out;
}

TrainerJobSummary summarize(const TrainerCase& c, const trace::TrainerTrace& t, const sim::TrainerStepEpochs& epochs,
                            bool resumed) {
  TrainerJobSummary s;
  s.num_processes = world_of(c, resumed);
  s.per_device_batch_size = resumed ? c.resume->per_device_train_batch_size : c.job.loader.batch_size;
  s.gradient_accumulation_steps = resumed ? c.resume->gradient_accumulation_steps : c.loop.gradient_accumulation_steps;
  s.schedule = sim::trainer_job_schedule(c, resumed, 0);
  s.short_last_step_batches = s.schedule.steps_in_epoch % s.gradient_accumulation_steps;
  const auto steps = job_steps(t, s.num_processes, resumed);
  auto optimizer_steps = [](const std::vector<TrainerStepRecord>& v) {
    return static_cast<std::int64_t>(
        std::count_if(v.begin(), v.end(), [](const auto& x) { return x.global_step.has_value(); }));
  };
  s.optimizer_steps = optimizer_steps(*steps.front());
  for (const auto* r : steps) s.lockstep = s.lockstep && optimizer_steps(*r) == s.optimizer_steps;
  for (const auto& x : *steps.front()) {
    if (x.global_step)
      s.last_global_step = *x.global_step;
    else
      s.unsynced_batches += static_cast<std::int64_t>(x.batches.size());
  }
  if (resumed) return s;
  // The first epoch: its whole pass is trained unless max_steps stops the run inside it (a loader with no
  // batch at all, dataloader_drop_last with fewer samples than a global batch, trains nothing).
  const EpochBatches first = by_epoch(steps, epochs.first, 0);
  const std::int64_t n = c.job.loader.dataset_len;
  std::vector<std::int64_t> times(static_cast<std::size_t>(n), 0);
  if (!first.empty()) {
    for_each_in_step_order(first.begin()->second, [&](SampleId id) { ++times[static_cast<std::size_t>(id)]; });
  }
  for (std::int64_t k : times) {
    if (k > 1) s.epoch_duplicated += k - 1;
    if (k == 0) ++s.epoch_dropped;
  }
  return s;
}

}  // namespace

// The first job without a resume, from the loaders' structure (issue 48): each rank's steps from its pass length
// (trainer_run_counts), and the first epoch's coverage from the prepared loader's pass counts (the what-if's, which
// draw no shuffle for them), where every rank trains its pass 0 whole. Only the replay knows the rest: an iterable
// dataset, a resume, an error, a pass cut by max_steps or carried into the next one.
std::optional<TrainerJobSummary> trainer_job_closed_form(const TrainerCase& c) {
  if (c.resume || c.iterable) return std::nullopt;
  try {
    TrainerJobSummary s;
    s.num_processes = c.job.prepare.num_processes;
    s.per_device_batch_size = c.job.loader.batch_size;
    s.gradient_accumulation_steps = c.loop.gradient_accumulation_steps;
    PrepareOptions options = c.job.prepare;
    options.process_seed = sim::process_seed(c.job, 0);
    const EpochPlan plan(c.job.loader, options);
    for (std::int64_t r = 0; r < s.num_processes; ++r) {
      const auto len = plan.len(r);
      const TrainerSchedule schedule = trainer_schedule(len.ok() ? len.value() : 0, c.loop);
      const TrainerRunCounts counts = trainer_run_counts(schedule, plan.batches(r));
      if (!counts.first_pass_whole) return std::nullopt;
      if (r == 0) {
        s.schedule = schedule;
        s.optimizer_steps = counts.optimizer_steps;
        s.last_global_step = counts.optimizer_steps;
        s.unsynced_batches = counts.unsynced_batches;
      } else {
        s.lockstep = s.lockstep && counts.optimizer_steps == s.optimizer_steps;
      }
    }
    s.short_last_step_batches = s.schedule.steps_in_epoch % s.gradient_accumulation_steps;
    if (s.optimizer_steps == 0) {
      // No rank stepped: nothing of the epoch was trained.
      s.epoch_dropped = c.job.loader.dataset_len;
      return s;
    }
    const Scenario pass = analyze_counts(c.job, "", "");
    if (pass.rejected || pass.iteration_error) return std::nullopt;
    s.epoch_duplicated = pass.coverage.counts.duplicated;
    s.epoch_dropped = pass.coverage.counts.dropped;
    return s;
  } catch (const AccelerateError&) {
    return std::nullopt;  // the replay records the error where Trainer raises it
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a loader EpochPlan does not plan (workers over an iterable dataset)
  }
}

TrainerJobSummary trainer_job_replayed(const TrainerCase& c) {
  sim::TrainerStepEpochs epochs;
  const trace::TrainerTrace t = sim::simulate_trainer(c, &epochs);
  return summarize(c, t, epochs, false);
}

namespace {

struct Simulated {
  trace::TrainerTrace trace;
  sim::TrainerStepEpochs epochs;
};

Simulated simulated(const TrainerCase& c) {
  Simulated s;
  s.trace = sim::simulate_trainer(c, &s.epochs);
  return s;
}

// The recorded layout has one error per rank: the first job's when that rank trained nothing, else the resumed
// job's (which runs only after the first job succeeded).
bool first_job_failed_on(const TrainerCase& c, const trace::TrainerRankRecord& r) {
  return r.error && r.rank < c.job.prepare.num_processes && r.steps.empty() && r.resumed_steps.empty();
}

const trace::ErrorRecord* first_job_error(const TrainerCase& c, const trace::TrainerTrace& t) {
  if (t.error) return &*t.error;
  for (const auto& r : t.ranks) {
    if (first_job_failed_on(c, r)) return &*r.error;
  }
  return nullptr;
}

const trace::ErrorRecord* resumed_job_error(const TrainerCase& c, const trace::TrainerTrace& t) {
  for (const auto& r : t.ranks) {
    if (r.error && !first_job_failed_on(c, r)) return &*r.error;
  }
  return nullptr;
}

std::string shape_text(std::int64_t ranks, std::int64_t batch, std::int64_t ga) {
  return std::to_string(ranks) + " processes x per_device_train_batch_size " + std::to_string(batch) +
         " x gradient_accumulation_steps " + std::to_string(ga);
}

// One edit of the resumed job's TrainingArguments or launch.
struct Candidate {
  ResumeChange change;
  std::function<bool(TrainerCase&)> apply;  // false: not applicable
  int group = 0;                            // at most one candidate of a non-zero group per recipe
};

std::vector<Candidate> candidates(const TrainerCase& c) {
  std::vector<Candidate> out;
  const auto& r = *c.resume;
  out.push_back(
      {{"resume without ignore_data_skip (Trainer then skips the batches already trained)", "drop --ignore-data-skip"},
       [](TrainerCase& x) {
         if (!x.resume->ignore_data_skip) return false;
         x.resume->ignore_data_skip = false;
         return true;
       }});
  const std::int64_t global =
      c.job.prepare.num_processes * c.job.loader.batch_size * c.loop.gradient_accumulation_steps;
  if (r.num_processes != c.job.prepare.num_processes) {
    // Keep the global batch on the new world size: by the per-device batch, else by the accumulation.
    const std::int64_t per_rank = global / r.num_processes;
    if (global % r.num_processes == 0 && per_rank % r.gradient_accumulation_steps == 0) {
      const std::int64_t b = per_rank / r.gradient_accumulation_steps;
      if (b != r.per_device_train_batch_size) {
        out.push_back({{"keep the global batch of " + std::to_string(global) + ": per_device_train_batch_size " +
                            std::to_string(b) + " on " + std::to_string(r.num_processes) + " processes",
                        "--resume-batch-size " + std::to_string(b)},
                       [b](TrainerCase& x) {
                         x.resume->per_device_train_batch_size = b;
                         return true;
                       },
                       1});
      }
    }
    if (global % (r.num_processes * r.per_device_train_batch_size) == 0) {
      const std::int64_t k = global / (r.num_processes * r.per_device_train_batch_size);
      if (k != r.gradient_accumulation_steps) {
        out.push_back({{"keep the global batch of " + std::to_string(global) + ": gradient_accumulation_steps " +
                            std::to_string(k) + " on " + std::to_string(r.num_processes) + " processes",
                        "--resume-grad-accum " + std::to_string(k)},
                       [k](TrainerCase& x) {
                         x.resume->gradient_accumulation_steps = k;
                         return true;
                       },
                       1});
      }
    }
  }
  if (c.iterable && !c.iterable_has_len) {
    out.push_back({{"give the IterableDataset a __len__ (Trainer then runs epochs of len(train_dataloader) and "
                    "resumes at the pass and batch the checkpoint was in)",
                    "--iterable-has-len"},
                   [](TrainerCase& x) {
                     x.iterable_has_len = true;
                     return true;
                   }});
  }
  if (!same_shape(c)) {
    out.push_back(
        {{"resume on the checkpoint's shape: " +
              shape_text(c.job.prepare.num_processes, c.job.loader.batch_size, c.loop.gradient_accumulation_steps),
          "drop --resume-ranks / --resume-batch-size / --resume-grad-accum"},
         [](TrainerCase& x) {
           x.resume->num_processes = x.job.prepare.num_processes;
           x.resume->per_device_train_batch_size = x.job.loader.batch_size;
           x.resume->gradient_accumulation_steps = x.loop.gradient_accumulation_steps;
           return true;
         },
         1});
  }
  return out;
}

bool exact(const TrainerCase& c) {
  const Simulated s = simulated(c);
  return !first_job_error(c, s.trace) && !resumed_job_error(c, s.trace) && compare(c, s.trace, s.epochs).identical;
}

// Single changes first, then pairs: the first set whose simulated resume is identical.
ResumeRecipe find_recipe(const TrainerCase& c) {
  ResumeRecipe recipe;
  recipe.needed = true;
  const auto all = candidates(c);
  std::vector<std::vector<std::size_t>> sets;
  for (std::size_t i = 0; i < all.size(); ++i) sets.push_back({i});
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      if (all[i].group == 0 || all[i].group != all[j].group) sets.push_back({i, j});
    }
  }
  for (const auto& set : sets) {
    TrainerCase x = c;
    bool applies = true;
    for (std::size_t i : set) applies = applies && all[i].apply(x);
    if (!applies) continue;
    ++recipe.candidates_simulated;
    if (!exact(x)) continue;
    recipe.found = true;
    for (std::size_t i : set) recipe.changes.push_back(all[i].change);
    recipe.statement = "Simulated: " + change_list(recipe.changes) + " makes the resume exact.";
    return recipe;
  }
  recipe.statement = "None of the " + std::to_string(recipe.candidates_simulated) +
                     " simulated changes (ignore_data_skip, the global batch, the checkpoint's shape) makes this "
                     "resume exact.";
  return recipe;
}

std::vector<std::string> reasons(const TrainerCase& c, const TrainerReport& report, const TrainerResumeReport& rr) {
  std::vector<std::string> out;
  const auto& r = *c.resume;
  const auto& first = report.job.schedule;
  const auto& second = rr.resumed_job.schedule;
  if (rr.position.epochs_trained != rr.first_job_epoch ||
      (!r.ignore_data_skip && rr.position.steps_trained_in_current_epoch != rr.first_job_batches) ||
      first.num_update_steps_per_epoch != second.num_update_steps_per_epoch) {
    out.push_back(
        "global_step " + std::to_string(r.global_step) + " is epoch " + std::to_string(rr.first_job_epoch) + " after " +
        std::to_string(rr.first_job_batches) + " batches in the first job (len(train_dataloader) " +
        std::to_string(first.steps_in_epoch) + ", " + std::to_string(first.num_update_steps_per_epoch) +
        " optimizer steps per epoch); the resumed job derives the position from its own len(train_dataloader) " +
        std::to_string(second.steps_in_epoch) + " (" + std::to_string(second.num_update_steps_per_epoch) +
        " steps per epoch): epoch " + std::to_string(rr.position.epochs_trained) + ", skipping " +
        std::to_string(rr.position.steps_trained_in_current_epoch) +
        " batches. Trainer only warns when the world size changed (and not at all for the batch size or "
        "accumulation)");
  }
  if (c.iterable && !c.iterable_has_len) {
    const std::int64_t pass = sim::iterable_pass_length(c, false);
    out.push_back("the IterableDataset has no __len__: Trainer counts num_update_steps_per_epoch = max_steps (" +
                  std::to_string(first.max_steps) + "), so it resumes at epoch " +
                  std::to_string(rr.position.epochs_trained) + " and skips " +
                  std::to_string(rr.position.steps_trained_in_current_epoch) +
                  " batches of its first pass, whatever passes of " + std::to_string(pass) +
                  " batches per rank the first job made before the checkpoint" +
                  (rr.position.steps_trained_in_current_epoch >= pass && pass > 0
                       ? ": the skip runs past that pass, and the resumed job starts again at the head of a pass"
                       : ""));
  }
  if (r.ignore_data_skip && rr.first_job_batches > 0) {
    out.push_back("ignore_data_skip=True: the resumed epoch starts from its first batch, so the " +
                  std::to_string(rr.first_job_batches) +
                  " batches per rank trained before the checkpoint are trained again");
  }
  if (!c.job.prepare.use_seedable_sampler && c.job.loader.shuffle && c.job.prepare.num_processes > 1) {
    out.push_back(
        "use_seedable_sampler=False on several processes: each epoch's RandomSampler order comes from the "
        "generator Accelerate synchronises at every pass, which a resumed job re-seeds differently");
  }
  if (second.max_steps != first.max_steps) {
    out.push_back("the resumed job's max_steps is " + std::to_string(second.max_steps) + " (the first job's " +
                  std::to_string(first.max_steps) +
                  "): it ends at another global step, and its learning-rate schedule "
                  "is rebuilt for that length");
  }
  if (out.empty()) out.push_back("the batches differ from the uninterrupted job's after the checkpoint");
  return out;
}

void collect_findings(TrainerReport& report) {
  auto& out = report.findings;
  const auto& j = report.job;
  if (report.error && report.error->type == "Hang") {
    const auto& c = report.config;
    out.push_back(Warning(code::kTrainerNeverSteps, Severity::Error,
                          "train() never returns: a pass of the IterableDataset yields " +
                              std::to_string(sim::iterable_pass_length(c, false)) +
                              " batches per rank, fewer than gradient_accumulation_steps " +
                              std::to_string(c.loop.gradient_accumulation_steps) +
                              ", and without __len__ a pass's end is no accumulation boundary: no optimizer step is "
                              "ever taken and Trainer starts pass after pass")
                      .with("gradient_accumulation_steps", c.loop.gradient_accumulation_steps));
  } else if (report.error) {
    out.push_back(Warning(code::kRejectedConfig, Severity::Error,
                          report.error->type + " in " + report.error->where + ": " + report.error->message));
  }
  if (const auto& r = report.resume) {
    if (r->error) {
      out.push_back(
          Warning(code::kResumeError, Severity::Error,
                  "the resumed job raises " + r->error->type + " before its first batch: " + r->error->message)
              .with("global_step", r->spec.global_step));
    } else if (!r->outcome.identical) {
      out.push_back(Warning(kResumeNotIdentical, Severity::Warning,
                            "resuming from checkpoint-" + std::to_string(r->spec.global_step) + " trains " +
                                std::to_string(r->outcome.extra.count) +
                                " sample occurrences the uninterrupted run "
                                "would not and misses " +
                                std::to_string(r->outcome.missing.count) + "; " + r->recipe.statement)
                        .with("extra", r->outcome.extra.count)
                        .with("missing", r->outcome.missing.count));
    }
    if (r->past_end) {
      out.push_back(Warning(code::kResumePastEnd, Severity::Note,
                            "global_step " + std::to_string(r->spec.global_step) +
                                " is at or past the first job's max_steps " + std::to_string(j.schedule.max_steps) +
                                ": the resumed job has nothing left to train")
                        .with("max_steps", j.schedule.max_steps));
    }
  }
  if (!report.error && !j.lockstep) {
    out.push_back(Warning(code::kUnevenStepsHang, Severity::Error,
                          "ranks take different numbers of optimizer steps (even_batches=False): the rank with more "
                          "waits in a gradient all-reduce the others never join"));
  }
  if (j.epoch_duplicated > 0) {
    out.push_back(Warning(code::kDuplicatedSamples, Severity::Warning,
                          std::to_string(j.epoch_duplicated) +
                              " sample occurrences per epoch are duplicates "
                              "(even_batches pads the last batch from the epoch's start)")
                      .with("duplicated", j.epoch_duplicated));
  }
  if (j.epoch_dropped > 0 && report.config.loop.max_steps < 0) {
    out.push_back(Warning(code::kDroppedSamples, Severity::Warning,
                          std::to_string(j.epoch_dropped) + " samples per epoch are never trained on "
                                                            "(dataloader_drop_last)")
                      .with("dropped", j.epoch_dropped));
  }
  if (report.evaluation) out.insert(out.end(), report.evaluation->findings.begin(), report.evaluation->findings.end());
  std::stable_sort(out.begin(), out.end(), [](const Warning& a, const Warning& b) { return a.severity < b.severity; });
  if (!out.empty() && out.front().severity != Severity::Note) {
    const auto& f = out.front();
    report.verdict =
        std::string(severity_name(f.severity)) + "[" + f.code + "]: " + f.message.substr(0, f.message.find(';'));
  } else {
    report.verdict = "every optimizer step trains distinct samples, ranks in lock-step";
    if (report.resume) report.verdict += "; resume exact";
    if (report.evaluation) report.verdict += "; evaluation exact";
  }
}

}  // namespace

ResumeOutcome compare_trainer_resume(const TrainerCase& c) {
  const Simulated s = simulated(c);
  return compare(c, s.trace, s.epochs);
}

TrainerReport trainer_what_if(const TrainerCase& c) {
  TrainerReport report;
  report.config = c;
  if (c.evaluation) report.evaluation = trainer_evaluation_report(*c.evaluation);
  // Without a resume the summary is all the report needs of the job: in closed form where it holds, else replayed.
  const auto closed = trainer_job_closed_form(c);
  const Simulated s = closed ? Simulated{} : simulated(c);
  report.job = closed ? *closed : summarize(c, s.trace, s.epochs, false);
  if (!closed) {
    if (const auto* e = first_job_error(c, s.trace)) report.error = *e;
  }
  report.notes.push_back(
      "Trainer's learning-rate scheduler is not an AcceleratedScheduler: it steps once per optimizer step on every "
      "process whatever num_processes is, over num_training_steps = max_steps (" +
      std::to_string(report.job.schedule.max_steps) + ")");
  if (report.job.short_last_step_batches > 0) {
    report.notes.push_back(
        "each epoch ends with a short optimizer step of " + std::to_string(report.job.short_last_step_batches) +
        " micro-batch(es): len(train_dataloader) " + std::to_string(report.job.schedule.steps_in_epoch) +
        " is not a multiple of " + std::to_string(report.job.gradient_accumulation_steps));
  }
  if (!c.resume || report.error) {
    collect_findings(report);
    return report;
  }
  TrainerResumeReport rr;
  rr.spec = *c.resume;
  const auto& first = report.job.schedule;
  try {
    rr.resumed_job = summarize(c, s.trace, s.epochs, true);
    rr.position = resume_position(c.resume->global_step, rr.resumed_job.schedule, c.resume->ignore_data_skip);
  } catch (const AccelerateError&) {
    // Accelerate rejects the resumed job's loader (its shape): the trace holds that error, reported below.
    rr.resumed_job.num_processes = c.resume->num_processes;
    rr.resumed_job.per_device_batch_size = c.resume->per_device_train_batch_size;
    rr.resumed_job.gradient_accumulation_steps = c.resume->gradient_accumulation_steps;
  }
  const TrainerResumePosition in_first = resume_position(c.resume->global_step, first, false);
  rr.first_job_epoch = in_first.epochs_trained;
  rr.first_job_batches = in_first.steps_trained_in_current_epoch;
  if (c.iterable && !c.iterable_has_len && !s.trace.ranks.empty()) {
    // Without __len__ Trainer's arithmetic says nothing of where the first job was: its pass is the step's epoch.
    const auto& steps = s.trace.ranks.front().steps;
    for (std::size_t i = 0; i < steps.size() && i < s.epochs.first.front().size(); ++i) {
      if (steps[i].global_step == c.resume->global_step) rr.first_job_pass = s.epochs.first.front()[i];
    }
  }
  rr.past_end = c.resume->global_step >= first.max_steps;
  if (const auto* e = resumed_job_error(c, s.trace)) {
    rr.error = *e;
    rr.outcome.identical = false;
    rr.reasons.push_back("the resumed job raises " + e->type + " before its first batch: " + e->message);
    if (e->message == kIndexedCpuRestoreError) {
      rr.reasons.push_back(
          "transformers 4.57 loads the optimizer state with map_location=\"cpu:0\" on a CPU process "
          "group; on GPUs (cuda:N) the same resume runs, and 5.x maps to \"cpu\"");
    }
    report.resume = std::move(rr);
    collect_findings(report);
    return report;
  }
  rr.outcome = compare(c, s.trace, s.epochs);
  if (!rr.outcome.identical) {
    rr.reasons = reasons(c, report, rr);
    rr.recipe = find_recipe(c);
  }
  report.resume = std::move(rr);
  collect_findings(report);
  return report;
}

CheckReport judge_trainer(const TrainerReport& report, const std::vector<std::string>& requirements) {
  CheckReport out;
  const auto& j = report.job;
  const std::string first_epoch = "the first epoch";
  for (const std::string& name : requirements) {
    if (name == "no-duplicates" || name == "full-coverage") {
      out.outcomes.push_back({"no-duplicates", first_epoch, j.epoch_duplicated == 0,
                              j.epoch_duplicated ? std::to_string(j.epoch_duplicated) +
                                                       " sample occurrences are duplicates (even_batches padding)"
                                                 : ""});
    }
    if (name == "no-drops" || name == "full-coverage") {
      out.outcomes.push_back(
          {"no-drops", first_epoch, j.epoch_dropped == 0,
           j.epoch_dropped ? std::to_string(j.epoch_dropped) + " samples are never trained on" : ""});
    }
    if (name == "lockstep") {
      out.outcomes.push_back(
          {"lockstep", "every epoch", j.lockstep, j.lockstep ? "" : "ranks take different numbers of optimizer steps"});
    }
    if (name == "exact-resume") {
      if (!report.resume) {
        throw std::invalid_argument("exact-resume: give --resume-at-step G (the checkpoint's global step)");
      }
      const auto& r = *report.resume;
      std::string evidence;
      if (r.error) {
        evidence = "the resumed job raises " + r.error->type + ": " + r.error->message;
      } else if (!r.outcome.identical) {
        evidence = std::to_string(r.outcome.extra.count) + " extra and " + std::to_string(r.outcome.missing.count) +
                   " missing sample occurrences after global step " + std::to_string(r.spec.global_step) + ". " +
                   r.recipe.statement;
      }
      out.outcomes.push_back({"exact-resume", "resumed job", !r.error && r.outcome.identical, evidence});
    }
    if (name == kExactMetrics) {
      if (!report.evaluation) {
        throw std::invalid_argument("exact-metrics: give --eval-dataset-len N (trainer.evaluate() on an eval dataset)");
      }
      const std::string evidence = trainer_eval_evidence(*report.evaluation);
      out.outcomes.push_back({kExactMetrics, "evaluate()", evidence.empty(), evidence});
    }
    if (name != "no-duplicates" && name != "no-drops" && name != "full-coverage" && name != "lockstep" &&
        name != "exact-resume" && name != kExactMetrics) {
      throw std::invalid_argument("'" + name +
                                  "' is not judged for a Trainer job; one of no-duplicates, no-drops, "
                                  "full-coverage, lockstep, exact-resume, exact-metrics");
    }
  }
  return out;
}

}  // namespace accel::analysis
