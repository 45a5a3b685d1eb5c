// The what-if report as stable, documented JSON (docs/report-json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "training_summary.hpp"
#include "what_if.hpp"

namespace accel::reports {

inline constexpr int kReportVersion = 1;

nlohmann::ordered_json render_json(const WhatIfReport& report);

// The training section (optimizer and scheduler steps per epoch).
nlohmann::ordered_json render_training_json(const TrainingSummary& summary);

}  // namespace accel::reports
