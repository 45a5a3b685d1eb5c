// `accel-sim compare --reference`: records a config with the real Accelerate (golden/record, in the reference
// environment golden/setup-reference makes), simulates the same config, and reports the first divergence.
//
// The recorder is found from $ACCEL_SIM_ROOT, else in <prefix>/share/accel-sim of an installed tree (the executable
// in <prefix>/bin), else by walking up from the executable to the checkout holding golden/record; the environment
// is $ACCEL_SIM_REFERENCE_VENV, else <checkout>/build/reference-venv, or for an installed tree
// ${XDG_CACHE_HOME:-~/.cache}/accel-sim/reference-venv.
#pragma once

#include <iosfwd>

#include "trace/trace_json.hpp"

namespace accel::cli {

inline constexpr int kCompareIdentical = 0;
inline constexpr int kCompareDiffer = 1;
inline constexpr int kCompareCannotRun = 2;

struct CompareRequest {
  trace::Json config;  // golden-schema config; without `torch_version` the reference's own torch is reproduced
};

// Prints "identical" (returns 0) or the first divergence (returns 1) on `out`; says why on `err` and returns 2
// when the reference cannot run (environment missing, golden/record failed) or the family is not simulated.
// Raises trace::ConfigError for a bad config.
int compare_with_reference(const CompareRequest& request, std::ostream& out, std::ostream& err);

}  // namespace accel::cli
