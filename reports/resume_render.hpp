// The resume what-if rendered: a terminal section and the `resume` object of the JSON report
// (docs/report-json.md). They only lay out what resume_what_if computed.
#pragma once

#include <string>

#include "resume_what_if.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {

std::string render_resume_terminal(const ResumeReport& report);

trace::Json render_resume_json(const ResumeReport& report);

}  // namespace accel::reports
