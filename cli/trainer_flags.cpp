#include "cli/trainer_flags.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

#include "cli/integer_flag.hpp"
#include "cli/text_flag.hpp"
#include "core/trainer_loop.hpp"
#include "trace/decimal_integer.hpp"

namespace accel::cli {
namespace {

using trace::ConfigError;
using trace::Json;

constexpr const char* kGroup = "transformers.Trainer (with --api trainer)";

// The flags a Trainer job reads (besides the output flags): every other what-if flag is refused by name.
// clang-format off
constexpr std::string_view kTrainerFlags[] = {
    "api", "ranks", "dataset-len", "batch-size", "per-device-batch-size", "drop-last", "split-batches",
    "even-batches", "no-even-batches", "use-seedable-sampler", "no-seedable-sampler", "seed", "set-seed", "epochs",
    "grad-accum", "max-steps", "train-sampling-strategy", "transformers-version", "lengths", "use-cpu",
    "resume-at-step", "resume-ranks", "resume-batch-size", "resume-grad-accum", "ignore-data-skip", "resume-at",
    "eval-dataset-len", "per-device-eval-batch-size", "num-evaluations", "compute-metrics", "eval-use-gather-object",
    "no-eval-concat-batches", "eval-lengths", "dataset", "dispatch-batches", "no-dispatch-batches", "iterable-has-len",
    "iterable-set-epoch",
    "json", "junit", "require", "config-file", "help", "version"};
// clang-format on

bool given(const CLI::App& cmd, const std::string& flag) { return cmd.count(flag) > 0; }

// The lengths file: decimal integers separated by white space or commas (a JSON array reads the same once its
// brackets are dropped). Each is checked here for being a number; the config's own rules (>= 0, one per sample)
// are parse_trainer_config's.
Json read_lengths(const std::string& path) {
  const std::string text = trace::read_input(path);
  Json out = Json::array();
  std::string word;
  std::int64_t index = 0;
  const auto flush = [&] {
    if (word.empty()) return;
    const auto value = trace::read_decimal_integer(word, 0);
    if (!value.value)
      throw ConfigError("--lengths: " + path + ": length " + std::to_string(index) + " " + value.problem);
    out.push_back(*value.value);
    ++index;
    word.clear();
  };
  for (char ch : text) {
    if (ch == ',' || ch == '[' || ch == ']' || std::isspace(static_cast<unsigned char>(ch))) {
      flush();
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

}  // namespace

void TrainerFlags::add_to(CLI::App& app) {
  add_integer(app, "--per-device-batch-size,--per_device_train_batch_size", per_device_batch_size,
              "TrainingArguments.per_device_train_batch_size (default 8)")
      ->group(kGroup);
  add_integer(app, "--max-steps,--max_steps", max_steps, "TrainingArguments.max_steps: overrides --epochs")
      ->group(kGroup);
  app.add_option("--train-sampling-strategy", train_sampling_strategy,
                 "random (default: SeedableRandomSampler through accelerator_config), sequential (5.x only) or "
                 "group_by_length (LengthGroupedSampler; 4.57's group_by_length=True), with --lengths FILE")
      ->check(CLI::IsMember({"random", "sequential", "group_by_length"}))
      ->group(kGroup);
  app.add_option("--transformers-version", transformers_version,
                 "the transformers release modelled: 5.25 (default), 5.24 (5.25's rules, recorded alike) or 4.57")
      ->check([](const std::string& v) -> std::string {
        return transformers_release_from_name(v) ? std::string() : transformers_refusal(v);
      })
      ->type_name("TEXT:{5.25,5.24,4.57}")
      ->group(kGroup);
  add_integer(app, "--resume-grad-accum", resume_grad_accum,
              "the resumed job's gradient_accumulation_steps (default: --grad-accum)")
      ->group(kGroup);
  app.add_option("--lengths", lengths_file,
                 "FILE of the samples' lengths (len(input_ids) or the dataset's length column), one integer per "
                 "sample, separated by white space or commas: what group_by_length sorts by")
      ->check(non_empty("a FILE"))
      ->group(kGroup);
  app.add_flag("--use-cpu", use_cpu,
               "TrainingArguments.use_cpu: the processes form a CPU (gloo) group, as recorded; default GPUs")
      ->group(kGroup);
  app.add_flag("--ignore-data-skip", ignore_data_skip, "TrainingArguments.ignore_data_skip=True in the resumed job")
      ->group(kGroup);
  app.add_flag("--iterable-has-len", iterable_has_len,
               "with --dataset iterable: the IterableDataset also has __len__ (Trainer then runs epochs of len(loader))")
      ->group(kGroup);
  app.add_flag("--iterable-set-epoch", iterable_set_epoch,
               "with --dataset iterable: the IterableDataset has set_epoch(e), which Trainer calls before each pass")
      ->group(kGroup);
  add_integer(app, "--eval-dataset-len", eval_dataset_len,
              "trainer.evaluate() on an eval dataset of N samples: what compute_metrics and eval_loss see")
      ->group(kGroup);
  add_integer(app, "--per-device-eval-batch-size,--per_device_eval_batch_size", per_device_eval_batch_size,
              "TrainingArguments.per_device_eval_batch_size (default 8)")
      ->group(kGroup);
  add_integer(app, "--num-evaluations", num_evaluations, "trainer.evaluate() calls in a row (default 1)")->group(kGroup);
  app.add_flag("--compute-metrics", compute_metrics,
               "the Trainer has a compute_metrics: logits and labels are gathered too (default: loss only)")
      ->group(kGroup);
  app.add_flag("--eval-use-gather-object", eval_use_gather_object, "TrainingArguments.eval_use_gather_object=True")
      ->group(kGroup);
  app.add_flag("--no-eval-concat-batches", no_eval_concat_batches, "TrainingArguments.eval_do_concat_batches=False")
      ->group(kGroup);
  app.add_option("--eval-lengths", eval_lengths_file,
                 "FILE of the eval samples' lengths (as --lengths), for group_by_length's evaluation sampler")
      ->check(non_empty("a FILE"))
      ->group(kGroup);
}

void TrainerFlags::refuse_without_trainer(const CLI::App& cmd) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_group() != kGroup || o->get_lnames().empty()) continue;
    throw ConfigError("--" + o->get_lnames().front() +
                      ": is a transformers.Trainer flag; it needs --api trainer (the loader what-if would ignore it: "
                      "`accel-sim help trainer`)");
  }
}

Json TrainerFlags::config(const LoaderFlags& loader, const TrainingFlags& training, const ResumeFlags& resume,
                          const CLI::App& cmd, const std::vector<std::string>& args) const {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    const std::string& name = o->get_lnames().front();
    if (std::find(std::begin(kTrainerFlags), std::end(kTrainerFlags), name) != std::end(kTrainerFlags)) continue;
    if (name == "shuffle") {
      throw ConfigError(
          "--shuffle: Trainer's train sampler is random already; --train-sampling-strategy sequential "
          "turns it off");
    }
    throw ConfigError("--" + name +
                      ": not with --api trainer (Trainer builds its own loader and loop; its flags are "
                      "listed under `accel-sim help trainer`)");
  }
  for (const std::string& a : args) {
    if (a == "--seed" || a.rfind("--seed=", 0) == 0) {
      throw ConfigError(
          "--seed: with --api trainer say which seed: --set-seed N is TrainingArguments.seed (default "
          "42), --data-seed N is data_seed (the sampler's seed when given)");
    }
  }
  if (given(cmd, "--batch-size") && per_device_batch_size) {
    throw ConfigError("--per-device-batch-size: conflicts with --batch-size (both are per_device_train_batch_size)");
  }
  if (training.enabled()) throw ConfigError("--scheduler: Trainer builds its own scheduler; not with --api trainer");
  if (resume.ranks && !resume.at_step) throw ConfigError("--resume-ranks: needs --resume-at-step G");
  if ((resume.batch_size || resume_grad_accum || ignore_data_skip) && !resume.at_step) {
    throw ConfigError(std::string(resume.batch_size   ? "--resume-batch-size"
                                  : resume_grad_accum ? "--resume-grad-accum"
                                                      : "--ignore-data-skip") +
                      ": describes the resumed job; give --resume-at-step G");
  }
  if (!resume.at.empty()) {
    throw ConfigError("--resume-at: Trainer resumes from checkpoint-G, a global step: give --resume-at-step G");
  }
  if (resume.at_step && *resume.at_step == 0) {
    throw ConfigError("--resume-at-step: Trainer saves checkpoint-G at a global step G >= 1");
  }
  // The loader flags resolved once, as an Accelerator script, for the conflicts they already check.
  LoaderFlags as_script = loader;
  as_script.api = "accelerator";
  as_script.shuffle = train_sampling_strategy == "random" && loader.dataset == "map";
  const Json script = as_script.config();
  const Json& a = script["accelerator"];
  Json c;
  c["api"] = "trainer";
  c["transformers_version"] = transformers_version;
  c["dataset_len"] = loader.dataset_len;
  c["num_processes"] = loader.ranks;
  c["per_device_train_batch_size"] = per_device_batch_size        ? *per_device_batch_size
                                     : given(cmd, "--batch-size") ? loader.batch_size
                                                                  : 8;
  c["gradient_accumulation_steps"] = training.grad_accum;
  c["num_train_epochs"] = given(cmd, "--epochs") ? loader.epochs : 3;
  c["max_steps"] = max_steps ? *max_steps : -1;
  c["dataloader_drop_last"] = loader.drop_last;
  c["seed"] = script["set_seed"].is_null() ? Json(42) : script["set_seed"];
  c["data_seed"] = a["data_seed"];
  c["train_sampling_strategy"] = train_sampling_strategy;
  c["accelerator_config"] = {{"split_batches", a["split_batches"]},
                             {"dispatch_batches", nullptr},
                             {"even_batches", a["even_batches"]},
                             {"use_seedable_sampler", !given(cmd, "--no-seedable-sampler")}};
  c["device"] = loader.use_cpu || use_cpu ? "cpu" : "cuda";
  if (loader.dataset != "map" && loader.dataset != "iterable") {
    throw ConfigError("--dataset " + loader.dataset +
                      ": with --api trainer, map (a torch Dataset) or iterable (a torch IterableDataset)");
  }
  if (loader.dataset == "iterable") {
    c["dataset_kind"] = "iterable";
    c["iterable_has_len"] = iterable_has_len;
    c["iterable_set_epoch"] = iterable_set_epoch;
    if (loader.dispatch_on || loader.dispatch_off) c["accelerator_config"]["dispatch_batches"] = loader.dispatch_on;
    // Trainer refuses an IterableDataset without __len__ unless max_steps is given: say so here, by flag.
    if (!iterable_has_len && !max_steps) {
      throw ConfigError("--max-steps: Trainer requires max_steps for an IterableDataset without __len__ (give "
                        "--max-steps N, or --iterable-has-len)");
    }
  } else if (iterable_has_len || iterable_set_epoch || loader.dispatch_on || loader.dispatch_off) {
    throw ConfigError(std::string(iterable_has_len     ? "--iterable-has-len"
                                  : iterable_set_epoch ? "--iterable-set-epoch"
                                  : loader.dispatch_on ? "--dispatch-batches"
                                                       : "--no-dispatch-batches") +
                      ": describes an iterable train dataset; give --dataset iterable");
  }
  if (!lengths_file.empty()) {
    if (train_sampling_strategy != "group_by_length")
      throw ConfigError("--lengths: only --train-sampling-strategy group_by_length reads them");
    c["lengths"] = read_lengths(lengths_file);
  } else if (train_sampling_strategy == "group_by_length") {
    throw ConfigError("--train-sampling-strategy group_by_length: needs --lengths FILE (one length per sample)");
  }
  const bool eval_flags = per_device_eval_batch_size || num_evaluations || compute_metrics || eval_use_gather_object ||
                          no_eval_concat_batches || !eval_lengths_file.empty();
  if (eval_flags && !eval_dataset_len) {
    throw ConfigError(std::string(per_device_eval_batch_size ? "--per-device-eval-batch-size"
                                  : num_evaluations          ? "--num-evaluations"
                                  : compute_metrics          ? "--compute-metrics"
                                  : eval_use_gather_object   ? "--eval-use-gather-object"
                                  : no_eval_concat_batches   ? "--no-eval-concat-batches"
                                                             : "--eval-lengths") +
                      ": describes trainer.evaluate(); give --eval-dataset-len N");
  }
  if (eval_dataset_len) {
    Json e = {{"dataset_len", *eval_dataset_len},
              {"per_device_eval_batch_size", per_device_eval_batch_size.value_or(8)},
              {"compute_metrics", compute_metrics},
              {"eval_do_concat_batches", !no_eval_concat_batches},
              {"eval_use_gather_object", eval_use_gather_object},
              {"num_evaluations", num_evaluations.value_or(1)}};
    if (!eval_lengths_file.empty()) {
      if (train_sampling_strategy != "group_by_length")
        throw ConfigError("--eval-lengths: only --train-sampling-strategy group_by_length reads them");
      e["lengths"] = read_lengths(eval_lengths_file);
    } else if (train_sampling_strategy == "group_by_length") {
      throw ConfigError(
          "--eval-dataset-len: with --train-sampling-strategy group_by_length the evaluation sampler groups by "
          "length too: give --eval-lengths FILE (one length per eval sample)");
    }
    c["evaluation"] = std::move(e);
  }
  if (resume.at_step) {
    c["resume"] = {{"global_step", *resume.at_step},
                   {"num_processes", resume.ranks.value_or(loader.ranks)},
                   {"per_device_train_batch_size",
                    resume.batch_size.value_or(c["per_device_train_batch_size"].get<std::int64_t>())},
                   {"gradient_accumulation_steps", resume_grad_accum.value_or(training.grad_accum)},
                   {"ignore_data_skip", ignore_data_skip}};
  } else {
    c["resume"] = nullptr;
  }
  return c;
}

}  // namespace accel::cli
