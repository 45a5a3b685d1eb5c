#include "analysis/eval_metrics.hpp"

#include "core/coverage.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/epoch_plan.hpp"
#include "core/prepare_data_loader.hpp"
#include "core/saturating.hpp"
#include "sim/metrics_simulator.hpp"
#include "sim/simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::analysis {
namespace {

void count_ids(const std::vector<SampleId>& returned, std::int64_t dataset_len, EvalOutcome& out) {
  // One byte per sample (an ordered map of every id was a quarter of a 64-rank x 1e6 upgrade); an id outside the
  // dataset, which no loader returns, is still counted apart.
  MultiplicityCounter times(dataset_len);
  std::set<SampleId> outside;
  for (SampleId id : returned) {
    if (id < 0 || id >= dataset_len) outside.insert(id);
    times.add(id);
  }
  const CoverageDetail d = times.finish(out.metric_duplicates.ids.max_ranges());
  out.metric_samples = static_cast<std::int64_t>(returned.size());
  out.metric_duplicates.count = out.metric_samples - d.counts.distinct - static_cast<std::int64_t>(outside.size());
  out.metric_duplicates.ids = d.duplicated_ids;
  out.metric_missing.count = d.counts.dropped;
  out.metric_missing.ids = d.dropped_ids;
}

// The options a user could change, each as the config it gives; only those that differ from the config.
std::vector<std::pair<EvalFix, trace::MetricsCase>> candidates(const trace::MetricsCase& m) {
  std::vector<std::pair<EvalFix, trace::MetricsCase>> out;
  const trace::LoaderCase& c = m.loader;
  const bool map = c.loader.dataset_kind == DatasetKind::Map;
  const bool dispatch = resolve_dispatch_batches(c.loader, c.prepare);
  auto add = [&](std::string label, std::string flags, trace::MetricsCase alt) {
    out.push_back({EvalFix{std::move(label), std::move(flags), {}}, std::move(alt)});
  };
  if (map && !dispatch && !c.prepare.even_batches) {
    trace::MetricsCase alt = m;
    alt.loader.prepare.even_batches = true;
    add("even_batches=True", "--even-batches", alt);
  }
  if (c.loader.drop_last) {
    trace::MetricsCase alt = m;
    alt.loader.loader.drop_last = false;
    add("drop_last=False", "without --drop-last", alt);
  }
  if (!m.use_gather_object) {
    trace::MetricsCase alt = m;
    alt.use_gather_object = true;
    add("gather_for_metrics(..., use_gather_object=True)", "--use-gather-object", alt);
  }
  if (!map && !dispatch) {
    trace::MetricsCase alt = m;
    alt.loader.prepare.dispatch_batches = true;
    alt.loader.prepare.put_on_device = true;
    add("dispatch_batches=True", "--dispatch-batches --put-on-device", alt);
  }
  if (!map) {
    // The same samples as a map-style dataset; dispatch_batches=None then means no dispatch.
    trace::MetricsCase alt = m;
    alt.loader.loader.dataset_kind = DatasetKind::Map;
    alt.loader.loader.dataset_generator_seed.reset();
    alt.loader.dataset_generator = false;
    const bool chosen = c.accelerator ? c.accelerator->dataloader_config.dispatch_batches.has_value() : true;
    if (!chosen) alt.loader.prepare.dispatch_batches.reset();
    alt.loader.prepare.dispatch_batches = resolve_dispatch_batches(alt.loader.loader, alt.loader.prepare);
    add("a map-style dataset (__len__ and __getitem__)", "--dataset map", alt);
  }
  if (m.break_after) {
    trace::MetricsCase alt = m;
    alt.break_after.reset();
    add("no break: the loop runs to the loader's end", "without --eval-break-after", alt);
  }
  return out;
}

std::string samples(std::int64_t n) { return std::to_string(n) + (n == 1 ? " sample" : " samples"); }

std::string describe(const EvalReport& r) {
  const EvalOutcome& o = r.outcome;
  std::ostringstream os;
  if (o.error) {
    os << "the evaluation loop fails: " << *o.error;
    return os.str();
  }
  os << "gather_for_metrics hands the metric " << samples(o.metric_samples) << " for a dataset of " << r.dataset_len;
  if (o.metric_duplicates.count > 0) {
    os << ", " << o.metric_duplicates.count << " of them duplicates (ids " << format_id_ranges(o.metric_duplicates.ids)
       << ")";
  }
  if (o.metric_missing.count > 0) {
    os << ", " << samples(o.metric_missing.count) << " missing (ids " << format_id_ranges(o.metric_missing.ids) << ")";
  }
  if (o.failure) os << "; the loop stops at step " << o.failure_step.value_or(0) << ": " << *o.failure;
  if (o.remainder_unknown) {
    os << "; GradientState.remainder is -1 on the last step, so nothing is cut (Accelerate logs \"The used dataset had "
          "no length\")";
  } else if (o.metric_duplicates.count > 0 && o.last_remainder == 0) {
    os << "; GradientState.remainder is 0 on the last step (the loader's total_dataset_length is a multiple of its "
          "total_batch_size), so the padding is not cut";
  }
  return os.str();
}

}  // namespace

std::int64_t gathered_ids_bound(const trace::LoaderCase& c) {
  PrepareOptions options = c.prepare;
  options.process_seed = sim::process_seed(c, 0);
  if (c.loader.dataset_kind == DatasetKind::Iterable && c.loader.workers.active()) {
    // Each worker yields at most its whole stream, padded to one more batch, on every rank.
    const std::int64_t per_worker = c.loader.dataset_len / c.loader.batch_size + 1;
    const std::int64_t steps = sat_mul(c.loader.workers.num_workers, per_worker);
    return sat_mul(sat_mul(steps, c.prepare.num_processes), c.loader.batch_size);
  }
  const EpochPlan plan(c.loader, options);
  std::int64_t steps = 0;
  for (std::int64_t r = 0; r < plan.num_ranks(); ++r) steps = std::max(steps, plan.batches(r));
  return sat_mul(sat_mul(steps, plan.num_ranks()), c.loader.batch_size);
}

EvalOutcome evaluate(const trace::MetricsCase& config) {
  // The pass is simulated id by id (every rank's batches gathered at every step), unlike the what-if's
  // closed-form counts: bounded up front rather than left to run out of memory.
  std::int64_t bound = 0;
  try {
    bound = gathered_ids_bound(config.loader);
  } catch (const AccelerateError&) {
    // The script fails before any pass: the simulation below raises it where the script does (Accelerator(...)).
  }
  if (bound > kMaxGatheredIds) {
    throw trace::ConfigError("--eval: the evaluation pass gathers up to " + std::to_string(bound) +
                             " sample ids (steps x ranks x batch_size), more than the " +
                             std::to_string(kMaxGatheredIds) +
                             " it simulates one by one (input limit); evaluate a smaller dataset or batch");
  }
  EvalOutcome out;
  const trace::Trace t = sim::simulate_rank0_steps(config);
  if (t.error) {
    out.error = t.error->type + " in " + t.error->where + ": " + t.error->message;
    return out;
  }
  const auto& ranks = std::get<std::vector<trace::MetricsRankRecord>>(t.body);
  std::vector<SampleId> returned;
  if (!ranks.empty()) {
    for (const trace::GatherStepRecord& s : ranks.front().steps) {
      if (s.gather) out.gather_samples += static_cast<std::int64_t>(s.gather->size());
      if (!s.gather_for_metrics) {
        out.failure = s.gather_for_metrics_error ? s.gather_for_metrics_error->message : "no result";
        out.failure_step = s.step;
        break;
      }
      returned.insert(returned.end(), s.gather_for_metrics->begin(), s.gather_for_metrics->end());
      out.remainder_unknown = out.remainder_unknown || !s.log.empty();
      if (s.end_of_dataloader) out.last_remainder = s.remainder;
      ++out.steps;
    }
  }
  for (const trace::MetricsRankRecord& r : ranks) {
    if (!r.error || out.failure || out.error) continue;
    if (r.error->where == "gather") {
      out.failure = "rank " + std::to_string(r.rank) + " waits forever: " + r.error->message;
      out.failure_step = out.steps;
    } else {
      out.error = "rank " + std::to_string(r.rank) + ": " + r.error->type + " in " + r.error->where + ": " + r.error->message;
    }
  }
  count_ids(returned, config.loader.loader.dataset_len, out);
  return out;
}

EvalReport eval_report(const trace::MetricsCase& config) {
  EvalReport r;
  r.dataset_len = config.loader.loader.dataset_len;
  r.use_gather_object = config.use_gather_object;
  r.break_after = config.break_after;
  r.outcome = evaluate(config);
  if (r.outcome.exact()) return r;
  for (auto& [fix, alt] : candidates(config)) {
    try {
      fix.outcome = evaluate(alt);
    } catch (const AccelerateError&) {
      continue;  // Accelerate rejects the alternative: not a fix
    } catch (const trace::ConfigError&) {
      continue;  // too large to simulate: not offered unverified
    }
    if (fix.outcome.exact()) r.verified_fixes.push_back(std::move(fix));
  }
  std::string warning = describe(r);
  if (r.verified_fixes.empty()) {
    warning += "; no single option makes it exact in simulation";
  } else {
    warning += "; exact in simulation with ";
    for (std::size_t i = 0; i < r.verified_fixes.size(); ++i) {
      warning += (i ? ", or " : "") + r.verified_fixes[i].label + " (" + r.verified_fixes[i].flags + ")";
    }
  }
  Warning w(code::kInexactMetrics, r.outcome.failure || r.outcome.error ? Severity::Error : Severity::Warning, warning);
  w.with("metric_duplicates", r.outcome.metric_duplicates.count).with("metric_missing", r.outcome.metric_missing.count);
  if (r.outcome.failure_step) w.with("failure_step", *r.outcome.failure_step);
  r.warnings.push_back(std::move(w));
  return r;
}

std::string exact_metrics_evidence(const EvalReport& report) {
  if (report.outcome.exact()) return "";
  std::string e = describe(report);
  if (!report.verified_fixes.empty()) {
    e += " (exact with " + report.verified_fixes.front().label + ": " + report.verified_fixes.front().flags + ")";
  }
  return e;
}

}  // namespace accel::analysis
