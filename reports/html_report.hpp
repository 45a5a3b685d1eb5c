// The what-if report as one self-contained HTML page (no script, no network) with inline SVG charts. It opens
// with the verdict and the findings of every section, errors first (analysis/findings.hpp, the list the terminal
// and JSON show), then the command line and versions, the options compared, steps per rank, the dataset's coverage
// (exact fractions per bin of ids), the per-step timeline of every rank (rows and steps aggregated at scale,
// the ranks that wait and the steps where they do always drawn), and, when they ran, the training loop's lr
// over the optimizer steps, the resume comparison and the evaluation pass, and the whole terminal report. One
// colour per state, with a legend; every cell and bar carries an SVG <title> tooltip (rank, step, sample ids).
#pragma once

#include <cstdint>
#include <string>

#include "analysis/findings.hpp"
#include "analysis/what_if.hpp"
#include "reports/full_terminal_report.hpp"

namespace accel::reports {

// Columns of the coverage strip (one bin of ids each; fewer when the dataset is smaller). A caller that
// will render HTML passes it as analysis::WhatIfOptions::coverage_bins so the analysis bins the strip (and
// lays out the timeline) once.
inline constexpr std::int64_t kHtmlCoverageBins = 760;

// `findings`: analysis::collect_findings over the same report and sections.
std::string render_html(const analysis::WhatIfReport& report, const analysis::Findings& findings,
                        const ReportSections& sections = {});

// The state colours (one meaning each), for tests that check a screenshot's pixels.
namespace html_colour {
inline constexpr const char* kBatch = "#3b6fb6";         // the rank has a batch at this step
inline constexpr const char* kDone = "#d9d9d9";          // no batch: the rank's loader is exhausted
inline constexpr const char* kHang = "#8e24aa";          // the rank waits forever in a collective here
inline constexpr const char* kBlocked = "#e1bee7";       // a batch the rank never reaches (blocked before it)
inline constexpr const char* kOnce = "#4c9a4c";          // sample yielded exactly once
inline constexpr const char* kDuplicated = "#e8912d";    // sample yielded more than once
inline constexpr const char* kDropped = "#d43c3c";       // sample never yielded
inline constexpr const char* kBeforeResume = "#9fc5c5";  // not yielded in a resumed pass: seen before the checkpoint
inline constexpr const char* kLr = "#1f77b4";
inline constexpr const char* kLrArea = "#cfe2f3";  // under the lr curve
// Each finding's severity badge, in colours used nowhere else on the page, so a screenshot shows which comes first.
inline constexpr const char* kErrorBadge = "#b0003a";
inline constexpr const char* kWarningBadge = "#c45f00";
inline constexpr const char* kNoteBadge = "#607080";
}  // namespace html_colour

}  // namespace accel::reports
