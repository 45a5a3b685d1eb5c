#include "record_exchange.hpp"

namespace accel::ranks {
namespace {

std::string outcome_key(std::int64_t rank) { return "accel/outcome/" + std::to_string(rank); }
std::string ack_key(std::int64_t rank) { return "accel/ack/" + std::to_string(rank); }
const std::string kCompleteKey = "accel/complete";

}  // namespace

trace::Json outcome_json(const trace::Json& config, std::int64_t rank, const std::optional<trace::RankRecord>& record,
                         const std::optional<trace::ErrorRecord>& case_error) {
  // trace::to_json is the one writer of the schema: a one-rank trace gives the record's JSON.
  trace::Trace one;
  one.error = case_error;
  one.body = record ? std::vector<trace::RankRecord>{*record} : std::vector<trace::RankRecord>{};
  const trace::Json written = trace::to_json("", config, one);
  trace::Json out;
  out["rank"] = rank;
  out["error"] = written["error"];
  out["record"] = record ? written["ranks"][0] : trace::Json(nullptr);
  return out;
}

trace::Json training_json(const sim::TrainingRank& r) {
  trace::Json j;
  j["rank"] = r.rank;
  j["micro_steps"] = r.micro_steps;
  j["gradient_all_reduces"] = r.gradient_all_reduces;
  j["shadowed_all_reduces"] = r.shadowed_all_reduces;
  j["optimizer_steps"] = r.optimizer_steps;
  j["scheduler_steps"] = r.scheduler_steps;
  j["hang"] = nullptr;
  if (r.hang) {
    j["hang"] = {{"epoch", r.hang->epoch},
                 {"step", r.hang->step},
                 {"collective", r.hang->collective},
                 {"collective_index", r.hang->collective_index},
                 {"missing_ranks", r.hang->missing_ranks},
                 {"message", r.hang->message}};
  }
  j["out_of_step"] = nullptr;
  if (r.out_of_step) j["out_of_step"] = {{"epoch", r.out_of_step->epoch}, {"step", r.out_of_step->step}};
  j["error"] = nullptr;
  if (r.error) j["error"] = {{"type", r.error->type}, {"message", r.error->message}, {"where", r.error->where}};
  return j;
}

sim::TrainingRank training_from_json(const trace::Json& j) {
  sim::TrainingRank r;
  r.rank = j.at("rank").get<std::int64_t>();
  r.micro_steps = j.at("micro_steps").get<std::vector<std::int64_t>>();
  r.gradient_all_reduces = j.at("gradient_all_reduces").get<std::int64_t>();
  r.shadowed_all_reduces = j.at("shadowed_all_reduces").get<std::int64_t>();
  r.optimizer_steps = j.at("optimizer_steps").get<std::int64_t>();
  r.scheduler_steps = j.at("scheduler_steps").get<std::int64_t>();
  if (const auto& h = j.at("hang"); !h.is_null()) {
    r.hang = sim::TrainingHang{h.at("epoch").get<std::int64_t>(),
                               h.at("step").get<std::int64_t>(),
                               h.at("collective").get<std::string>(),
                               h.at("collective_index").get<std::int64_t>(),
                               h.at("missing_ranks").get<std::vector<std::int64_t>>(),
                               h.at("message").get<std::string>()};
  }
  if (const auto& o = j.at("out_of_step"); !o.is_null()) {
    r.out_of_step = sim::OutOfStep{o.at("epoch").get<std::int64_t>(), o.at("step").get<std::int64_t>()};
  }
  if (const auto& e = j.at("error"); !e.is_null()) {
    r.error = trace::ErrorRecord{e.at("where").get<std::string>(), e.at("type").get<std::string>(),
                                 e.at("message").get<std::string>(), std::nullopt};
  }
  return r;
}

void post_outcome(KeyValueStore& store, std::int64_t rank, const trace::Json& outcome) {
  store.set(outcome_key(rank), outcome.dump());
}

std::vector<trace::Json> collect_outcomes(KeyValueStore& store, PeerMonitor& monitor) {
  const std::int64_t world = monitor.world_size();
  std::vector<std::optional<std::string>> texts(static_cast<std::size_t>(world));
  monitor.await_ranks("every rank's record", [&] {
    std::vector<std::int64_t> pending;
    for (std::int64_t r = 0; r < world; ++r) {
      auto& text = texts[static_cast<std::size_t>(r)];
      if (!text) text = store.try_get(outcome_key(r));
      if (!text) pending.push_back(r);
    }
    return pending;
  });
  std::vector<trace::Json> out;
  for (const auto& text : texts) out.push_back(trace::Json::parse(*text));
  return out;
}

void announce_complete(KeyValueStore& store) { store.set(kCompleteKey, "1"); }

void await_complete(KeyValueStore& store, PeerMonitor& monitor) {
  monitor.await_ranks("rank 0 to collect every record", [&] {
    return store.try_get(kCompleteKey) ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{0};
  });
}

void acknowledge(KeyValueStore& store, std::int64_t rank) { store.set(ack_key(rank), "1"); }

void await_acknowledgements(KeyValueStore& store, PeerMonitor& monitor,
                            std::optional<std::chrono::milliseconds> bound) {
  std::vector<bool> acked(static_cast<std::size_t>(monitor.world_size()), false);
  const auto until = std::chrono::steady_clock::now() + bound.value_or(std::chrono::milliseconds(0));
  monitor.await_ranks("every rank's acknowledgement", [&] {
    std::vector<std::int64_t> pending;
    if (bound && std::chrono::steady_clock::now() > until) return pending;
    for (std::int64_t r = 1; r < monitor.world_size(); ++r) {
      auto seen = acked[static_cast<std::size_t>(r)];
      if (!seen) seen = store.try_get(ack_key(r)).has_value();
      acked[static_cast<std::size_t>(r)] = seen;
      if (!seen) pending.push_back(r);
    }
    return pending;
  });
}

trace::Json assemble_trace(const trace::Json& config, bool error_names_rank, const std::vector<trace::Json>& outcomes,
                           const TraceOrigin& origin) {
  trace::Trace empty;
  empty.body = std::vector<trace::RankRecord>{};
  trace::Json j = trace::to_json(origin.case_name, config, empty);
  if (origin.family) j["family"] = *origin.family;
  trace::Json ref;
  ref["generator"] = "accel-sim-rank";
  ref["backend"] = origin.backend;
  ref["world_size"] = origin.world_size;
  ref["schema_version"] = trace::kSchemaVersion;
  j["reference"] = std::move(ref);
  for (const trace::Json& o : outcomes) {
    if (!o["error"].is_null()) {
      j["error"] = o["error"];
      if (error_names_rank) j["error"]["rank"] = o["rank"];
      return j;  // like the simulator: a configuration error and no ranks
    }
  }
  for (const trace::Json& o : outcomes) j["ranks"].push_back(o["record"]);
  return j;
}

}  // namespace accel::ranks
