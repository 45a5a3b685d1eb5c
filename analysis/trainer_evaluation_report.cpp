#include "analysis/trainer_evaluation_report.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "sim/trainer_eval_simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::analysis {
namespace {

// The most loss values one simulated evaluation holds over all ranks (each rank keeps its own copy).
constexpr std::int64_t kMaxEvalValues = std::int64_t{1} << 23;

std::vector<std::vector<Batch>> batches_of(const trace::TrainerEvalTrace& t, std::size_t call) {
  std::vector<std::vector<Batch>> out;
  for (const auto& r : t.ranks) out.push_back(call < r.evaluations.size() ? r.evaluations[call].batches : std::vector<Batch>{});
  return out;
}

TrainerEvalCall summarize(const trace::TrainerEvalCase& c, const trace::TrainerEvalTrace& t,
                          const std::vector<std::optional<EvalArrays<LossSource>>>& sources, std::size_t k,
                          std::int64_t n) {
  TrainerEvalCall call;
  call.index = static_cast<std::int64_t>(k);
  call.gather_object = c.options.use_gather_object && k == 0;
  const auto batches = batches_of(t, k);
  for (const auto& b : batches) call.batches_per_rank.push_back(static_cast<std::int64_t>(b.size()));
  for (const auto& r : t.ranks) {
    if (r.error && k + 1 == r.evaluations.size()) call.failures.push_back({r.rank, r.error->type, r.error->message});
  }
  for (const auto& r : t.ranks) {
    if (k >= r.evaluations.size() || !r.evaluations[k].losses) continue;
    if (r.error && k + 1 == r.evaluations.size()) continue;
    call.reporting_rank = r.rank;
    const auto& e = r.evaluations[k];
    // Each kept loss value is the mean of one batch: it gives 1/|B| of a weight to every id B holds.
    std::vector<double> weight(static_cast<std::size_t>(n), 0.0);
    const auto& mine = sources.at(static_cast<std::size_t>(r.rank));
    if (!mine) continue;
    for (const auto& row : mine->rows) {
      for (const LossSource& s : row) {
        const Batch& b = batches[static_cast<std::size_t>(s.rank)][static_cast<std::size_t>(s.step)];
        for (SampleId id : b) weight[static_cast<std::size_t>(id)] += 1.0 / static_cast<double>(b.size());
        ++call.loss_values;
      }
    }
    // eval_loss = sum(w_i * loss_i) / sum(w_i), sum(w_i) being the number of values: the mean over the samples
    // exactly when every sample weighs the same (split_batches repeats each slice's loss on every rank: all twice).
    const double mean_weight = n > 0 ? static_cast<double>(call.loss_values) / static_cast<double>(n) : 1.0;
    for (std::int64_t id = 0; id < n; ++id) {
      const double w = weight[static_cast<std::size_t>(id)] / mean_weight;
      if (w > 1 + 1e-9) {
        call.overweighted.add(id);
        ++call.overweighted_count;
      } else if (w < 1 - 1e-9) {
        call.underweighted.add(id);
        ++call.underweighted_count;
      }
    }
    call.loss_exact = call.overweighted_count == 0 && call.underweighted_count == 0;
    if (e.predictions) {
      std::vector<std::int64_t> seen(static_cast<std::size_t>(n), 0);
      std::int64_t count = 0;
      for (const auto& row : e.predictions->rows) {
        for (std::int64_t id : row) {
          ++seen[static_cast<std::size_t>(id)];
          ++count;
        }
      }
      call.predictions = count;
      for (std::int64_t id = 0; id < n; ++id) {
        const std::int64_t s = seen[static_cast<std::size_t>(id)];
        if (s == 0) {
          call.missing_predictions.add(id);
          ++call.missing_count;
        } else if (s > 1) {
          call.duplicated_predictions.add(id);
          call.duplicated_count += s - 1;
        }
      }
      call.predictions_exact = call.missing_count == 0 && call.duplicated_count == 0;
    }
    break;
  }
  if (!call.reporting_rank && call.failures.empty()) {
    // Nothing gathered at all (no step: dataloader_drop_last over fewer samples than one round, or no samples).
    call.loss_exact = n == 0;
    call.predictions_exact = n == 0;
    for (std::int64_t id = 0; id < n; ++id) call.underweighted.add(id);
    call.underweighted_count = n;
    if (c.options.compute_metrics) {
      call.missing_count = n;
      for (std::int64_t id = 0; id < n; ++id) call.missing_predictions.add(id);
    }
  }
  return call;
}

struct Simulated {
  trace::TrainerEvalTrace trace;
  sim::EvalLossSources sources;  // [call][rank]
};

Simulated simulate(const trace::TrainerEvalCase& c) {
  Simulated s;
  s.trace = sim::simulate_trainer_eval(c, &s.sources);
  return s;
}

std::vector<TrainerEvalCall> calls_of(const trace::TrainerEvalCase& c, const Simulated& s) {
  std::size_t calls = 0;
  for (const auto& r : s.trace.ranks) calls = std::max(calls, r.evaluations.size());
  std::vector<TrainerEvalCall> out;
  const std::vector<std::optional<EvalArrays<LossSource>>> none(s.trace.ranks.size());
  for (std::size_t k = 0; k < calls; ++k) {
    out.push_back(summarize(c, s.trace, k < s.sources.size() ? s.sources[k] : none, k, c.loader.loader.dataset_len));
  }
  return out;
}

bool all_exact(const trace::TrainerEvalCase& c) {
  try {
    const auto calls = calls_of(c, simulate(c));
    for (const auto& call : calls) {
      if (!call.exact()) return false;
    }
    return !calls.empty();
  } catch (const trace::ConfigError&) {
    return false;
  }
}

using Change = std::pair<std::string, std::function<void(trace::TrainerEvalCase&)>>;

Change batch_size_change(std::int64_t b) {
  return {"per_device_eval_batch_size=" + std::to_string(b), [b](trace::TrainerEvalCase& x) {
            x.options.eval_batch_size = b;
            x.loader.loader.batch_size = b;
            if (x.loader.loader.length_grouping) x.loader.loader.length_grouping->batch_size = b;
          }};
}

// The first change whose simulation is exact, in the order a user would try them: one switch (gather_object off,
// even_batches on, drop_last off), then the largest smaller per_device_eval_batch_size, then the switches together
// with it. At most kMaxBatchTries batch sizes are simulated.
std::optional<std::string> find_exact_alternative(const trace::TrainerEvalCase& c) {
  constexpr std::int64_t kMaxBatchTries = 64;
  std::vector<Change> switches;
  if (c.options.use_gather_object) {
    switches.emplace_back("eval_use_gather_object=False", [](auto& x) { x.options.use_gather_object = false; });
  }
  if (!c.loader.prepare.even_batches) {
    switches.emplace_back("accelerator_config even_batches=True", [](auto& x) { x.loader.prepare.even_batches = true; });
  }
  if (c.loader.loader.drop_last) {
    switches.emplace_back("dataloader_drop_last=False (it applies to the train loader too)",
                          [](auto& x) { x.loader.loader.drop_last = false; });
  }
  const auto exact_with = [&](const std::vector<const Change*>& changes) {
    trace::TrainerEvalCase alt = c;
    std::string what;
    for (const Change* ch : changes) {
      ch->second(alt);
      what += (what.empty() ? "" : " and ") + ch->first;
    }
    return all_exact(alt) ? std::optional<std::string>(what + " (simulated: exact)") : std::nullopt;
  };
  for (const auto& sw : switches) {
    if (auto found = exact_with({&sw})) return found;
  }
  const std::int64_t b = c.options.eval_batch_size;
  for (bool with_switches : {false, true}) {
    if (with_switches && switches.empty()) break;
    for (std::int64_t smaller = b - 1; smaller >= std::max<std::int64_t>(1, b - kMaxBatchTries); --smaller) {
      const Change size = batch_size_change(smaller);
      std::vector<const Change*> changes;
      if (with_switches) {
        for (const auto& sw : switches) changes.push_back(&sw);
      }
      changes.push_back(&size);
      if (auto found = exact_with(changes)) return found;
    }
  }
  return std::nullopt;
}

std::string ranks_text(const std::vector<TrainerEvalRankFailure>& f, const std::string& type) {
  std::string out;
  for (const auto& x : f) {
    if (x.type == type) out += (out.empty() ? "" : ", ") + std::to_string(x.rank);
  }
  return out;
}

void collect_findings(TrainerEvalReport& r) {
  const auto& c = r.config;
  const std::string fix = r.exact_alternative ? "; " + *r.exact_alternative : "";
  for (const auto& call : r.calls) {
    const std::string at = r.calls.size() > 1 ? "evaluate() call " + std::to_string(call.index) + ": " : "";
    if (!call.failures.empty()) {
      const auto& f = call.failures.front();
      std::string message;
      if (f.type == "Hang" || ranks_text(call.failures, "Hang").size()) {
        const std::string waiting = ranks_text(call.failures, "Hang");
        message = at + (waiting.find(',') == std::string::npos ? "rank " + waiting + " has" : "ranks " + waiting + " have") +
                  " one batch more than the others (even_batches=False) and waits forever in its gather; the others "
                  "return an evaluation cut at their own last step";
        r.findings.push_back(Warning(code::kEvalHang, Severity::Error, message + fix)
                                 .with("call", call.index)
                                 .with("batches_per_rank", call.batches_per_rank));
      } else if (f.type == "Crash" || f.type == "RuntimeError" || f.type == "CollectiveMismatch") {
        message = at + "the ranks' last batches differ in size (even_batches=False) and gloo's all_gather of the "
                       "logits aborts (" +
                  (ranks_text(call.failures, "Crash").empty() ? std::string("every rank")
                                                              : "SIGABRT on rank " + ranks_text(call.failures, "Crash")) +
                  ")";
        r.findings.push_back(Warning(code::kEvalCrash, Severity::Error, message + fix).with("call", call.index));
      } else {
        std::string what = f.message;
        if (!what.empty() && what.back() == '.') what.pop_back();
        message = at + "evaluate() raises " + f.type + ": " + what;
        if (call.gather_object) message += " (eval_use_gather_object over a single step)";
        r.findings.push_back(Warning(code::kEvalError, Severity::Error, message + fix).with("call", call.index));
      }
      continue;
    }
    if (!call.predictions_exact && call.predictions) {
      std::string message = at + "compute_metrics receives " + std::to_string(*call.predictions) + " predictions for " +
                            std::to_string(r.dataset_len) + " samples: " + std::to_string(call.missing_count) +
                            " missing (ids " + format_id_ranges(call.missing_predictions, call.missing_count) + ")";
      if (call.duplicated_count) message += ", " + std::to_string(call.duplicated_count) + " duplicated";
      if (call.gather_object) message += " (eval_use_gather_object pairs the steps' lists element by element)";
      r.findings.push_back(Warning(code::kEvalPredictionsWrong, Severity::Error, message + fix)
                               .with("call", call.index)
                               .with("missing", call.missing_count)
                               .with("duplicated", call.duplicated_count));
    }
    if (!call.loss_exact) {
      std::string message = at + "eval_loss is not the mean over the " + std::to_string(r.dataset_len) +
                            " eval samples: ";
      if (call.overweighted_count) {
        message += std::to_string(call.overweighted_count) + " ids weigh more than the others (" +
                   format_id_ranges(call.overweighted, call.overweighted_count) + ")";
      }
      if (call.underweighted_count) {
        message += std::string(call.overweighted_count ? ", " : "") + std::to_string(call.underweighted_count) +
                   " less (" + format_id_ranges(call.underweighted, call.underweighted_count) + ")";
      }
      message += c.loader.loader.drop_last && call.loss_values == 0
                     ? " (dataloader_drop_last leaves no full round of batches)"
                 : c.loader.loader.drop_last ? " (dataloader_drop_last skips the last round)"
                                             : " (every step's loss is repeated per_device_eval_batch_size times and a "
                                               "batch padded from the dataset's start is averaged with its padding)";
      r.findings.push_back(Warning(code::kEvalLossWeighted, Severity::Warning, message + fix)
                               .with("call", call.index)
                               .with("overweighted", call.overweighted_count)
                               .with("underweighted", call.underweighted_count));
    }
  }
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Warning& a, const Warning& b) { return a.severity < b.severity; });
}

}  // namespace

TrainerEvalReport trainer_evaluation_report(const trace::TrainerEvalCase& c) {
  const std::int64_t n = c.loader.loader.dataset_len;
  const std::int64_t world = c.loader.prepare.num_processes;
  if (n > 0 && world > kMaxEvalValues / n) {
    throw trace::ConfigError("the evaluation simulates " + std::to_string(world) + " ranks x " + std::to_string(n) +
                             " eval samples; at most " + std::to_string(kMaxEvalValues) +
                             " in all (input limit): give fewer eval samples or ranks");
  }
  TrainerEvalReport r;
  r.config = c;
  r.dataset_len = n;
  const Simulated s = simulate(c);
  r.calls = calls_of(c, s);
  if (!r.exact()) r.exact_alternative = find_exact_alternative(c);
  collect_findings(r);
  return r;
}

std::string trainer_eval_evidence(const TrainerEvalReport& r) {
  if (r.exact()) return "";
  if (!r.findings.empty()) return r.findings.front().message;
  return "no evaluation step ran";
}

}  // namespace accel::analysis
