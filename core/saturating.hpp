// Saturating int64 arithmetic for positions that may lie far past the data (batch k of a skip_first_batches
// count near the input limit, times a total batch size near its own): the callers clamp the result to
// the epoch's length, so the largest int64 stands in for "past the end" without overflowing.
#pragma once

#include <cstdint>
#include <limits>

namespace accel {

inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
  return r;
}

inline std::int64_t sat_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
  return r;
}

}  // namespace accel
