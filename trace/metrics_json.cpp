#include "metrics_json.hpp"

#include "config_fields.hpp"

namespace accel::trace {
namespace {

Json ids_or_null(const std::optional<Batch>& ids) { return ids ? Json(*ids) : Json(nullptr); }

Json gather_error_json(const std::optional<GatherError>& e) {
  if (!e) return nullptr;
  Json j;
  j["type"] = e->type;
  j["message"] = e->message;
  return j;
}

}  // namespace

MetricsCase parse_metrics_config(const Json& config) {
  const Fields f(config, "");
  MetricsCase m;
  m.use_gather_object = f.boolean("use_gather_object", false);
  m.break_after = f.optional_integer("break_after", 0);
  // The recorder runs one pass over the prepared loader, in order; anything else is not this family.
  for (const char* key : {"schedule", "set_epoch", "skip_first_batches"}) {
    if (f.find(key)) f.fail_on(key, "is not part of a metrics case (one pass over the prepared loader)");
  }
  if (f.integer("epochs", 1, 1) != 1) f.fail_on("epochs", "must be 1 in a metrics case (one evaluation pass)");
  Json loader = config;
  loader.erase("use_gather_object");
  loader.erase("break_after");
  loader["api"] = "accelerator";
  m.loader = parse_loader_config(loader, {"use_gather_object", "break_after"});
  if (m.loader.loader.hf_dataset || m.loader.loader.hf_map_shuffle_seed)
    fail("dataset_kind", "\"hf-iterable\" in an evaluation is not simulated (not recorded)");
  return m;
}

Json metrics_ranks_json(const std::vector<MetricsRankRecord>& ranks) {
  Json out = Json::array();
  for (const MetricsRankRecord& r : ranks) {
    Json j;
    j["rank"] = r.rank;
    j["loader_class"] = r.loader_class;
    Json steps = Json::array();
    for (const GatherStepRecord& s : r.steps) {
      Json sj;
      sj["step"] = s.step;
      sj["batch"] = s.batch;
      sj["end_of_dataloader"] = s.end_of_dataloader;
      sj["remainder"] = s.remainder;
      sj["gather_for_metrics"] = ids_or_null(s.gather_for_metrics);
      sj["gather_for_metrics_error"] = gather_error_json(s.gather_for_metrics_error);
      sj["log"] = s.log;
      sj["gather"] = ids_or_null(s.gather);
      sj["gather_error"] = gather_error_json(s.gather_error);
      steps.push_back(std::move(sj));
    }
    j["steps"] = std::move(steps);
    if (r.error) {
      Json e;
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
