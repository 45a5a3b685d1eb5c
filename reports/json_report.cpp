#include "json_report.hpp"

namespace accel::reports {

nlohmann::ordered_json render_json(const analysis::WhatIfReport& r) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["report_version"] = kReportVersion;
  j["api"] = r.api;
  j["accelerate_version"] = r.accelerate_version;
  j["num_processes"] = r.num_processes;
  j["dataset_len"] = r.dataset_len;
  j["dataset_kind"] = r.dataset_kind;
  j["order"] = r.order;
  j["torch_version"] = r.torch_version;
  j["randperm_loop"] = r.randperm_loop.empty() ? Json(nullptr) : Json(r.randperm_loop);
  j["order_differs_every_run"] = r.unseeded_shuffle;
  if (r.launch) {
    Json l;
    l["config_file"] = r.launch->config_file.empty() ? Json(nullptr) : Json(r.launch->config_file);
    l["used"] = r.launch->used;
    l["ignored"] = r.launch->ignored;
    l["mixed_precision"] = r.launch->mixed_precision;
    l["use_cpu"] = r.launch->use_cpu;
    j["launch"] = std::move(l);
  } else {
    j["launch"] = nullptr;
  }
  Json scenarios = Json::array();
  for (const analysis::Scenario& s : r.scenarios) {
    Json o;
    o["label"] = s.label;
    o["flags"] = s.flags;
    o["rejected"] = s.rejected ? Json(*s.rejected) : Json(nullptr);
    o["iteration_error"] = s.iteration_error ? Json(*s.iteration_error) : Json(nullptr);
    o["loader_class"] = s.loader_class;
    o["steps_per_rank"] = s.batches_per_rank;
    o["len_per_rank"] = s.len_per_rank;
    o["min_steps"] = s.min_steps;
    o["max_steps"] = s.max_steps;
    o["short_ranks"] = s.short_ranks;
    o["waiting_ranks"] = s.waiting_ranks;
    o["len_mismatch_ranks"] = s.len_mismatch_ranks;
    const auto& c = s.coverage.counts;
    o["samples_yielded"] = c.yielded;
    o["distinct_samples"] = c.distinct;
    o["duplicated"] = c.duplicated;
    o["repeated_samples"] = c.repeated;
    o["max_times_seen"] = c.max_times;
    o["duplicated_ids"] = s.coverage.duplicated_ids;
    o["dropped"] = c.dropped;
    o["dropped_ids"] = s.coverage.dropped_ids;
    o["resumed_from"] = s.resumed_from;
    o["not_seen_before_resume"] = c.before_resume;
    o["ranks_share_order"] = s.ranks_share_order;
    o["method"] = analysis::method_text(s);
    scenarios.push_back(std::move(o));
  }
  j["scenarios"] = std::move(scenarios);
  j["warnings"] = r.warnings;
  return j;
}

nlohmann::ordered_json render_training_json(const analysis::TrainingSummary& t) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["schedule"] = t.schedule;
  j["gradient_accumulation_steps"] = t.gradient_accumulation_steps;
  j["scheduler_steps_per_optimizer_step"] = t.steps_per_optimizer_step;
  j["schedule_length"] = t.schedule_length ? Json(*t.schedule_length) : Json(nullptr);
  j["schedule_ends_after_optimizer_step"] = t.schedule_end_optimizer_step ? Json(*t.schedule_end_optimizer_step) : Json(nullptr);
  j["optimizer_steps"] = t.optimizer_steps;
  Json epochs = Json::array();
  for (const auto& e : t.epochs) {
    Json o;
    o["epoch"] = e.epoch;
    o["micro_steps"] = e.micro_steps;
    o["optimizer_steps"] = e.optimizer_steps;
    o["skipped_steps"] = e.skipped_steps;
    o["scheduler_steps"] = e.scheduler_steps;
    o["last_epoch"] = e.last_epoch_end;
    o["lr"] = e.lr_end;
    epochs.push_back(std::move(o));
  }
  j["epochs"] = std::move(epochs);
  j["error"] = t.error ? Json(t.error->type + ": " + t.error->message) : Json(nullptr);
  j["lr_end"] = t.lr_end;
  j["corrected_total_steps"] = t.corrected_total_steps ? Json(*t.corrected_total_steps) : Json(nullptr);
  j["corrected_warmup"] = t.corrected_warmup ? Json(*t.corrected_warmup) : Json(nullptr);
  j["warnings"] = t.warnings;
  return j;
}

}  // namespace accel::reports
