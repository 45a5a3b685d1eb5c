// The `scheduler` family in JSON (golden/SCHEMA.md, section `scheduler`): config parsing with every
// field checked and named, and rank records written in the schema's key order. trace_json.cpp calls
// these for scheduler configs and traces.
#pragma once

#include <vector>

#include "trace_json.hpp"

namespace accel::trace {

// A config whose api is one of the two scheduler kinds. Raises ConfigError naming the field.
SchedulerCase parse_scheduler_config(const Json& config);

// The `ranks` list of a scheduler trace.
Json scheduler_ranks_json(const std::vector<SchedulerRankRecord>& ranks);

}  // namespace accel::trace
