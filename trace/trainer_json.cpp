#include "trainer_json.hpp"

#include <memory>
#include <vector>

#include "config_fields.hpp"
#include "core/saturating.hpp"
#include "input_limits.hpp"
#include "trainer_eval_json.hpp"

namespace accel::trace {
namespace {

Json steps_json(const std::vector<TrainerStepRecord>& steps) {
  Json out = Json::array();
  for (const auto& s : steps) {
    Json j;
    j["global_step"] = s.global_step ? Json(*s.global_step) : Json(nullptr);
    j["batches"] = s.batches;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

TrainerSampling parse_trainer_sampling(const Fields& f, std::int64_t n, TransformersRelease release,
                                       bool sampler_built) {
  TrainerSampling out;
  out.strategy = f.string_or("train_sampling_strategy", "random");
  const std::string& strategy = out.strategy;
  if (strategy != "random" && strategy != "sequential" && strategy != "group_by_length") {
    f.fail_on("train_sampling_strategy",
              "must be \"random\", \"sequential\" or \"group_by_length\" (batch_rebalance is not modelled), got \"" +
                  strategy + "\"");
  }
  // 5.x's train_sampling_strategy="group_by_length" is 4.57's group_by_length=True: a LengthGroupedSampler either way.
  const bool group_by_length = strategy == "group_by_length";
  const auto lengths = std::make_shared<std::vector<std::int64_t>>();
  if (const Json* l = f.find("lengths")) {
    if (!group_by_length)
      f.fail_on("lengths", "is read only with train_sampling_strategy \"group_by_length\" (got \"" + strategy + "\")");
    if (!l->is_array())
      f.fail_on("lengths", "must be an array of dataset_len integers >= 0 (sample i's length at index i)");
    if (static_cast<std::int64_t>(l->size()) != n)
      f.fail_on("lengths", "must hold one length per sample: " + std::to_string(l->size()) + " given, dataset_len is " +
                               std::to_string(n));
    lengths->reserve(l->size());
    for (std::size_t i = 0; i < l->size(); ++i) {
      const Json& v = (*l)[i];
      const std::string at = "lengths[" + std::to_string(i) + "]";
      if (!v.is_number_integer()) f.fail_on(at, "must be an integer >= 0 (a sample's len()), got " + v.dump());
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxCount))
        f.fail_on(at, "must be <= " + std::to_string(kMaxCount) + " (input limit), got " + v.dump());
      const auto value = v.get<std::int64_t>();
      if (value < 0) f.fail_on(at, "must be >= 0 (a sample's len()), got " + std::to_string(value));
      lengths->push_back(value);
    }
  } else if (group_by_length && sampler_built) {
    f.fail_on("lengths", "is required with train_sampling_strategy \"group_by_length\" (one length per sample)");
  }
  if (group_by_length && n == 0) {
    f.fail_on("dataset_len",
              "must be >= 1 with train_sampling_strategy \"group_by_length\" (LengthGroupedSampler reads dataset[0])");
  }
  if (strategy == "sequential" && release == TransformersRelease::v4_57) {
    f.fail_on("train_sampling_strategy",
              "\"sequential\" does not exist in transformers 4.57 (its train sampler is always a RandomSampler)");
  }
  if (group_by_length && sampler_built) out.lengths = lengths;
  return out;
}

Json parse_trainer_accelerator_config(const Fields& f, bool dispatch_modelled) {
  // TrainingArguments' accelerator_config, as AcceleratorConfig defaults it.
  Json accelerator = {{"split_batches", false}, {"even_batches", true}, {"use_seedable_sampler", true}};
  if (const Json* a = f.find("accelerator_config")) {
    if (!a->is_object()) f.fail_on("accelerator_config", "must be an object");
    const Fields o(*a, "accelerator_config.");
    accelerator["split_batches"] = o.boolean("split_batches", false);
    accelerator["even_batches"] = o.boolean("even_batches", true);
    accelerator["use_seedable_sampler"] = o.boolean("use_seedable_sampler", true);
    if (o.find("dispatch_batches")) {
      const bool dispatch = o.boolean("dispatch_batches", false);
      if (dispatch && !dispatch_modelled) {
        o.fail_on("dispatch_batches",
                  "true is not modelled for Trainer's training (a map-style dataset is sharded, not dispatched)");
      }
      // null: Accelerate's default (the dispatcher for an iterable dataset, the shard for a map-style one).
      if (dispatch_modelled) accelerator["dispatch_batches"] = dispatch;
    }
    o.refuse_unread();
  }
  return accelerator;
}

bool is_trainer_config(const Json& config) {
  if (!config.is_object()) return false;
  const auto it = config.find("api");
  return it != config.end() && it->is_string() && it->get<std::string>() == "trainer";
}

TrainingArgumentsHead parse_training_arguments_head(const Fields& f, const std::string& batch_field) {
  TrainingArgumentsHead h;
  h.version = f.string_or("transformers_version", "5.25");
  const auto release = transformers_release_from_name(h.version);
  if (!release) f.fail_on("transformers_version", transformers_refusal(h.version));
  h.release = *release;
  h.dataset_len = f.integer("dataset_len", std::nullopt, 0, kMaxCount);
  h.num_processes = f.integer("num_processes", std::int64_t{1}, 1, kMaxRanks);
  h.per_device_batch_size = f.integer(batch_field, std::int64_t{8}, 1, kMaxTotalBatch);
  if (h.per_device_batch_size > kMaxTotalBatch / h.num_processes)
    f.fail_on(batch_field, "times num_processes must be <= " + std::to_string(kMaxTotalBatch) + " (input limit)");
  return h;
}

LoaderCase parse_trainer_script(const Json& script, const std::string& batch_field) {
  try {
    return parse_loader_config(script, {});
  } catch (const ConfigError& e) {
    std::string m = e.what();
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"config.set_seed", "config.seed"},
                                   {"config.batch_size", "config." + batch_field},
                                   {"config.accelerator.data_seed", "config.data_seed"},
                                   {"config.accelerator.", "config.accelerator_config."}}) {
      if (m.rfind(from, 0) == 0) {
        m = to + m.substr(from.size());
        break;
      }
    }
    throw ConfigError(m);
  }
}

TrainerCase parse_trainer_config(const Json& config) {
  if (!config.is_object()) throw ConfigError("config: must be a JSON object");
  const Fields f(config, "");
  if (f.string("api") != "trainer") f.fail_on("api", "must be \"trainer\"");
  TrainerCase c;
  const TrainingArgumentsHead head = parse_training_arguments_head(f, "per_device_train_batch_size");
  const std::string& version = head.version;
  c.release = head.release;
  c.version = head.version;
  const std::int64_t n = head.dataset_len;
  const std::int64_t ranks = head.num_processes;
  const std::int64_t batch = head.per_device_batch_size;
  c.loop.gradient_accumulation_steps = f.integer("gradient_accumulation_steps", std::int64_t{1}, 1, kMaxCount);
  c.loop.num_train_epochs = f.integer("num_train_epochs", std::int64_t{3}, 0, kMaxEpochs);
  const Json* ms = f.find("max_steps");
  if (ms && (!ms->is_number_integer() || ms->get<std::int64_t>() == 0 || ms->get<std::int64_t>() < -1)) {
    f.fail_on("max_steps", "must be -1 (epoch based) or an integer >= 1, got " + ms->dump());
  }
  c.loop.max_steps = ms ? f.integer("max_steps", std::nullopt, -1, kMaxCount) : -1;
  const bool drop_last = f.boolean("dataloader_drop_last", false);
  const std::string kind = f.string_or("dataset_kind", "map");
  if (kind != "map" && kind != "iterable")
    f.fail_on("dataset_kind", "must be \"map\" or \"iterable\" (a torch IterableDataset), got \"" + kind + "\"");
  c.iterable = kind == "iterable";
  if (!c.iterable && (f.find("iterable_has_len") || f.find("iterable_set_epoch")))
    f.fail_on(f.find("iterable_has_len") ? "iterable_has_len" : "iterable_set_epoch", "is read only with dataset_kind \"iterable\"");
  c.iterable_has_len = f.boolean("iterable_has_len", false);
  c.iterable_set_epoch = f.boolean("iterable_set_epoch", false);
  // Trainer gives an IterableDataset no sampler: its lengths are never read.
  const TrainerSampling sampling = parse_trainer_sampling(f, n, c.release, !c.iterable);
  const std::string& strategy = sampling.strategy;
  c.group_by_length_requested = strategy == "group_by_length";
  const bool group_by_length = sampling.lengths != nullptr;
  const auto& lengths = sampling.lengths;
  const Json accelerator = parse_trainer_accelerator_config(f, c.iterable);
  // _get_dataloader passes the sampler and drop_last only for a dataset that is not an IterableDataset.
  Json script = {{"api", "accelerator"},
                 {"dataset_kind", kind},
                 {"dataset_len", n},
                 {"batch_size", batch},
                 {"num_processes", ranks},
                 {"drop_last", drop_last && !c.iterable},
                 {"shuffle", strategy == "random" && !c.iterable},
                 {"epochs", 1},
                 {"set_seed", f.find("seed") ? *f.find("seed") : Json(42)},
                 {"accelerator", accelerator},
                 {"multiprocess", ranks > 1},
                 {"torch_version", "2.6"},
                 // The Trainer's loop is recorded with Accelerate 1.15.0 only (golden/cases-trainer).
                 {"accelerate_version", kBaselineVersion}};
  if (const Json* ds = f.find("data_seed")) script["accelerator"]["data_seed"] = *ds;
  c.job = parse_trainer_script(script, "per_device_train_batch_size");
  if (group_by_length) {
    // Trainer._get_train_sampler: LengthGroupedSampler(train_batch_size * gradient_accumulation_steps, ...).
    c.job.loader.length_grouping = LengthGrouping{sat_mul(batch, c.loop.gradient_accumulation_steps), lengths, std::nullopt};
  }
  const std::string device = f.string_or("device", "cpu");
  if (device != "cpu" && device != "cuda")
    f.fail_on("device", "must be \"cpu\" (a gloo group, as recorded) or \"cuda\", got \"" + device + "\"");
  c.on_cpu = device == "cpu";
  if (const Json* e = f.find("evaluation")) {
    if (!e->is_object())
      f.fail_on("evaluation",
                "must be null or an object (dataset_len, per_device_eval_batch_size, compute_metrics, "
                "eval_do_concat_batches, eval_use_gather_object, num_evaluations, lengths)");
    // The evaluation's own keys, over the TrainingArguments the train loader reads too.
    Json ec = {{"api", "trainer-eval"},
               {"transformers_version", version},
               {"num_processes", ranks},
               {"dataloader_drop_last", drop_last},
               {"seed", f.find("seed") ? *f.find("seed") : Json(42)},
               {"data_seed", f.find("data_seed") ? *f.find("data_seed") : Json(nullptr)},
               {"train_sampling_strategy", strategy},
               {"accelerator_config", accelerator}};
    std::vector<std::string> own;
    for (const auto& [key, value] : e->items()) {
      if (ec.contains(key) && key != "lengths") f.fail_on("evaluation." + key, "is TrainingArguments' (set it on the job)");
      ec[key] = value;
      own.push_back(key);
    }
    if (!e->contains("dataset_len")) f.fail_on("evaluation.dataset_len", "is required (the eval dataset's length)");
    try {
      c.evaluation = parse_trainer_eval_config(ec);
    } catch (const ConfigError& err) {
      std::string m = err.what();
      for (const auto& key : own) {
        const std::string from = "config." + key;
        if (m.rfind(from, 0) == 0 && (m.size() == from.size() || m[from.size()] == ':' || m[from.size()] == '[')) {
          m = "config.evaluation." + key + m.substr(from.size());
          break;
        }
      }
      throw ConfigError(m);
    }
  }
  if (const Json* r = f.find("resume")) {
    if (!r->is_object())
      f.fail_on("resume",
                "must be null or an object (global_step, num_processes, per_device_train_batch_size, "
                "gradient_accumulation_steps, ignore_data_skip)");
    const Fields o(*r, "resume.");
    TrainerResumeSpec s;
    s.global_step = o.integer("global_step", std::nullopt, 1, kMaxCount);
    s.num_processes = o.integer("num_processes", ranks, 1, kMaxRanks);
    s.per_device_train_batch_size = o.integer("per_device_train_batch_size", batch, 1, kMaxTotalBatch);
    if (s.per_device_train_batch_size > kMaxTotalBatch / s.num_processes) {
      o.fail_on("per_device_train_batch_size",
                "times num_processes must be <= " + std::to_string(kMaxTotalBatch) + " (input limit)");
    }
    s.gradient_accumulation_steps =
        o.integer("gradient_accumulation_steps", c.loop.gradient_accumulation_steps, 1, kMaxCount);
    s.ignore_data_skip = o.boolean("ignore_data_skip", false);
    o.refuse_unread();
    c.resume = s;
  }
  f.refuse_unread();
  return c;
}

LoaderCase trainer_job(const TrainerCase& c, std::int64_t num_processes, std::int64_t per_device_batch_size,
                       std::int64_t gradient_accumulation_steps) {
  LoaderCase job = c.job;
  job.prepare.num_processes = num_processes;
  job.loader.batch_size = per_device_batch_size;
  // The job's own Trainer builds its LengthGroupedSampler: megabatches of its per-device batch times its accumulation.
  if (job.loader.length_grouping)
    job.loader.length_grouping->batch_size = sat_mul(per_device_batch_size, gradient_accumulation_steps);
  job.multiprocess = num_processes > 1;
  return job;
}

Json trainer_to_json(const std::string& case_name, const Json& config, const TrainerTrace& trace) {
  Json j = trace_head(case_name, "trainer", config);
  j["error"] = trace.error ? error_record_json(*trace.error) : Json(nullptr);
  const bool resumed = is_trainer_config(config) && config.contains("resume") && !config["resume"].is_null();
  Json ranks = Json::array();
  for (const auto& r : trace.ranks) {
    Json rj;
    rj["rank"] = r.rank;
    rj["steps"] = steps_json(r.steps);
    if (resumed) rj["resumed_steps"] = steps_json(r.resumed_steps);
    if (r.error) rj["error"] = error_record_json(*r.error);
    ranks.push_back(std::move(rj));
  }
  j["ranks"] = std::move(ranks);
  return j;
}

}  // namespace accel::trace
