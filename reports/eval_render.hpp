// Renderers of the what-if's evaluation section (reports/eval_metrics.hpp): the terminal lines and the
// `eval` object of the JSON report (docs/report-json.md). They only lay out what eval_report computed.
#pragma once

#include <string>

#include "eval_metrics.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {

std::string render_eval_terminal(const EvalReport& report);
trace::Json render_eval_json(const EvalReport& report);

}  // namespace accel::reports
