#include "resume_flags.hpp"

#include "cli/integer_flag.hpp"
#include "cli/text_flag.hpp"
#include "trace/decimal_integer.hpp"
#include "trace/input_limits.hpp"
#include "trace/resume_json.hpp"

namespace accel::cli {
namespace {

using trace::ConfigError;

// One half of E:S, by the table's rule for --resume-at.
std::int64_t resume_at_part(const std::string& part, const std::string& whole, const char* which) {
  const IntegerFlag& flag = integer_flag("--resume-at");
  const auto read = trace::read_decimal_integer(part, flag.min, flag.max);
  if (!read.value) {
    throw ConfigError(std::string("--resume-at: must be EPOCH:STEP; its ") + which + " " + read.problem + " (in '" +
                      whole + "')");
  }
  return *read.value;
}

}  // namespace

void ResumeFlags::add_to(CLI::App& app) {
  app.add_option("--resume-at", at,
                 "resume what-if: the checkpoint (save_state) is taken after STEP batches of EPOCH (E:S)")
      ->check(non_empty("EPOCH:STEP"));
  add_integer(app, "--resume-at-step", at_step, "the checkpoint is taken at this optimizer step (with --grad-accum)");
  app.add_option("--resume-with", with, "skip_first_batches (default), continue, stateful or none");
  app.add_flag("--loop-set-epoch", loop_set_epoch, "the training loop calls dataloader.set_epoch(epoch) every epoch");
  add_integer(app, "--resume-ranks", ranks, "the restarted job's number of processes");
  add_integer(app, "--resume-batch-size", batch_size, "the restarted job's DataLoader batch size");
  add_integer(app, "--resume-skip", skip, "batches skip_first_batches / continue skip in epoch E (default: S)");
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
  if (const auto d = c["accelerator"].find("dispatch_batches");
      d != c["accelerator"].end() && d->is_boolean() && d->get<bool>()) {
    throw ConfigError(
        "--dispatch-batches: the resume what-if models sharded loaders (DataLoaderShard) only, not a "
        "dispatched map-style loader");
  }
  if (ranks && c["accelerator"].contains("parallelism_config")) {
    throw ConfigError(
        "--resume-ranks: not with --parallelism (the restarted job would need a mesh of its own, which "
        "the resume what-if does not describe)");
  }
  const auto mode = trace::mode_from_name(with);
  if (!mode) throw ConfigError("--resume-with: must be one of skip_first_batches, continue, stateful, none; got \"" + with + "\"");
  const bool stateful_loader = c["accelerator"].value("use_stateful_dataloader", false);
  if (stateful_loader && *mode != trace::ResumeMode::Stateful) {
    throw ConfigError("--resume-with: the loader is a StatefulDataLoader (--use-stateful-dataloader); resume with stateful");
  }
  // The flags' own rule bounds each value (cli/integer_flag.cpp); the restarted job's step is their product.
  const std::int64_t resumed_ranks = ranks.value_or(c.value("num_processes", std::int64_t{1}));
  const std::int64_t resumed_batch = batch_size.value_or(c.value("batch_size", std::int64_t{1}));
  if (resumed_batch > trace::kMaxTotalBatch / resumed_ranks) {
    throw ConfigError(std::string(batch_size ? "--resume-batch-size" : "--batch-size") + ": times " +
                      (ranks ? "--resume-ranks" : "--ranks") + " must be <= " + std::to_string(trace::kMaxTotalBatch) +
                      " (input limit), got " + std::to_string(resumed_batch) + " x " + std::to_string(resumed_ranks));
  }
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
    if (colon == std::string::npos)
      throw ConfigError("--resume-at: must be EPOCH:STEP, two integers >= 0, got '" + at + "'");
    epoch = resume_at_part(at.substr(0, colon), at, "EPOCH");
    step = resume_at_part(at.substr(colon + 1), at, "STEP");
  }
  c["resume"] = {{"epoch", 0}, {"step", 0}, {"with", with}, {"loop_set_epoch", loop_set_epoch}};
  if (at_step) {
    if (*at_step > trace::kMaxCount / grad_accum) {
      throw ConfigError("--resume-at-step: times --grad-accum (the batches before the checkpoint) must be <= " +
                        std::to_string(trace::kMaxCount) + " (input limit), got " + std::to_string(*at_step) + " x " +
                        std::to_string(grad_accum));
    }
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
                      " is not below --epochs " + std::to_string(c.value("epochs", std::int64_t{1})) +
                      " (the checkpoint must fall inside the job: give --epochs " + std::to_string(epoch + 1) +
                      " or more)");
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

analysis::ResumeReport ResumeFlags::what_if(const trace::Json& loader_config, std::int64_t grad_accum) const {
  std::optional<std::string> conversion;
  const trace::ResumeCase rc = resume_case(loader_config, grad_accum, conversion);
  try {
    return analysis::resume_what_if(rc, conversion);
  } catch (const ConfigError& e) {
    // The simulation speaks of the config it was given; the user typed a flag.
    const std::string message = e.what();
    const std::string field = "config.resume.step: ";
    if (message.rfind(field, 0) != 0) throw;
    throw ConfigError(std::string(at_step ? "--resume-at-step: its step " : "--resume-at: STEP ") +
                      message.substr(field.size()));
  }
}

}  // namespace accel::cli
