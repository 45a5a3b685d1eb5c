// The what-if report as a readable terminal table.
#pragma once

#include <string>

#include "analysis/what_if.hpp"

namespace accel::reports {

std::string render_terminal(const analysis::WhatIfReport& report);

}  // namespace accel::reports
