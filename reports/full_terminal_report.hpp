// The whole report as the terminal shows it: the verdict line, then the what-if and every section that ran (training,
// resume, evaluation, the CI gate). One function, so the HTML page's "terminal report" box is the terminal's text.
#pragma once

#include <string>

#include "analysis/eval_metrics.hpp"
#include "analysis/findings.hpp"
#include "analysis/requirements.hpp"
#include "analysis/resume_what_if.hpp"
#include "analysis/training_summary.hpp"
#include "analysis/what_if.hpp"

namespace accel::reports {

// The sections beside the what-if that ran (null: not asked for).
struct ReportSections {
  const analysis::TrainingSummary* training = nullptr;
  const analysis::ResumeReport* resume = nullptr;
  const analysis::EvalReport* eval = nullptr;
  const analysis::CheckReport* gate = nullptr;  // --require's verdicts
  std::string requirements;                     // the --require list the gate judged
};

std::string render_full_terminal(const analysis::WhatIfReport& report, const analysis::Findings& findings,
                                 const ReportSections& sections = {});

}  // namespace accel::reports
