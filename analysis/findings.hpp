// The report's findings from every section at once (loader, training, resume, evaluation), errors first, and the
// one-line verdict the report opens with: each section computes its own warnings; this only gathers, orders and
// summarises them, so the terminal, JSON and HTML renderers show one list in one order.
#pragma once

#include <string>
#include <vector>

#include "analysis/eval_metrics.hpp"
#include "analysis/resume_what_if.hpp"
#include "analysis/training_summary.hpp"
#include "analysis/warning.hpp"
#include "analysis/what_if.hpp"

namespace accel::analysis {

struct Finding {
  std::string section;  // "loader", "training", "resume", "eval"
  Warning warning;
};

struct Findings {
  std::vector<Finding> list;  // errors, then warnings, then notes; each section's own order within a severity
  std::string verdict;        // "error[uneven-steps-hang]: ... (+2 more below)" or "every sample once per epoch, ..."
  // The same verdict for a dict (JSON, Python): "(+2 more findings)", since no list follows it on a screen.
  std::string verdict_json;
};

inline constexpr const char* kResumeNotIdentical = "resume-not-identical";

Findings collect_findings(const WhatIfReport& loader, const TrainingSummary* training, const ResumeReport* resume,
                          const EvalReport* eval);

}  // namespace accel::analysis
