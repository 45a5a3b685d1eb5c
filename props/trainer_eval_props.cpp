// Property 19: transformers.Trainer.evaluate() (core/trainer_evaluation, sim/trainer_eval_simulator).
//
// 19a. With even_batches, tensor gathers and compute_metrics, every rank's predictions are the sampler's order of
//      all n ids, each exactly once, whatever R, b, split_batches or the release: gather_for_metrics cuts the
//      padding of the last round (golden/cases-trainer-eval records it on 1-4 processes).
// 19b. eval_loss is not the mean over the samples but over the gathered losses, each rank's batch loss repeated
//      eval_batch_size times: on a sharded loader (no split_batches) the gathered slots run step by step, rank by
//      rank, b per batch, and the first n are kept, so eval_loss = sum over batches of kept_slots(B) * mean(B) / n,
//      computed here from the batches each rank evaluated. Exactly the mean over the samples when R = 1 or
//      n % b = 0 (no batch holds padding).
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "loader_config.hpp"
#include "properties.hpp"
#include "sim/trainer_eval_simulator.hpp"
#include "trace/trainer_eval_json.hpp"

namespace accel::props {
namespace {

struct EvalDraw {
  trace::Json config;
  trace::TrainerEvalCase parsed;
};

EvalDraw draw_eval(bool allow_split) {
  const std::int64_t R = *int_in(1, 5);
  const bool split = allow_split && *rc::gen::arbitrary<bool>();
  const std::int64_t b = split ? R * *int_in(1, 3) : *int_in(1, 6);
  trace::Json c = {{"api", "trainer-eval"},
                   {"transformers_version", *rc::gen::element<std::string>("5.25", "4.57")},
                   {"dataset_len", *int_in(1, 80)},
                   {"num_processes", R},
                   {"per_device_eval_batch_size", b},
                   {"dataloader_drop_last", false},
                   {"seed", *int_in(0, 100)},
                   {"data_seed", nullptr},
                   {"train_sampling_strategy", "random"},
                   {"accelerator_config",
                    {{"split_batches", split}, {"dispatch_batches", nullptr}, {"even_batches", true},
                     {"use_seedable_sampler", true}}},
                   {"eval_do_concat_batches", *rc::gen::arbitrary<bool>()},
                   {"compute_metrics", true},
                   {"eval_use_gather_object", false},
                   {"num_evaluations", *int_in(1, 2)}};
  return {c, trace::parse_trainer_eval_config(c)};
}

std::vector<std::int64_t> flat(const EvalArrays<std::int64_t>& a) {
  std::vector<std::int64_t> out;
  for (const auto& row : a.rows) out.insert(out.end(), row.begin(), row.end());
  return out;
}

}  // namespace

void trainer_eval_predictions_cover_every_sample_once() {
  const EvalDraw d = draw_eval(true);
  RC_LOG() << d.config.dump() << "\n";
  const std::int64_t n = d.config["dataset_len"].get<std::int64_t>();
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  for (const auto& rank : sim::simulate_trainer_eval(d.parsed).ranks) {
    RC_ASSERT(!rank.error);
    for (const auto& e : rank.evaluations) {
      RC_ASSERT(e.predictions.has_value());
      RC_ASSERT(flat(*e.predictions) == ids);
    }
  }
}

void trainer_eval_loss_weights_padded_batches() {
  const EvalDraw d = draw_eval(false);
  RC_LOG() << d.config.dump() << "\n";
  const std::int64_t n = d.config["dataset_len"].get<std::int64_t>();
  const std::int64_t R = d.config["num_processes"].get<std::int64_t>();
  const std::int64_t b = d.config["per_device_eval_batch_size"].get<std::int64_t>();
  const auto ranks = sim::simulate_trainer_eval(d.parsed).ranks;
  RC_TAG(R == 1 || n % b == 0 ? "no padding in a batch" : "padded last batches");
  for (std::size_t k = 0; k < ranks.front().evaluations.size(); ++k) {
    double weighted = 0, exact = 0;
    for (std::int64_t i = 0; i < n; ++i) exact += static_cast<double>(i);
    for (std::int64_t r = 0; r < R; ++r) {
      const auto& batches = ranks[static_cast<std::size_t>(r)].evaluations[k].batches;
      for (std::size_t s = 0; s < batches.size(); ++s) {
        const std::int64_t first_slot = static_cast<std::int64_t>(s) * R * b + r * b;
        const std::int64_t kept = std::clamp<std::int64_t>(n - first_slot, 0, b);
        const auto& B = batches[s];
        const double mean = std::accumulate(B.begin(), B.end(), 0.0) / static_cast<double>(B.size());
        weighted += static_cast<double>(kept) * mean;
      }
    }
    weighted /= static_cast<double>(n);
    exact /= static_cast<double>(n);
    for (const auto& rank : ranks) {
      const auto& loss = rank.evaluations[k].eval_loss;
      RC_ASSERT(loss.has_value());
      RC_ASSERT(std::fabs(*loss - weighted) <= 1e-5 * std::max(1.0, std::fabs(weighted)));
      if (R == 1 || n % b == 0) RC_ASSERT(std::fabs(*loss - exact) <= 1e-5 * std::max(1.0, exact));
    }
  }
}

}  // namespace accel::props
