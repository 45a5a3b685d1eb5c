#include "eval_render.hpp"

#include <sstream>

#include "reports/warning_render.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {
namespace {

trace::Json id_count_json(const analysis::IdCount& c) {
  trace::Json j;
  j["count"] = c.count;
  j["first_ids"] = c.ids.first_ids(10);
  j["id_ranges"] = trace::id_ranges_json(c.ids);
  return j;
}

std::string ids_line(const analysis::IdCount& c) {
  std::ostringstream os;
  os << c.count;
  if (c.count == 0) return os.str();
  os << " (ids ";
  os << format_id_ranges(c.ids);
  os << ")";
  return os.str();
}

trace::Json outcome_json(const analysis::EvalOutcome& o) {
  trace::Json j;
  j["exact"] = o.exact();
  j["steps"] = o.steps;
  j["metric_samples"] = o.metric_samples;
  j["metric_duplicates"] = id_count_json(o.metric_duplicates);
  j["metric_missing"] = id_count_json(o.metric_missing);
  j["gather_samples"] = o.gather_samples;
  j["remainder_unknown"] = o.remainder_unknown;
  j["last_remainder"] = o.last_remainder ? trace::Json(*o.last_remainder) : trace::Json(nullptr);
  j["failure"] = o.failure ? trace::Json(*o.failure) : trace::Json(nullptr);
  j["failure_step"] = o.failure_step ? trace::Json(*o.failure_step) : trace::Json(nullptr);
  j["error"] = o.error ? trace::Json(*o.error) : trace::Json(nullptr);
  return j;
}

}  // namespace

std::string render_eval_terminal(const analysis::EvalReport& r) {
  const analysis::EvalOutcome& o = r.outcome;
  std::ostringstream os;
  os << "Evaluation: accelerator.gather_for_metrics(batch" << (r.use_gather_object ? ", use_gather_object=True" : "")
     << ") every step" << (r.break_after ? ", loop breaks at step " + std::to_string(*r.break_after) : "") << "\n";
  if (o.error) {
    os << "  the loop fails: " << *o.error << "\n";
  } else {
    os << "  steps gathered      " << o.steps << "\n";
    os << "  metric samples      " << o.metric_samples << " (dataset " << r.dataset_len << ")\n";
    os << "  metric duplicates   " << ids_line(o.metric_duplicates) << "\n";
    os << "  metric missing      " << ids_line(o.metric_missing) << "\n";
    os << "  plain gather        " << o.gather_samples << " samples\n";
    if (o.failure) os << "  stops at step " << o.failure_step.value_or(0) << ": " << *o.failure << "\n";
  }
  os << "  " << (o.exact() ? "exact: every sample reaches the metric exactly once" : "INEXACT") << "\n";
  os << warning_lines(r.warnings, "  ");
  return os.str();
}

trace::Json render_eval_json(const analysis::EvalReport& r) {
  trace::Json j = outcome_json(r.outcome);
  j["dataset_len"] = r.dataset_len;
  j["use_gather_object"] = r.use_gather_object;
  j["break_after"] = r.break_after ? trace::Json(*r.break_after) : trace::Json(nullptr);
  trace::Json fixes = trace::Json::array();
  for (const analysis::EvalFix& f : r.verified_fixes) {
    trace::Json fj;
    fj["label"] = f.label;
    fj["flags"] = f.flags;
    fj["outcome"] = outcome_json(f.outcome);
    fixes.push_back(std::move(fj));
  }
  j["verified_fixes"] = std::move(fixes);
  j["warnings"] = warnings_json(r.warnings);
  return j;
}

}  // namespace accel::reports
