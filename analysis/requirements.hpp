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

// One requirement judged on one pass (or on the evaluation loop, or on a resumed job): a CI test case.
struct CheckOutcome {
  std::string requirement;  // "no-duplicates", "exact-resume", ...
  std::string pass;         // "first pass", "full pass", "evaluation pass", "resumed job"
  bool holds = true;
  std::string evidence;     // empty when it holds
  bool skipped = false;     // not judged (holds stays true); evidence says why
};

// Everything `accel-sim check --require` judged, in the order it was judged.
struct CheckReport {
  std::vector<CheckOutcome> outcomes;
  bool all_hold() const noexcept {
    for (const auto& o : outcomes) {
      if (!o.holds) return false;
    }
    return true;
  }
};

// Raises std::invalid_argument for an unknown name (the message lists the valid ones).
std::vector<RequirementResult> check_requirements(const Scenario& scenario, const std::vector<std::string>& names);

// The same requirements on a later pass's figures (every_pass): no-duplicates, no-drops, lockstep and
// full-coverage are judged; len-consistent is a property of the loader, judged on the first pass only, and
// is absent from the result. Names must be valid (check_requirements raised for the first pass).
std::vector<RequirementResult> check_pass_requirements(const PassFigures& pass, const std::vector<std::string>& names);

}  // namespace accel::analysis
