// First divergence between two traces, in the domain's words (rank, epoch, batch).
//
// Compares every field except `reference` (provenance). Integers, booleans, strings and error types
// compare exactly; floating-point values (learning rates) with a relative tolerance of 1e-12, since
// torch's StepLR multiplies where a closed form would not.
#pragma once

#include <optional>
#include <string>

#include "trace_json.hpp"

namespace accel::trace {

struct Divergence {
  std::string path;      // JSON path, e.g. ranks[1].epochs[0].batches[3]
  std::string location;  // e.g. "rank 1, epoch 0, batch 3"
  std::string expected;  // compact JSON, or "(absent)"
  std::string actual;
};

std::optional<Divergence> first_divergence(const Json& expected, const Json& actual);

std::string describe(const Divergence& d);

}  // namespace accel::trace
