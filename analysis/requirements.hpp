// The CI correctness gate: named requirements evaluated on a what-if scenario, each failure with the
// minimal evidence (sample ids, ranks, steps) a user needs to see why.
#pragma once

#include <string>
#include <vector>

#include "analysis/what_if.hpp"

namespace accel::analysis {

// no-duplicates, no-drops, lockstep, len-consistent, full-coverage (= no-duplicates + no-drops).
const std::vector<std::string>& requirement_names();

struct RequirementResult {
  std::string name;
  bool holds = true;
  std::string evidence;  // empty when it holds
};

// Raises std::invalid_argument for an unknown name (the message lists the valid ones).
std::vector<RequirementResult> check_requirements(const Scenario& scenario, const std::vector<std::string>& names);

}  // namespace accel::analysis
