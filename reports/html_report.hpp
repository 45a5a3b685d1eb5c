// The what-if report as one self-contained HTML page with inline SVG charts: steps per rank, a coverage
// strip over the dataset (seen once / duplicated / dropped) and a per-step timeline of every rank.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/what_if.hpp"

namespace accel::reports {

// Columns of the coverage strip (one bin of ids each; fewer when the dataset is smaller). A caller that
// will render HTML passes it as analysis::WhatIfOptions::coverage_bins so the analysis bins the strip once.
inline constexpr std::int64_t kHtmlCoverageBins = 760;

std::string render_html(const analysis::WhatIfReport& report);

}  // namespace accel::reports
