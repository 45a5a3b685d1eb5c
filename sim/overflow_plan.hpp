// Which micro-steps a loss-scaler overflow hits: an explicit list, plus (optionally) each micro-step
// with probability p from a seed.
//
// The draw for micro-step k depends only on (seed, k), so a run is reproducible and any micro-step can
// be asked about without replaying the earlier ones.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace accel::sim {

class OverflowPlan {
 public:
  OverflowPlan() = default;
  OverflowPlan(std::vector<std::int64_t> micro_steps, std::optional<double> probability, std::uint64_t seed);

  bool overflows(std::int64_t micro_step) const;

 private:
  std::vector<std::int64_t> micro_steps_;  // sorted
  std::optional<double> probability_;
  std::uint64_t seed_ = 0;
};

}  // namespace accel::sim
