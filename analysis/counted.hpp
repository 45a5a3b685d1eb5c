// A count and its noun in the right number ("1 sample", "2 samples", "1 rank"): every message that counts goes
// through it, so no report says "1 samples".
#pragma once

#include <cstdint>
#include <string>

namespace accel::analysis {

inline std::string counted(std::int64_t n, const std::string& singular, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

}  // namespace accel::analysis
