#include "trainer_eval_simulator.hpp"

#include <stdexcept>

#include "simulator.hpp"
#include "trace/recorder_words.hpp"
#include "trace/trace_json.hpp"

namespace accel::sim {
namespace {

// Whether evaluate() call k reads pass k of one loader (the global generator moves on) or pass 0 again.
bool order_moves_on(const trace::TrainerEvalCase& c) {
  const auto& g = c.loader.loader.length_grouping;
  return g && !g->generator_seed;
}

trace::TrainerEvalTrace simulate_calls(const trace::TrainerEvalCase& c, EvalLossSources* sources) {
  trace::LoaderCase loader = c.loader;
  const bool moves_on = order_moves_on(c);
  loader.epochs = moves_on ? c.num_evaluations : 1;
  loader.schedule.assign(static_cast<std::size_t>(loader.epochs), trace::LoaderRole::Prepared);
  const trace::Trace loaded = simulate(loader);
  const std::int64_t world = c.loader.prepare.num_processes;
  trace::TrainerEvalTrace out;
  for (std::int64_t r = 0; r < world; ++r) out.ranks.push_back({r, {}, std::nullopt});
  if (loaded.error) {
    // prepare raised on every rank, inside evaluate() (get_eval_dataloader).
    for (auto& rec : out.ranks) {
      rec.evaluations.push_back({});
      rec.error = trace::ErrorRecord{"evaluate", loaded.error->type, loaded.error->message, std::nullopt};
    }
    return out;
  }
  const auto& records = std::get<std::vector<trace::RankRecord>>(loaded.body);
  std::vector<bool> stopped(static_cast<std::size_t>(world), false);
  for (std::int64_t k = 0; k < c.num_evaluations; ++k) {
    std::vector<std::vector<EvaluationStep>> steps(static_cast<std::size_t>(world));
    std::vector<std::size_t> running;
    for (std::int64_t r = 0; r < world; ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (stopped[i]) continue;
      running.push_back(i);
      const trace::RankRecord& rec = records.at(i);
      const trace::PassRecord& p = rec.epochs.at(static_cast<std::size_t>(moves_on ? k : 0));
      if (rec.error || p.error) {
        const trace::ErrorRecord& e = rec.error ? *rec.error : *p.error;
        throw std::invalid_argument("the eval loader failed while iterating (" + e.type + ": " + e.message +
                                    "): not modelled for Trainer's evaluation");
      }
      for (std::size_t s = 0; s < p.batches.size(); ++s) {
        steps[i].push_back({p.batches[s], p.end_of_dataloader[s], p.remainder[s]});
      }
    }
    if (running.size() != static_cast<std::size_t>(world)) {
      // Some ranks left evaluate() for good (a Hang elsewhere): their next collectives would meet the waiting
      // ranks' pending ones, which nobody recorded.
      throw std::invalid_argument("another evaluate() after ranks fell out of step is not modelled");
    }
    EvaluationOptions options = c.options;
    options.use_gather_object = c.options.use_gather_object && k == 0;
    const auto results = evaluation_loop(steps, options);
    if (sources) {
      sources->emplace_back();
      for (const auto& e : results) sources->back().push_back(e.loss_sources);
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      const RankEvaluation& e = results[i];
      auto& rec = out.ranks[i];
      rec.evaluations.push_back({e.batches, e.losses, e.predictions, e.eval_loss});
      if (e.failure) {
        const std::string message = e.failure->type == "Hang"
                                        ? trace::recorder_hang_message(rec.rank, trace::kTrainerEvalRecorderTimeoutS)
                                        : e.failure->message;
        rec.error = trace::ErrorRecord{"evaluate", e.failure->type, message, std::nullopt};
        stopped[i] = true;
      }
    }
    bool any_stopped = false;
    for (bool s : stopped) any_stopped = any_stopped || s;
    bool all_stopped = true;
    for (bool s : stopped) all_stopped = all_stopped && s;
    if (all_stopped) break;
    if (any_stopped && k + 1 < c.num_evaluations) {
      throw std::invalid_argument("another evaluate() after ranks fell out of step is not modelled");
    }
  }
  return out;
}

}  // namespace

trace::TrainerEvalTrace simulate_trainer_eval(const trace::TrainerEvalCase& c, EvalLossSources* sources) {
  try {
    return simulate_calls(c, sources);
  } catch (const std::invalid_argument& e) {
    throw trace::ConfigError(std::string("trainer-eval: ") + e.what());
  }
}

}  // namespace accel::sim
