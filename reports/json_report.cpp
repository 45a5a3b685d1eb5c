#include "json_report.hpp"

#include <limits>

#include "core/torch_seed.hpp"
#include "reports/warning_render.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {
namespace {

using Json = nlohmann::ordered_json;

// A Python int as a JSON number when it fits int64, else as its decimal text.
Json python_int(const std::optional<PythonInt>& v) {
  if (!v) return nullptr;
  if (*v >= std::numeric_limits<std::int64_t>::min() && *v <= std::numeric_limits<std::int64_t>::max()) {
    return static_cast<std::int64_t>(*v);
  }
  return to_string(*v);
}

template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json pass_json(const analysis::PassFigures& p) {
  Json o;
  o["pass"] = p.pass;
  o["loader"] = p.loader;
  o["steps_per_rank"] = p.steps_per_rank;
  o["min_steps"] = p.min_steps;
  o["max_steps"] = p.max_steps;
  o["samples_yielded"] = p.samples_yielded;
  o["duplicated"] = p.duplicated;
  o["dropped"] = p.dropped;
  o["ids_drawn"] = p.ids_drawn;
  o["repeated_samples"] = p.repeated;
  o["duplicated_ids"] = p.duplicated_ids.first_ids(10);
  o["duplicated_id_ranges"] = trace::id_ranges_json(p.duplicated_ids);
  o["dropped_ids"] = p.dropped_ids.first_ids(10);
  o["dropped_id_ranges"] = trace::id_ranges_json(p.dropped_ids);
  o["method"] = p.method;
  return o;
}

}  // namespace

Json render_input(const trace::LoaderCase& c) {
  Json in;
  in["api"] = c.api;
  in["num_processes"] = c.prepare.num_processes;
  in["dataset_len"] = c.loader.dataset_len;
  in["dataset_kind"] = c.loader.hf_dataset              ? "hf-iterable"
                       : c.loader.hf_map_shuffle_seed ? "hf-map"
                       : c.loader.dataset_kind == DatasetKind::Map ? "map"
                                                                    : "iterable";
  in["hf_shuffle_seed"] = c.loader.hf_dataset && c.loader.hf_dataset->shuffle_options()
                              ? Json(c.loader.hf_dataset->shuffle_options()->seed)
                              : optional_json(c.loader.hf_map_shuffle_seed);
  in["batch_size"] = c.loader.batch_size;
  in["drop_last"] = c.loader.drop_last;
  in["shuffle"] = c.loader.shuffle;
  in["replacement"] = c.loader.replacement;
  in["num_samples"] = optional_json(c.loader.num_samples);
  in["generator_seed"] = optional_json(c.loader.generator_seed);
  in["dataset_generator_seed"] = optional_json(c.loader.dataset_generator_seed);
  in["num_workers"] = c.loader.workers.num_workers;
  in["worker_split"] = worker_split_name(c.loader.workers.split);
  in["persistent_workers"] = c.loader.workers.persistent_workers;
  in["split_batches"] = c.prepare.split_batches;
  in["even_batches"] = c.prepare.even_batches;
  in["dispatch_batches"] = optional_json(c.prepare.dispatch_batches);
  in["dispatch_batches_resolved"] = resolve_dispatch_batches(c.loader, c.prepare);
  in["put_on_device"] = c.prepare.put_on_device;
  in["use_seedable_sampler"] = c.prepare.use_seedable_sampler;
  in["data_seed"] = python_int(c.prepare.data_seed);
  in["seed"] = python_int(c.torch_manual_seed);
  in["seed_per_rank"] = c.seed_per_rank;
  in["synchronize_generator"] = c.prepare.synchronize_generator;
  in["torch_version"] = c.prepare.torch_version == TorchVersion::v1_13 ? "1.13" : "2.6";
  in["epochs"] = c.epochs;
  Json roles = Json::array();
  for (const auto role : c.schedule) roles.push_back(role == trace::LoaderRole::Skipped ? "skipped" : "prepared");
  in["schedule"] = std::move(roles);
  in["set_epoch"] = optional_json(c.set_epoch);
  in["skip_first_batches"] = optional_json(c.skip_first_batches);
  in["multiprocess"] = c.multiprocess;
  if (c.accelerator) {
    const auto& a = *c.accelerator;
    Json acc;
    acc["device_placement"] = a.device_placement;
    acc["rng_types_include_generator"] = a.rng_types_include_generator.value_or(true);
    acc["non_blocking"] = a.dataloader_config.non_blocking;
    acc["use_stateful_dataloader"] = a.dataloader_config.use_stateful_dataloader;
    acc["xla"] = a.xla;
    in["accelerator"] = std::move(acc);
  } else {
    in["accelerator"] = nullptr;
  }
  return in;
}

nlohmann::ordered_json render_json(const analysis::WhatIfReport& r) {
  Json j;
  j["report_version"] = kReportVersion;
  j["versions"] = {{"accel_sim", r.accel_sim_version},
                   {"accelerate", r.accelerate_version},
                   {"torch_shuffle", r.torch_version}};
  j["command_line"] = r.command_line.empty() ? Json(nullptr) : Json(r.command_line);
  j["input"] = r.scenarios.empty() ? Json(nullptr) : render_input(r.scenarios.front().config);
  j["api"] = r.api;
  j["accelerate_version"] = r.accelerate_version;
  j["num_processes"] = r.num_processes;
  if (r.mesh) {
    Json m;
    Json dims = Json::array();
    for (const MeshDim& d : r.mesh->mesh.dims) dims.push_back({d.name, d.size});
    m["dims"] = dims;
    m["world"] = r.mesh->world;
    m["deepspeed"] = r.mesh->deepspeed;
    m["rejected"] = r.mesh->rejected ? Json(*r.mesh->rejected) : Json(nullptr);
    m["data_ranks"] = r.mesh->data_ranks;
    m["arithmetic"] = r.mesh->arithmetic;
    Json receivers = Json::array();
    for (const auto& ranks : r.mesh->receivers) receivers.push_back(ranks);
    m["receivers"] = receivers;
    m["lost_on_skip"] = r.mesh->lost_on_skip;
    j["mesh"] = m;
  } else {
    j["mesh"] = nullptr;
  }
  if (r.hf_dataset) {
    const analysis::HfDatasetReport& h = *r.hf_dataset;
    j["hf_dataset"] = {{"datasets_version", h.datasets_version},
                       {"num_shards", h.num_shards},
                       {"n_shards", h.n_shards},
                       {"shuffled", h.shuffled},
                       {"split_by_node", h.split_by_node},
                       {"path", h.path},
                       {"path_text", h.path_text},
                       {"shards_per_rank", h.shards_per_rank},
                       {"examples_per_rank", h.examples_per_rank}};
  } else {
    j["hf_dataset"] = nullptr;
  }
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
    o["ids_drawn"] = s.ids_drawn;
    o["duplicated_ids"] = s.coverage.duplicated_ids.first_ids(32);
    o["duplicated_id_ranges"] = trace::id_ranges_json(s.coverage.duplicated_ids);
    o["dropped"] = c.dropped;
    o["dropped_ids"] = s.coverage.dropped_ids.first_ids(32);
    o["dropped_id_ranges"] = trace::id_ranges_json(s.coverage.dropped_ids);
    o["resumed_from"] = s.resumed_from;
    o["not_seen_before_resume"] = c.before_resume;
    o["ranks_share_order"] = s.ranks_share_order;
    o["method"] = analysis::method_text(s);
    scenarios.push_back(std::move(o));
  }
  j["scenarios"] = std::move(scenarios);
  j["warnings"] = warnings_json(r.warnings);
  Json passes = Json::array();
  for (const auto& p : r.passes.passes) passes.push_back(pass_json(p));
  j["passes"] = {{"epochs", r.passes.epochs},
                 {"computed", static_cast<std::int64_t>(r.passes.passes.size())},
                 {"note", r.passes.note.empty() ? Json(nullptr) : Json(r.passes.note)},
                 {"per_pass", std::move(passes)}};
  return j;
}

nlohmann::ordered_json render_training_input(const analysis::TrainingSummary& t) {
  Json j;
  j["schedule"] = t.schedule;
  j["schedule_length"] = optional_json(t.schedule_length);
  j["initial_lr"] = t.initial_lr;
  j["gradient_accumulation_steps"] = t.gradient_accumulation_steps;
  j["num_processes"] = t.num_processes;
  j["split_batches"] = t.split_batches;
  j["epochs"] = static_cast<std::int64_t>(t.epochs.size());
  return j;
}

nlohmann::ordered_json render_training_json(const analysis::TrainingSummary& t) {
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
  j["warnings"] = warnings_json(t.warnings);
  Json curve = Json::array();
  for (const auto& p : t.lr_curve) curve.push_back({p.optimizer_step, p.lr});
  j["lr_curve"] = std::move(curve);
  return j;
}

}  // namespace accel::reports
