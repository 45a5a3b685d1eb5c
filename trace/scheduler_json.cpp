#include "scheduler_json.hpp"

#include "config_fields.hpp"
#include "core/torch_release.hpp"

#include <string>

namespace accel::trace {
namespace {

ScheduleSpec parse_schedule_fields(const Fields& f) {
  const std::string kind = f.string("kind");
  if (kind == "linear_warmup") {
    return LinearWarmupSchedule{f.number("base_lr", std::nullopt), f.integer("warmup_steps", std::nullopt, 0),
                                f.integer("training_steps", std::nullopt, 0)};
  }
  if (kind == "cosine_warmup") {
    return CosineWarmupSchedule{f.number("base_lr", std::nullopt), f.integer("warmup_steps", std::nullopt, 0),
                                f.integer("training_steps", std::nullopt, 0), f.number("num_cycles", 0.5)};
  }
  if (kind == "constant_warmup") {
    return ConstantWarmupSchedule{f.number("base_lr", std::nullopt), f.integer("warmup_steps", 0, 0)};
  }
  if (kind == "step") {
    return StepSchedule{f.number("base_lr", std::nullopt), f.integer("step_size", std::nullopt, 1), f.number("gamma", 0.1)};
  }
  if (kind == "onecycle_linear") {
    OneCycleLinearSchedule o;
    o.max_lr = f.number("max_lr", std::nullopt);
    o.total_steps = f.integer("total_steps", std::nullopt, 1);
    o.pct_start = f.number("pct_start", 0.3);
    if (!(o.pct_start >= 0.0 && o.pct_start <= 1.0)) f.fail_on("pct_start", "must be between 0 and 1");
    o.div_factor = f.number("div_factor", 25.0);
    o.final_div_factor = f.number("final_div_factor", 1e4);
    if (f.find("base_lr")) f.number("base_lr", std::nullopt);  // the optimizer's lr: OneCycleLR replaces it
    return o;
  }
  f.fail_on("kind", "must be linear_warmup, cosine_warmup, constant_warmup, step or onecycle_linear, got \"" + kind + "\"");
}

ScheduleSpec parse_schedule(const Json& config) {
  const Json* s = config.contains("scheduler") ? &config["scheduler"] : nullptr;
  if (!s || !s->is_object()) fail("scheduler", "is required (an object with a `kind`)");
  const Fields f(*s, "scheduler.");
  ScheduleSpec spec = parse_schedule_fields(f);
  f.refuse_unread();
  return spec;
}

Json state_json(const SchedulerState& s) {
  Json j;
  j["last_epoch"] = s.last_epoch;
  j["step_count"] = s.step_count;
  j["lr"] = s.lr;
  return j;
}

Json step_json(SchedulerApi api, const MicroStepRecord& s) {
  Json j;
  j["micro_step"] = s.micro_step;
  if (api == SchedulerApi::TrainingLoop) {
    j["epoch"] = s.epoch;
    j["batch_index"] = s.batch_index;
  }
  j["sync_gradients"] = s.sync_gradients;
  if (api == SchedulerApi::TrainingLoop) j["end_of_dataloader"] = s.end_of_dataloader;
  j["step_was_skipped"] = s.step_was_skipped;
  j["scheduler_calls"] = s.scheduler_calls;
  j["last_epoch"] = s.after.last_epoch;
  j["step_count"] = s.after.step_count;
  j["lr"] = s.after.lr;
  return j;
}

}  // namespace

SchedulerCase parse_scheduler_config(const Json& config) {
  const Fields f(config, "");
  SchedulerCase c;
  const std::string api = f.string("api");
  if (api == kSchedulerLoopApi) c.api = SchedulerApi::TrainingLoop;
  else if (api == kSchedulerDirectApi) c.api = SchedulerApi::Direct;
  else f.fail_on("api", std::string("must be \"") + kSchedulerLoopApi + "\" or \"" + kSchedulerDirectApi + "\"");
  c.num_processes = f.integer("num_processes", std::nullopt, 1, kMaxRanks);
  c.split_batches = f.boolean("split_batches", false);
  c.step_with_optimizer = f.boolean("step_with_optimizer", true);
  (void)f.find("scheduler");  // read as its own object by parse_schedule
  c.scheduler = parse_schedule(config);
  const std::string torch_version = f.string_or("torch_version", "2.6");
  const auto torch_rules = torch_release_rules(torch_version);
  if (!torch_rules) f.fail_on("torch_version", torch_refusal(torch_version));
  if (auto* onecycle = std::get_if<OneCycleLinearSchedule>(&c.scheduler)) {
    onecycle->torch_version = *torch_rules;
  }
  c.skipped_micro_steps = f.integers("skipped_micro_steps");
  if (f.find("overflow_prob")) {
    c.overflow_prob = f.number("overflow_prob", std::nullopt);
    if (!(*c.overflow_prob >= 0.0 && *c.overflow_prob <= 1.0)) f.fail_on("overflow_prob", "must be between 0 and 1");
  }
  c.overflow_seed = f.seed("overflow_seed").value_or(0);
  c.multiprocess = f.boolean("multiprocess", false);
  if (c.api == SchedulerApi::Direct) {
    c.adjust_scheduler = f.boolean("adjust_scheduler", false);
    c.sync_pattern = f.booleans("sync_pattern");
    f.refuse_unread();
    return c;
  }
  c.plugin.num_steps = f.optional_integer("gradient_accumulation_steps", 1);
  c.plugin.adjust_scheduler = f.boolean("adjust_scheduler", true);
  c.plugin.sync_with_dataloader = f.boolean("sync_with_dataloader", true);
  c.dataset_len = f.optional_integer("dataset_len", 0);
  c.batch_size = f.integer("batch_size", 1, 1);
  c.drop_last = f.boolean("drop_last", false);
  c.even_batches = f.boolean("even_batches", true);
  if (c.dataset_len) {
    c.micro_steps_per_epoch = f.optional_integer("micro_steps_per_epoch", 0).value_or(0);
  } else {
    c.micro_steps_per_epoch = f.integer("micro_steps_per_epoch", std::nullopt, 0);
  }
  c.epochs = f.integer("epochs", 1, 0, kMaxEpochs);
  if (const Json* pc = f.find("parallelism_config"); pc && !pc->is_null()) {
    if (!c.dataset_len) f.fail_on("parallelism_config", "needs dataset_len (a mesh shapes the DataLoader)");
    c.torch_device_mesh = parse_parallelism_config(*pc, c.num_processes, "parallelism_config");
  }
  if (c.batch_size > kMaxTotalBatch / c.num_processes) {
    f.fail_on("batch_size", "times num_processes must be <= " + std::to_string(kMaxTotalBatch) + " (input limit)");
  }
  f.refuse_unread();
  return c;
}

Json scheduler_ranks_json(const std::vector<SchedulerRankRecord>& ranks) {
  Json out = Json::array();
  for (const SchedulerRankRecord& r : ranks) {
    Json j;
    j["rank"] = r.rank;
    Json eff;
    if (r.api == SchedulerApi::TrainingLoop) {
      eff["gradient_state_num_steps"] = r.effective.gradient_state_num_steps;
      eff["gradient_state_adjust_scheduler"] = r.effective.gradient_state_adjust_scheduler;
      eff["gradient_state_sync_with_dataloader"] = r.effective.gradient_state_sync_with_dataloader;
    } else {
      eff["gradient_state_adjust_scheduler"] = r.effective.gradient_state_adjust_scheduler;
    }
    eff["accelerator_state_num_processes"] = r.effective.accelerator_state_num_processes;
    j["effective"] = std::move(eff);
    if (r.api == SchedulerApi::TrainingLoop) j["dataloader_len"] = r.dataloader_len ? Json(*r.dataloader_len) : Json(nullptr);
    j["initial"] = state_json(r.initial);
    Json steps = Json::array();
    for (const MicroStepRecord& s : r.steps) steps.push_back(step_json(r.api, s));
    j["steps"] = std::move(steps);
    if (r.error) {
      Json e;
      e["micro_step"] = r.error->micro_step;
      e["where"] = r.error->where;
      e["type"] = r.error->type;
      e["message"] = r.error->message;
      j["error"] = std::move(e);
    } else {
      j["error"] = nullptr;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace accel::trace
