#include "resume_json.hpp"

#include "config_fields.hpp"

namespace accel::trace {

const char* mode_name(ResumeMode mode) {
  switch (mode) {
    case ResumeMode::SkipFirstBatches: return "skip_first_batches";
    case ResumeMode::Continue: return "continue";
    case ResumeMode::Stateful: return "stateful";
    case ResumeMode::None: return "none";
  }
  return "none";
}

std::optional<ResumeMode> mode_from_name(const std::string& name) {
  for (ResumeMode m : {ResumeMode::SkipFirstBatches, ResumeMode::Continue, ResumeMode::Stateful, ResumeMode::None}) {
    if (name == mode_name(m)) return m;
  }
  return std::nullopt;
}

bool is_resume_config(const Json& config) {
  // Read without value(): a present but null or non-string `api` must reach parse_config's named error.
  if (!config.is_object()) return false;
  const auto it = config.find("api");
  return it != config.end() && it->is_string() && it->get<std::string>() == "resume";
}

ResumeCase parse_resume_config(const Json& config) {
  if (!config.is_object()) throw ConfigError("config: must be a JSON object");
  const Fields f(config, "");
  for (const char* key : {"schedule", "set_epoch", "skip_first_batches", "generator_seed", "dataset_generator"}) {
    if (f.find(key)) fail(key, "is not a key of the resume family (the resume object says how passes run)");
  }
  if (f.string_or("dataset_kind", "map") != "map") fail("dataset_kind", "the resume family models map-style datasets only");
  const Json* r = f.find("resume");
  if (!r || !r->is_object()) fail("resume", "is required (an object with epoch, step, with, loop_set_epoch)");
  // The script before the checkpoint is an accelerator-family script: parse it as one.
  Json script = config;
  script.erase("resume");
  script["api"] = "accelerator";
  ResumeCase rc;
  rc.job = parse_loader_config(script, {"resume"});
  const Fields o(*r, "resume.");
  for (const auto& [key, value] : r->items()) {
    if (key != "epoch" && key != "step" && key != "with" && key != "loop_set_epoch" && key != "state_writer") {
      o.fail_on(key, "is not a key of config.resume (epoch, step, with, loop_set_epoch, state_writer)");
    }
  }
  rc.resume.epoch = o.integer("epoch", std::nullopt, 0);
  rc.resume.step = o.integer("step", std::nullopt, 0);
  const auto mode = mode_from_name(o.string("with"));
  if (!mode) o.fail_on("with", "must be one of skip_first_batches, continue, stateful, none");
  rc.resume.mode = *mode;
  rc.resume.loop_set_epoch = o.boolean("loop_set_epoch", false);
  if (rc.resume.epoch >= rc.job.epochs) o.fail_on("epoch", "must be below config.epochs");
  const bool stateful = rc.job.accelerator && rc.job.accelerator->dataloader_config.use_stateful_dataloader;
  if (stateful && rc.job.loader.workers.active()) {
    fail("num_workers",
         "with a stateful resume is not simulated: torchdata's StatefulDataLoader restores a state per worker");
  }
  if ((rc.resume.mode == ResumeMode::Stateful) != stateful) {
    o.fail_on("with", "\"stateful\" goes with config.accelerator.use_stateful_dataloader = true, and only with it");
  }
  if (o.find("state_writer")) {
    if (!stateful)
      o.fail_on("state_writer", "only with \"with\": \"stateful\" (it orders the StatefulDataLoader's state file)");
    const std::int64_t w = o.integer("state_writer", std::nullopt, 0);
    if (w >= rc.job.prepare.num_processes) {
      o.fail_on("state_writer", "must be a rank below num_processes (" + std::to_string(rc.job.prepare.num_processes) +
                                    "), got " + std::to_string(w));
    }
    rc.resume.state_writer = w;
  }
  return rc;
}

Json resume_to_json(const std::string& case_name, const Json& config, const ResumeTrace& trace) {
  Json j = trace_head(case_name, "resume", config);
  j["error"] = trace.error ? error_record_json(*trace.error) : Json(nullptr);
  Json ranks = Json::array();
  for (const auto& r : trace.ranks) {
    Json rj;
    rj["rank"] = r.rank;
    rj["uninterrupted"] = r.uninterrupted;
    rj["resumed"] = r.resumed;
    if (r.error) rj["error"] = error_record_json(*r.error);
    ranks.push_back(std::move(rj));
  }
  j["ranks"] = std::move(ranks);
  return j;
}

}  // namespace accel::trace
