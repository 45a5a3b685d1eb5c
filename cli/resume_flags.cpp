#include "resume_flags.hpp"

#include "trace/resume_json.hpp"

namespace accel::cli {
namespace {

using trace::ConfigError;

std::int64_t non_negative(const std::string& text, const std::string& flag) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 0) throw ConfigError(flag + ": must be EPOCH:STEP, two integers >= 0, got \"" + text + "\"");
  return v;
}

}  // namespace

void ResumeFlags::add_to(CLI::App& app) {
  app.add_option("--resume-at", at, "resume what-if: the checkpoint (save_state) is taken after STEP batches of EPOCH (E:S)");
  app.add_option("--resume-at-step", at_step, "the checkpoint is taken at this optimizer step (with --grad-accum)");
  app.add_option("--resume-with", with, "skip_first_batches (default), continue, stateful or none");
  app.add_flag("--loop-set-epoch", loop_set_epoch, "the training loop calls dataloader.set_epoch(epoch) every epoch");
  app.add_option("--resume-ranks", ranks, "the restarted job's number of processes");
  app.add_option("--resume-batch-size", batch_size, "the restarted job's DataLoader batch size");
  app.add_option("--resume-skip", skip, "batches skip_first_batches / continue skip in epoch E (default: S)");
}

trace::ResumeCase ResumeFlags::resume_case(trace::Json c, std::int64_t grad_accum,
                                           std::optional<std::string>& conversion) const {
  if (!at.empty() && at_step) throw ConfigError("--resume-at-step: give either --resume-at or --resume-at-step, not both");
  if (c.value("api", std::string()) != "accelerator") {
    throw ConfigError("--resume-at: needs --api accelerator (save_state / load_state are Accelerator methods)");
  }
  if (!c["skip_first_batches"].is_null()) {
    throw ConfigError("--skip-batches: not with --resume-at (--resume-with says how the restarted epoch is skipped)");
  }
  if (c.value("dataset_kind", std::string("map")) != "map") {
    throw ConfigError("--dataset: the resume what-if models map-style datasets only");
  }
  const auto mode = trace::mode_from_name(with);
  if (!mode) throw ConfigError("--resume-with: must be one of skip_first_batches, continue, stateful, none; got \"" + with + "\"");
  const bool stateful_loader = c["accelerator"].value("use_stateful_dataloader", false);
  if (stateful_loader && *mode != trace::ResumeMode::Stateful) {
    throw ConfigError("--resume-with: the loader is a StatefulDataLoader (--use-stateful-dataloader); resume with stateful");
  }
  if (ranks && *ranks < 1) throw ConfigError("--resume-ranks: must be >= 1");
  if (batch_size && *batch_size < 1) throw ConfigError("--resume-batch-size: must be >= 1");
  if (skip && *skip < 0) throw ConfigError("--resume-skip: must be >= 0");
  if (skip && (*mode == trace::ResumeMode::Stateful || *mode == trace::ResumeMode::None)) {
    throw ConfigError("--resume-skip: applies to --resume-with skip_first_batches or continue only");
  }
  c["api"] = "resume";
  for (const char* key : {"schedule", "set_epoch", "skip_first_batches", "dataset_generator"}) c.erase(key);
  c["multiprocess"] = true;
  if (*mode == trace::ResumeMode::Stateful) c["accelerator"]["use_stateful_dataloader"] = true;
  std::int64_t epoch = 0, step = 0;
  if (!at.empty()) {
    const auto colon = at.find(':');
    if (colon == std::string::npos) throw ConfigError("--resume-at: must be EPOCH:STEP, two integers >= 0, got \"" + at + "\"");
    epoch = non_negative(at.substr(0, colon), "--resume-at");
    step = non_negative(at.substr(colon + 1), "--resume-at");
  }
  c["resume"] = {{"epoch", 0}, {"step", 0}, {"with", with}, {"loop_set_epoch", loop_set_epoch}};
  if (at_step) {
    if (*at_step < 0) throw ConfigError("--resume-at-step: must be >= 0");
    const auto probe = trace::parse_resume_config(c);
    const std::int64_t per_epoch = analysis::batches_per_epoch(probe);
    std::tie(epoch, step) = analysis::epoch_and_step_of(*at_step, grad_accum, per_epoch);
    conversion = "optimizer step " + std::to_string(*at_step) + " x grad_accum " + std::to_string(grad_accum) + " = " +
                 std::to_string(*at_step * grad_accum) + " batches per rank; with len(dataloader) = " +
                 std::to_string(per_epoch) + " that is epoch " + std::to_string(epoch) + ", step " + std::to_string(step) +
                 " (epoch = step*K // len, skip = step*K % len, as resume scripts compute it)";
  }
  c["resume"]["epoch"] = epoch;
  c["resume"]["step"] = step;
  if (epoch >= c.value("epochs", std::int64_t{1})) {
    throw ConfigError(std::string(at_step ? "--resume-at-step" : "--resume-at") + ": epoch " + std::to_string(epoch) +
                      " is not below --epochs " + std::to_string(c.value("epochs", std::int64_t{1})));
  }
  trace::ResumeCase rc;
  try {
    rc = trace::parse_resume_config(c);
  } catch (const ConfigError& e) {
    // The config is built from flags: name them rather than config fields.
    throw ConfigError(std::string("--resume-at: ") + e.what());
  }
  rc.resume.resume_ranks = ranks;
  rc.resume.resume_batch_size = batch_size;
  rc.resume.skip = skip;
  return rc;
}

}  // namespace accel::cli
