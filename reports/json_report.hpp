// The what-if report as stable, documented JSON (docs/report-json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/training_summary.hpp"
#include "analysis/what_if.hpp"

namespace accel::reports {

inline constexpr int kReportVersion = 1;

nlohmann::ordered_json render_json(const analysis::WhatIfReport& report);

// The training section (optimizer and scheduler steps per epoch).
nlohmann::ordered_json render_training_json(const analysis::TrainingSummary& summary);

}  // namespace accel::reports
