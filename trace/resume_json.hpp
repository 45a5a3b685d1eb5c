// The `resume` family's JSON: its config (an accelerator-family script plus `resume`) and its trace.
#pragma once

#include "resume_case.hpp"
#include "trace_json.hpp"

namespace accel::trace {

bool is_resume_config(const Json& config);

// Raises ConfigError naming the field and the rule.
ResumeCase parse_resume_config(const Json& config);

Json resume_to_json(const std::string& case_name, const Json& config, const ResumeTrace& trace);

}  // namespace accel::trace
