// The resume what-if rendered: a terminal section and the `resume` object of the JSON report
// (docs/report-json.md). They only lay out what analysis::resume_what_if computed.
#pragma once

#include <string>

#include "analysis/resume_what_if.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {

std::string render_resume_terminal(const analysis::ResumeReport& report);

trace::Json render_resume_json(const analysis::ResumeReport& report);

// The resume options as resolved (the `input.resume` object of the JSON report).
trace::Json render_resume_input(const analysis::ResumeReport& report);

// The parts the Trainer resume shares: the verdict line and per-epoch table, the outcome's JSON keys (identical,
// same_shape, extra, missing, epochs) put into `j`, and the recipe object.
std::string render_resume_outcome(const analysis::ResumeOutcome& outcome);
void put_resume_outcome_json(trace::Json& j, const analysis::ResumeOutcome& outcome);
trace::Json render_recipe_json(const analysis::ResumeRecipe& recipe);

}  // namespace accel::reports
