#include "reports/trainer_render.hpp"

#include <algorithm>
#include <sstream>

#include "reports/resume_render.hpp"
#include "reports/text_table.hpp"
#include "reports/warning_render.hpp"

namespace accel::reports {
namespace {

std::string sampler_text(const trace::TrainerCase& c) {
  if (c.iterable) {
    const auto& d = c.job.prepare.dispatch_batches;
    return std::string("none (an IterableDataset") + (c.iterable_has_len ? " with __len__" : ", no __len__") +
           (c.iterable_set_epoch ? ", set_epoch(epoch) before each pass" : "") + "), " +
           (d.value_or(true) ? "DataLoaderDispatcher (rank 0 reads every batch and sends each rank its slice)"
                             : "IterableDatasetShard (every rank reads the stream and keeps its slice)") +
           "; dataloader_drop_last is not applied to it";
  }
  if (c.job.loader.length_grouping) {
    return "LengthGroupedSampler (group_by_length: batches of " +
           std::to_string(c.job.loader.length_grouping->batch_size) +
           " samples, sorted by length within megabatches of up to 50 batches, drawn from torch's global generator)";
  }
  if (!c.job.loader.shuffle) return "SequentialSampler (train_sampling_strategy=\"sequential\")";
  if (c.job.prepare.use_seedable_sampler) {
    return "SeedableRandomSampler (accelerator_config.use_seedable_sampler), seeded with " +
           std::string(c.job.prepare.data_seed ? "data_seed" : "seed");
  }
  return "RandomSampler (use_seedable_sampler=False)";
}

std::string job_line(const analysis::TrainerJobSummary& j, bool without_length = false) {
  std::ostringstream os;
  if (without_length) {
    os << j.num_processes << (j.num_processes == 1 ? " process" : " processes") << " x per_device_train_batch_size "
       << j.per_device_batch_size << " x gradient_accumulation_steps " << j.gradient_accumulation_steps
       << ": no len(train_dataloader), so an epoch is one pass of the stream and num_update_steps_per_epoch is "
          "max_steps "
       << j.schedule.max_steps;
    return os.str();
  }
  os << j.num_processes << (j.num_processes == 1 ? " process" : " processes") << " x per_device_train_batch_size "
     << j.per_device_batch_size << " x gradient_accumulation_steps " << j.gradient_accumulation_steps
     << ": len(train_dataloader) " << j.schedule.steps_in_epoch << ", " << j.schedule.num_update_steps_per_epoch
     << " optimizer steps per epoch, max_steps " << j.schedule.max_steps;
  return os.str();
}

trace::Json job_json(const analysis::TrainerJobSummary& j) {
  return {{"num_processes", j.num_processes},
          {"per_device_train_batch_size", j.per_device_batch_size},
          {"gradient_accumulation_steps", j.gradient_accumulation_steps},
          {"len_train_dataloader", j.schedule.steps_in_epoch},
          {"num_update_steps_per_epoch", j.schedule.num_update_steps_per_epoch},
          {"max_steps", j.schedule.max_steps},
          {"num_train_epochs", j.schedule.num_train_epochs},
          {"optimizer_steps", j.optimizer_steps},
          {"last_global_step", j.last_global_step},
          {"lockstep", j.lockstep},
          {"short_last_step_batches", j.short_last_step_batches},
          {"epoch_duplicated", j.epoch_duplicated},
          {"epoch_dropped", j.epoch_dropped},
          {"unsynced_batches", j.unsynced_batches}};
}

std::string eval_sampler_text(const trace::TrainerEvalCase& e) {
  if (const auto& g = e.loader.loader.length_grouping) {
    return "LengthGroupedSampler(" + std::to_string(g->batch_size) + ") " +
           (g->generator_seed ? "seeded with " + std::to_string(*g->generator_seed) + " (the same order every call)"
                              : std::string("drawing from torch's global generator (a new order every call)"));
  }
  return "sequential";
}

void render_evaluation(std::ostream& os, const analysis::TrainerEvalReport& e) {
  const auto& c = e.config;
  os << "\nEvaluation: trainer.evaluate()" << (c.num_evaluations > 1 ? " x" + std::to_string(c.num_evaluations) : "")
     << " on " << e.dataset_len << " eval samples, " << c.loader.prepare.num_processes << " process(es) x "
     << "per_device_eval_batch_size " << c.options.eval_batch_size << ", "
     << (c.options.compute_metrics ? "compute_metrics (predictions gathered)" : "loss only (no compute_metrics)")
     << "\n";
  os << "  eval loader: " << eval_sampler_text(c) << "; even_batches=" << (c.loader.prepare.even_batches ? "True" : "False")
     << ", split_batches=" << (c.loader.prepare.split_batches ? "True" : "False")
     << ", dispatch_batches=" << (c.loader.prepare.dispatch_batches.value_or(false) ? "True" : "False")
     << ", dataloader_drop_last=" << (c.loader.loader.drop_last ? "True" : "False")
     << (c.options.use_gather_object ? ", eval_use_gather_object=True (first call only)" : "") << "\n";
  for (const auto& call : e.calls) {
    os << "  call " << call.index << ": batches per rank ";
    for (std::size_t r = 0; r < call.batches_per_rank.size(); ++r) os << (r ? ", " : "") << call.batches_per_rank[r];
    if (!call.failures.empty()) {
      os << "; fails:";
      for (const auto& f : call.failures) os << " rank " << f.rank << " " << f.type << ";";
      os << "\n";
      continue;
    }
    if (!call.reporting_rank) {
      os << "; no step ran: no eval_loss\n";
      continue;
    }
    os << "; " << call.loss_values << " loss values gathered";
    if (call.predictions) {
      os << "; predictions: "
         << (call.predictions_exact ? std::string("every sample once")
                                    : std::to_string(*call.predictions) + " (" + std::to_string(call.missing_count) +
                                          " samples missing, " + std::to_string(call.duplicated_count) + " duplicated)");
    }
    os << "; eval_loss: "
       << (call.loss_exact ? std::string("the mean over the samples")
                           : "weighs " + std::to_string(call.overweighted_count) + " ids above and " +
                                 std::to_string(call.underweighted_count) + " below the others");
    os << "\n";
  }
  if (e.exact_alternative) os << "  exact alternative: " << *e.exact_alternative << "\n";
}

trace::Json ranges_json(const IdRanges& ids, std::int64_t count) {
  return {{"count", count}, {"id_ranges", trace::id_ranges_json(ids)}};
}

trace::Json evaluation_json(const analysis::TrainerEvalReport& e) {
  const auto& c = e.config;
  trace::Json j;
  j["dataset_len"] = e.dataset_len;
  j["num_processes"] = c.loader.prepare.num_processes;
  j["per_device_eval_batch_size"] = c.options.eval_batch_size;
  j["compute_metrics"] = c.options.compute_metrics;
  j["eval_do_concat_batches"] = c.options.concat_batches;
  j["eval_use_gather_object"] = c.options.use_gather_object;
  j["num_evaluations"] = c.num_evaluations;
  j["exact"] = e.exact();
  j["exact_alternative"] = e.exact_alternative ? trace::Json(*e.exact_alternative) : trace::Json(nullptr);
  trace::Json calls = trace::Json::array();
  for (const auto& call : e.calls) {
    trace::Json cj;
    cj["call"] = call.index;
    cj["gather_object"] = call.gather_object;
    cj["batches_per_rank"] = call.batches_per_rank;
    trace::Json failures = trace::Json::array();
    for (const auto& f : call.failures) failures.push_back({{"rank", f.rank}, {"type", f.type}, {"message", f.message}});
    cj["failures"] = std::move(failures);
    cj["loss_values"] = call.loss_values;
    cj["predictions"] = call.predictions ? trace::Json(*call.predictions) : trace::Json(nullptr);
    cj["missing_predictions"] = ranges_json(call.missing_predictions, call.missing_count);
    cj["duplicated_predictions"] = ranges_json(call.duplicated_predictions, call.duplicated_count);
    cj["overweighted_in_eval_loss"] = ranges_json(call.overweighted, call.overweighted_count);
    cj["underweighted_in_eval_loss"] = ranges_json(call.underweighted, call.underweighted_count);
    cj["predictions_exact"] = call.predictions_exact;
    cj["eval_loss_exact"] = call.loss_exact;
    cj["exact"] = call.exact();
    calls.push_back(std::move(cj));
  }
  j["calls"] = std::move(calls);
  return j;
}

}  // namespace

std::string render_trainer_terminal(const analysis::TrainerReport& r) {
  const auto& c = r.config;
  std::ostringstream os;
  os << r.verdict << "\n\n";
  os << "transformers.Trainer " << c.version
     << (c.version != release_name(c.release)
             ? std::string(" (") + release_name(c.release) + "'s rules, recorded alike)"
             : std::string())
     << ", Accelerate " << c.job.prepare.release.name() << " on " << c.job.loader.dataset_len << " samples, "
     << (c.loop.max_steps > 0 ? "max_steps " + std::to_string(c.loop.max_steps)
                              : std::to_string(c.loop.num_train_epochs) + " epochs")
     << "\n";
  os << "  train sampler: " << sampler_text(c) << "; even_batches=" << (c.job.prepare.even_batches ? "True" : "False")
     << ", split_batches=" << (c.job.prepare.split_batches ? "True" : "False")
     << ", dataloader_drop_last=" << (c.job.loader.drop_last ? "True" : "False") << "\n";
  const bool no_len = c.iterable && !c.iterable_has_len;
  os << "  first job: " << job_line(r.job, no_len) << "\n";
  os << "  it takes " << r.job.optimizer_steps << " optimizer steps (global steps 1.." << r.job.last_global_step << ")"
     << (r.job.lockstep ? ", every rank the same" : ", NOT the same on every rank") << "\n";
  for (const auto& n : r.notes) os << "  note: " << n << "\n";
  if (r.resume) {
    const auto& rr = *r.resume;
    os << "\nResume from checkpoint-" << rr.spec.global_step
       << (rr.spec.ignore_data_skip ? " with ignore_data_skip" : "") << "\n";
    if (rr.error) {
      os << "  resumed job: " << rr.resumed_job.num_processes << " processes x per_device_train_batch_size "
         << rr.resumed_job.per_device_batch_size << " x gradient_accumulation_steps "
         << rr.resumed_job.gradient_accumulation_steps << "\n";
    } else {
      os << "  resumed job: " << job_line(rr.resumed_job, no_len) << "\n";
    }
    if (rr.past_end) {
      os << "  global step " << rr.spec.global_step << " is past the first job's last step " << r.job.last_global_step
         << ": the resumed job computes epoch " << rr.position.epochs_trained << " (of "
         << r.job.schedule.num_train_epochs << "), so its epoch loop is empty and it trains nothing\n";
    } else {
      if (rr.first_job_pass) {
        os << "  the first job was in pass " << *rr.first_job_pass << " at the checkpoint; Trainer's arithmetic (epoch "
           << rr.first_job_epoch << " after " << rr.first_job_batches << " batches)";
      } else {
        os << "  the checkpoint is epoch " << rr.first_job_epoch << " after " << rr.first_job_batches
           << " batches per rank in the first job";
      }
      if (!rr.error) {
        os << "; the resumed job starts epoch " << rr.position.epochs_trained << " skipping "
           << rr.position.steps_trained_in_current_epoch << " batches and ends at global step "
           << std::max(rr.resumed_job.last_global_step, rr.spec.global_step)
           << " (uninterrupted: " << r.job.last_global_step << ")";
      }
      os << "\n";
    }
    if (!rr.error) os << render_resume_outcome(rr.outcome);
    for (const auto& why : rr.reasons) os << "  why: " << why << "\n";
    if (rr.recipe.needed) os << "  recipe: " << rr.recipe.statement << "\n";
  }
  if (r.evaluation) render_evaluation(os, *r.evaluation);
  if (!r.findings.empty()) os << "\n" << warning_lines(r.findings) << "\n";
  return os.str();
}

trace::Json render_trainer_json(const analysis::TrainerReport& r, const trace::Json& input) {
  trace::Json j;
  j["api"] = "trainer";
  j["transformers_version"] = r.config.version;
  j["transformers_rules"] = release_name(r.config.release);
  j["verdict"] = r.verdict;
  j["input"] = input;
  j["findings"] = warnings_json(r.findings);
  j["error"] = r.error ? error_record_json(*r.error) : trace::Json(nullptr);
  j["job"] = job_json(r.job);
  j["notes"] = r.notes;
  j["evaluation"] = r.evaluation ? evaluation_json(*r.evaluation) : trace::Json(nullptr);
  if (!r.resume) {
    j["resume"] = nullptr;
    return j;
  }
  const auto& rr = *r.resume;
  trace::Json res;
  res["global_step"] = rr.spec.global_step;
  res["ignore_data_skip"] = rr.spec.ignore_data_skip;
  res["first_job_position"] = {{"epoch", rr.first_job_epoch}, {"batches", rr.first_job_batches}};
  res["position"] = {{"epochs_trained", rr.position.epochs_trained},
                     {"steps_trained_in_current_epoch", rr.position.steps_trained_in_current_epoch}};
  res["past_end"] = rr.past_end;
  res["first_job_pass"] = rr.first_job_pass ? trace::Json(*rr.first_job_pass) : trace::Json(nullptr);
  res["resumed_job"] = job_json(rr.resumed_job);
  res["error"] = rr.error ? error_record_json(*rr.error) : trace::Json(nullptr);
  put_resume_outcome_json(res, rr.outcome);
  res["reasons"] = rr.reasons;
  res["recipe"] = render_recipe_json(rr.recipe);
  j["resume"] = std::move(res);
  return j;
}

}  // namespace accel::reports
