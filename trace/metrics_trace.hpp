// The trace model of the `metrics` family (golden/SCHEMA.md, section `metrics`): an evaluation loop over
// accelerator.prepare(dl) that calls gather_for_metrics and gather on every step. Plain values, no JSON
// (metrics_json.cpp reads and writes them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/batch.hpp"

namespace accel::trace {

inline constexpr const char* kMetricsApi = "accelerator+gather_for_metrics";

struct GatherError {
  std::string type;
  std::string message;
  friend bool operator==(const GatherError&, const GatherError&) = default;
};

// One step of the loop on one rank: its batch, what GradientState said when it gathered, and what came back.
struct GatherStepRecord {
  std::int64_t step = 0;
  Batch batch;
  bool end_of_dataloader = false;
  std::int64_t remainder = -1;
  std::optional<Batch> gather_for_metrics;
  std::optional<GatherError> gather_for_metrics_error;
  std::vector<std::string> log;  // lines Accelerate logged during gather_for_metrics
  std::optional<Batch> gather;
  std::optional<GatherError> gather_error;
};

struct MetricsRankError {
  std::string where;
  std::string type;
  std::string message;
};

struct MetricsRankRecord {
  std::int64_t rank = 0;
  std::string loader_class;
  std::vector<GatherStepRecord> steps;
  std::optional<MetricsRankError> error;
};

}  // namespace accel::trace
