#include "trainer_eval_json.hpp"

#include "config_fields.hpp"
#include "core/saturating.hpp"
#include "input_limits.hpp"
#include "trainer_json.hpp"

namespace accel::trace {
namespace {

template <typename T>
Json arrays_json(const std::optional<EvalArrays<T>>& a) {
  if (!a) return nullptr;
  if (!a->nested) return a->rows.empty() ? Json::array() : Json(a->rows.front());
  Json out = Json::array();
  for (const auto& row : a->rows) out.push_back(row);
  return out;
}

Json losses_json(const std::optional<EvalArrays<float>>& a) {
  if (!a) return nullptr;
  // float32 values, widened as Python's float() widens them.
  EvalArrays<double> wide{a->nested, {}};
  for (const auto& row : a->rows) wide.rows.emplace_back(row.begin(), row.end());
  return arrays_json(std::optional<EvalArrays<double>>(wide));
}

}  // namespace

bool is_trainer_eval_config(const Json& config) {
  if (!config.is_object()) return false;
  const auto it = config.find("api");
  return it != config.end() && it->is_string() && it->get<std::string>() == "trainer-eval";
}

TrainerEvalCase parse_trainer_eval_config(const Json& config) {
  if (!config.is_object()) throw ConfigError("config: must be a JSON object");
  const Fields f(config, "");
  if (f.string("api") != "trainer-eval") f.fail_on("api", "must be \"trainer-eval\"");
  TrainerEvalCase c;
  const TrainingArgumentsHead head = parse_training_arguments_head(f, "per_device_eval_batch_size");
  c.release = head.release;
  c.version = head.version;
  const std::int64_t n = head.dataset_len;
  const std::int64_t ranks = head.num_processes;
  const std::int64_t batch = head.per_device_batch_size;
  const bool drop_last = f.boolean("dataloader_drop_last", false);
  const TrainerSampling sampling = parse_trainer_sampling(f, n, c.release);
  if (sampling.lengths && n == 0) {
    f.fail_on("dataset_len",
              "must be >= 1 with train_sampling_strategy \"group_by_length\" (LengthGroupedSampler reads dataset[0])");
  }
  const Json accelerator = parse_trainer_accelerator_config(f, true);
  c.options.eval_batch_size = batch;
  c.options.concat_batches = f.boolean("eval_do_concat_batches", true);
  c.options.compute_metrics = f.boolean("compute_metrics", false);
  c.options.use_gather_object = f.boolean("eval_use_gather_object", false);
  if (c.options.use_gather_object && !c.options.concat_batches) {
    f.fail_on("eval_use_gather_object",
              "true with eval_do_concat_batches false is not modelled (lists of per-step object lists)");
  }
  c.num_evaluations = f.integer("num_evaluations", std::int64_t{1}, 1, kMaxEpochs);
  const Json seed = f.find("seed") ? *f.find("seed") : Json(42);
  Json script = {{"api", "accelerator"},
                 {"dataset_kind", "map"},
                 {"dataset_len", n},
                 {"batch_size", batch},
                 {"num_processes", ranks},
                 {"drop_last", drop_last},
                 {"shuffle", false},
                 {"epochs", 1},
                 {"set_seed", seed},
                 {"accelerator", accelerator},
                 {"multiprocess", ranks > 1},
                 {"torch_version", "2.6"},
                 // Trainer.evaluate() is recorded with Accelerate 1.15.0 only (golden/cases-trainer-eval).
                 {"accelerate_version", kBaselineVersion}};
  c.loader = parse_trainer_script(script, "per_device_eval_batch_size");
  const Json* data_seed = f.find("data_seed");
  if (data_seed && !data_seed->is_number_integer()) f.fail_on("data_seed", "must be null or an integer, got " + data_seed->dump());
  if (sampling.lengths) {
    // _get_eval_sampler: LengthGroupedSampler(eval_batch_size, ...), with 5.25's own generator.
    LengthGrouping g{batch, sampling.lengths, std::nullopt};
    if (seeds_eval_length_grouped_sampler(c.release)) {
      const Json& s = data_seed ? *data_seed : seed;
      const std::string field = data_seed ? "data_seed" : "seed";
      if (!s.is_number_integer() || (s.is_number_integer() && !s.is_number_unsigned() && s.get<std::int64_t>() < 0)) {
        f.fail_on(field, "must be an integer >= 0 to seed the evaluation LengthGroupedSampler's generator, got " +
                             s.dump());
      }
      g.generator_seed = s.get<std::uint64_t>();
    } else if (c.num_evaluations > 1 && !c.loader.prepare.use_seedable_sampler && ranks > 1) {
      f.fail_on("num_evaluations",
                "above 1 is not modelled for transformers 4.57's group_by_length evaluation with use_seedable_sampler "
                "false on several processes (every evaluate() prepares a sampler seeded from the global generator)");
    }
    c.loader.loader.length_grouping = g;
  }
  f.refuse_unread();
  return c;
}

Json trainer_eval_to_json(const std::string& case_name, const Json& config, const TrainerEvalTrace& trace) {
  Json j = trace_head(case_name, "trainer-eval", config);
  j["error"] = nullptr;
  Json ranks = Json::array();
  for (const auto& r : trace.ranks) {
    Json rj;
    rj["rank"] = r.rank;
    Json evaluations = Json::array();
    for (const auto& e : r.evaluations) {
      Json ej;
      ej["batches"] = e.batches;
      ej["losses"] = losses_json(e.losses);
      ej["predictions"] = arrays_json(e.predictions);
      ej["eval_loss"] = e.eval_loss ? Json(static_cast<double>(*e.eval_loss)) : Json(nullptr);
      evaluations.push_back(std::move(ej));
    }
    rj["evaluations"] = std::move(evaluations);
    rj["error"] = r.error ? error_record_json(*r.error) : Json(nullptr);
    ranks.push_back(std::move(rj));
  }
  j["ranks"] = std::move(ranks);
  return j;
}

}  // namespace accel::trace
