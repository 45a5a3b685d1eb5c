// The `trainer-eval` family's JSON: its config (the TrainingArguments that decide the eval loader and what
// evaluation_loop gathers) and its trace (each rank's evaluate() calls: batches, gathered losses and predictions,
// eval_loss).
#pragma once

#include "trace_json.hpp"
#include "trainer_eval_case.hpp"

namespace accel::trace {

bool is_trainer_eval_config(const Json& config);

// Raises ConfigError naming the field and the rule.
TrainerEvalCase parse_trainer_eval_config(const Json& config);

Json trainer_eval_to_json(const std::string& case_name, const Json& config, const TrainerEvalTrace& trace);

}  // namespace accel::trace
