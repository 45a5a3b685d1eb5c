#include "training_flags.hpp"

#include "cli/integer_flag.hpp"

#include <charconv>
#include <cstdlib>

namespace accel::cli {
namespace {

using trace::ConfigError;
using trace::Json;

template <typename Predicate>
CLI::Validator number_where(Predicate ok, std::string rule) {
  return CLI::Validator(
      [ok, rule](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !ok(v)) return rule + ", got " + text;
        return "";
      },
      "NUMBER");
}

CLI::Validator positive_number() { return number_where([](double v) { return v > 0.0; }, "must be a number > 0"); }

CLI::Validator probability() {
  return number_where([](double v) { return v >= 0.0 && v <= 1.0; }, "must be a number between 0 and 1");
}

}  // namespace

void TrainingFlags::add_to(CLI::App& app) {
  options_ = {
      add_integer(app, "--grad-accum,--gradient-accumulation-steps,--gradient_accumulation_steps", grad_accum,
                  "gradient_accumulation_steps K (GradientAccumulationPlugin num_steps)"),
      add_integer(app, "--warmup", warmup, "warm-up steps W of the schedule (onecycle: pct_start = W / total steps)"),
      add_integer(app, "--total-steps", total_steps, "schedule length T (training_steps / OneCycleLR total_steps)"),
      app.add_option("--lr", lr, "base lr (onecycle: max_lr); default 0.001")->check(positive_number()),
      add_integer(app, "--step-size", step_size, "StepLR step_size (--scheduler step)"),
      app.add_option("--gamma", gamma, "StepLR gamma (--scheduler step); default 0.1")->check(positive_number()),
      add_integer(app, "--overflow-steps", overflow_steps,
                  "micro-steps (global indices) where the loss scaler overflows; only syncing ones skip a step")
          ->delimiter(','),
      app.add_option("--overflow-prob", overflow_prob,
                     "each micro-step overflows with probability P (needs --overflow-seed)")
          ->check(probability()),
      add_integer(app, "--overflow-seed", overflow_seed, "seed of the --overflow-prob draws"),
  };
  app.add_option("--scheduler", scheduler, "simulate the training loop with this lr schedule")
      ->check(CLI::IsMember({"linear", "cosine", "constant", "step", "onecycle"}));
}

void TrainingFlags::validate(bool skip_batches, bool grad_accum_read_elsewhere) const {
  if (!enabled()) {
    for (const CLI::Option* o : options_) {
      if (grad_accum_read_elsewhere && o->check_name("--grad-accum")) continue;
      if (o->count()) throw ConfigError(o->get_name() + ": needs --scheduler linear|cosine|constant|step|onecycle");
    }
    return;
  }
  if (skip_batches) throw ConfigError("--skip-batches: is not simulated together with --scheduler yet");
  const bool needs_total = scheduler == "linear" || scheduler == "cosine" || scheduler == "onecycle";
  if (needs_total && !total_steps) throw ConfigError("--total-steps: is required with --scheduler " + scheduler);
  if (scheduler == "step" && !step_size) throw ConfigError("--step-size: is required with --scheduler step");
  if (scheduler == "onecycle" && warmup > *total_steps) {
    throw ConfigError("--warmup: must be <= --total-steps with --scheduler onecycle (pct_start = W / T)");
  }
  if (overflow_prob && !overflow_seed) throw ConfigError("--overflow-seed: is required with --overflow-prob");
  if (overflow_seed && !overflow_prob) throw ConfigError("--overflow-prob: is required with --overflow-seed");
}

Json TrainingFlags::schedule() const {
  Json s;
  if (scheduler == "linear" || scheduler == "cosine") {
    s["kind"] = scheduler == "linear" ? "linear_warmup" : "cosine_warmup";
    s["base_lr"] = lr;
    s["warmup_steps"] = warmup;
    s["training_steps"] = *total_steps;
  } else if (scheduler == "constant") {
    s["kind"] = "constant_warmup";
    s["base_lr"] = lr;
    s["warmup_steps"] = warmup;
  } else if (scheduler == "step") {
    s["kind"] = "step";
    s["base_lr"] = lr;
    s["step_size"] = *step_size;
    s["gamma"] = gamma;
  } else {
    // torch's defaults for what the flags do not set (pct_start 0.3, div_factor 25, final_div_factor 1e4).
    s["kind"] = "onecycle_linear";
    s["base_lr"] = lr;
    s["max_lr"] = lr;
    s["total_steps"] = *total_steps;
    s["pct_start"] = warmup > 0 ? static_cast<double>(warmup) / static_cast<double>(*total_steps) : 0.3;
    s["div_factor"] = 25.0;
    s["final_div_factor"] = 10000.0;
  }
  return s;
}

Json TrainingFlags::config(const Json& loader) const {
  if (loader.value("dataset_kind", std::string()).rfind("hf-", 0) == 0) {
    throw ConfigError("--scheduler: the training loop over a HuggingFace dataset (--dataset hf-iterable / hf-map) is "
                      "not simulated (not recorded)");
  }
  // An Accelerator's options sit in config.accelerator; prepare_data_loader's at the top level.
  const Json& options = loader.contains("accelerator") ? loader["accelerator"] : loader;
  Json c;
  c["api"] = trace::kSchedulerLoopApi;
  c["num_processes"] = loader["num_processes"];
  c["split_batches"] = options["split_batches"];
  c["gradient_accumulation_steps"] = grad_accum;
  c["adjust_scheduler"] = true;  // GradientAccumulationPlugin's default, as a user leaves it
  c["sync_with_dataloader"] = true;
  c["step_with_optimizer"] = true;
  c["scheduler"] = schedule();
  c["dataset_len"] = loader["dataset_len"];
  c["batch_size"] = loader["batch_size"];
  c["micro_steps_per_epoch"] = nullptr;
  c["epochs"] = loader["epochs"];
  c["skipped_micro_steps"] = overflow_steps;
  c["multiprocess"] = false;
  c["drop_last"] = loader["drop_last"];
  c["even_batches"] = options["even_batches"];
  if (options.contains("parallelism_config")) c["parallelism_config"] = options["parallelism_config"];
  if (overflow_prob) {
    c["overflow_prob"] = *overflow_prob;
    c["overflow_seed"] = *overflow_seed;
  }
  return c;
}

}  // namespace accel::cli
