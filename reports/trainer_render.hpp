// The Trainer what-if rendered: the terminal report and the JSON report of `accel-sim --api trainer`
// (docs/trainer.md). They only lay out what analysis::trainer_what_if computed.
#pragma once

#include <string>

#include "analysis/trainer_what_if.hpp"
#include "trace/trace_json.hpp"

namespace accel::reports {

std::string render_trainer_terminal(const analysis::TrainerReport& report);

// `input` is the resolved trainer-family config the report was computed from (echoed as `input`).
trace::Json render_trainer_json(const analysis::TrainerReport& report, const trace::Json& input);

}  // namespace accel::reports
