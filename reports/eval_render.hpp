// Renderers of the what-if's evaluation section (analysis/eval_metrics.hpp): the terminal lines and the
// `eval` object of the JSON report (docs/report-json.md). They only lay out what analysis::eval_report computed.
#pragma once

#include <string>

#include "analysis/eval_metrics.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {

std::string render_eval_terminal(const analysis::EvalReport& report);
trace::Json render_eval_json(const analysis::EvalReport& report);

}  // namespace accel::reports
