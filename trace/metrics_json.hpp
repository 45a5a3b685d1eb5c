// Reading and writing the `metrics` family (golden/SCHEMA.md): its config (an accelerator-family config
// plus use_gather_object and break_after) and its per-rank, per-step gather records.
#pragma once

#include <vector>

#include "trace.hpp"
#include "trace_json.hpp"

namespace accel::trace {

// A config whose api is kMetricsApi. Raises ConfigError naming the field.
MetricsCase parse_metrics_config(const Json& config);

Json metrics_ranks_json(const std::vector<MetricsRankRecord>& ranks);

}  // namespace accel::trace
