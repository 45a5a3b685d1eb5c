// The what-if report as stable, documented JSON (docs/report-json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/training_summary.hpp"
#include "analysis/what_if.hpp"

namespace accel::reports {

// 2: warnings are objects {code, severity, message, ...evidence}; `input`, `versions`, `passes` and
// `command_line` added (docs/report-json.md, "From version 1 to 2").
inline constexpr int kReportVersion = 2;

nlohmann::ordered_json render_json(const analysis::WhatIfReport& report);

// The resolved configuration the what-if analysed (scenarios[0]'s), every option with its value, defaults
// included: the report's `input` object.
nlohmann::ordered_json render_input(const trace::LoaderCase& config);

// The training loop's options as resolved (the `input.training` object).
nlohmann::ordered_json render_training_input(const analysis::TrainingSummary& summary);

// The training section (optimizer and scheduler steps per epoch).
nlohmann::ordered_json render_training_json(const analysis::TrainingSummary& summary);

}  // namespace accel::reports
