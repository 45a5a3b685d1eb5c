// The releases whose semantics the core reproduces: one Accelerate release (its sharding, samplers,
// dispatcher, GradientState, AcceleratedScheduler), and torch's shuffle for the two randperm loops.
#pragma once

namespace accel {

inline constexpr const char* kAccelerateVersion = "1.15.0";

}  // namespace accel
