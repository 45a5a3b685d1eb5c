// The what-if report as stable, documented JSON (docs/report-json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "what_if.hpp"

namespace accel::reports {

inline constexpr int kReportVersion = 1;

nlohmann::ordered_json render_json(const WhatIfReport& report);

}  // namespace accel::reports
