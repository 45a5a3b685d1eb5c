// The verdict, the what-if and each section that ran, in the order the terminal prints them.
#include "reports/full_terminal_report.hpp"

#include <sstream>

#include "reports/check_render.hpp"
#include "reports/eval_render.hpp"
#include "reports/resume_render.hpp"
#include "reports/terminal_report.hpp"
#include "reports/training_render.hpp"

namespace accel::reports {

std::string render_full_terminal(const analysis::WhatIfReport& report, const analysis::Findings& findings,
                                 const ReportSections& sections) {
  std::ostringstream os;
  os << "verdict: " << findings.verdict << "\n" << render_terminal(report);
  if (sections.training) os << "\n" << render_training_terminal(*sections.training);
  if (sections.resume) os << "\n" << render_resume_terminal(*sections.resume);
  if (sections.eval) os << "\n" << render_eval_terminal(*sections.eval);
  if (sections.gate) {
    os << "\nCI gate (check --require " << sections.requirements << "):\n" << render_check_text(*sections.gate);
  }
  return os.str();
}

}  // namespace accel::reports
