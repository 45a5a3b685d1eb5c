// The what-if report as one self-contained HTML page with inline SVG charts: steps per rank, a coverage
// strip over the dataset (seen once / duplicated / dropped) and a per-step timeline of every rank.
#pragma once

#include <string>

#include "what_if.hpp"

namespace accel::reports {

std::string render_html(const WhatIfReport& report);

}  // namespace accel::reports
