#include "metrics_simulator.hpp"

#include <algorithm>

#include "core/gather_for_metrics.hpp"
#include "simulator.hpp"

namespace accel::sim {

std::string left_loop_message(const std::vector<std::int64_t>& left, std::int64_t step) {
  std::string ranks;
  for (std::size_t i = 0; i < left.size(); ++i) ranks += (i ? ", " : "") + std::to_string(left[i]);
  return "ranks " + ranks + " had no batch at step " + std::to_string(step) + ": the gather never completes";
}

namespace {

trace::Trace simulate_metrics(const trace::MetricsCase& config, bool every_rank) {
  trace::LoaderCase one_pass = config.loader;
  one_pass.epochs = 1;
  // The pass the loop gathers over: the prepared loader's, or the resumed one skip_first_batches builds (whose
  // remainder 1.16.0 knows: skipped_total_batch_size_reads_through).
  const bool resumed = !config.loader.schedule.empty() && config.loader.schedule.front() == trace::LoaderRole::Skipped;
  one_pass.schedule.assign(1, resumed ? trace::LoaderRole::Skipped : trace::LoaderRole::Prepared);
  trace::Trace loaded = simulate(one_pass);
  trace::Trace out;
  out.error = loaded.error;
  std::vector<trace::MetricsRankRecord> ranks;
  const auto& records = std::get<std::vector<trace::RankRecord>>(loaded.body);
  const auto world = static_cast<std::int64_t>(records.size());
  // The batches each rank's loop sees, up to its loop's end (the loader's end, an error, or break_after).
  std::vector<const trace::PassRecord*> passes;
  for (const trace::RankRecord& r : records) {
    trace::MetricsRankRecord m;
    m.rank = r.rank;
    m.loader_class = r.attributes.loader_class;
    const trace::PassRecord& p = r.epochs.at(0);
    if (p.error) m.error = trace::MetricsRankError{p.error->where, p.error->type, p.error->message};
    if (r.error) m.error = trace::MetricsRankError{r.error->where, r.error->type, r.error->message};
    passes.push_back(&p);
    ranks.push_back(std::move(m));
  }
  auto steps_of = [&](std::int64_t r) {
    const auto n = static_cast<std::int64_t>(passes[static_cast<std::size_t>(r)]->batches.size());
    return config.break_after ? std::min(n, *config.break_after) : n;
  };
  for (std::int64_t step = 0; world > 0; ++step) {
    std::vector<std::int64_t> left;
    for (std::int64_t r = 0; r < world; ++r) if (step >= steps_of(r)) left.push_back(r);
    if (static_cast<std::int64_t>(left.size()) == world) break;
    if (!left.empty()) {
      for (std::int64_t r = 0; r < world; ++r) {
        if (step < steps_of(r)) ranks[static_cast<std::size_t>(r)].error = trace::MetricsRankError{"gather", "Hang", left_loop_message(left, step)};
      }
      break;
    }
    std::vector<Batch> per_rank;
    for (std::int64_t r = 0; r < world; ++r) per_rank.push_back(passes[static_cast<std::size_t>(r)]->batches[static_cast<std::size_t>(step)]);
    const GatherOutcome plain = gather(per_rank);
    for (std::int64_t r = 0; r < (every_rank ? world : 1); ++r) {
      const trace::PassRecord& p = *passes[static_cast<std::size_t>(r)];
      trace::GatherStepRecord s;
      s.step = step;
      s.batch = per_rank[static_cast<std::size_t>(r)];
      s.end_of_dataloader = p.end_of_dataloader[static_cast<std::size_t>(step)];
      s.remainder = p.remainder[static_cast<std::size_t>(step)];
      const GatherOutcome metric = gather_for_metrics(per_rank, s.end_of_dataloader, s.remainder,
                                                      config.use_gather_object, r == 0, config.loader.prepare.release);
      s.gather_for_metrics = metric.ids;
      if (metric.unequal_sizes) s.gather_for_metrics_error = trace::GatherError{"UnequalSizes", *metric.unequal_sizes};
      // Accelerate's MultiProcessAdapter prefixes every line with the process index.
      // (1.13.0 on: logger_prefixes_rank.)
      if (metric.logged_no_length) {
        const bool prefixed = logger_prefixes_rank(config.loader.prepare.release);
        s.log.push_back((prefixed ? "[RANK " + std::to_string(r) + "] " : std::string()) + kGatherNoLengthLog);
      }
      s.gather = plain.ids;
      if (plain.unequal_sizes) s.gather_error = trace::GatherError{"UnequalSizes", *plain.unequal_sizes};
      ranks[static_cast<std::size_t>(r)].steps.push_back(std::move(s));
    }
  }
  out.body = std::move(ranks);
  return out;
}

}  // namespace

trace::Trace simulate(const trace::MetricsCase& config) { return simulate_metrics(config, true); }

trace::Trace simulate_rank0_steps(const trace::MetricsCase& config) { return simulate_metrics(config, false); }

}  // namespace accel::sim
