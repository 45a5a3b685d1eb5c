#include "overflow_plan.hpp"

#include <algorithm>

namespace accel::sim {
namespace {

// splitmix64's finaliser: a well-mixed 64-bit value from (seed, micro-step), with no state to carry.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

OverflowPlan::OverflowPlan(std::vector<std::int64_t> micro_steps, std::optional<double> probability, std::uint64_t seed)
    : micro_steps_(std::move(micro_steps)), probability_(probability), seed_(seed) {
  std::sort(micro_steps_.begin(), micro_steps_.end());
}

bool OverflowPlan::overflows(std::int64_t micro_step) const {
  if (std::binary_search(micro_steps_.begin(), micro_steps_.end(), micro_step)) return true;
  if (!probability_ || *probability_ <= 0.0) return false;
  const std::uint64_t bits = mix(mix(seed_) ^ static_cast<std::uint64_t>(micro_step));
  const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  return u < *probability_;
}

}  // namespace accel::sim
