// AcceleratedOptimizer: what the prepared optimizer does with a step request inside accumulate().
//
// The wrapped optimizer steps and zeroes its gradients only when GradientState.sync_gradients is set;
// on accumulation steps both calls do nothing. With a GradScaler (mixed precision) an overflow in the
// gradients makes the scaler skip the wrapped step, and step_was_skipped reports it, which is what
// stops AcceleratedScheduler from stepping. Accelerate only refreshes that flag on syncing steps, so
// during accumulation it keeps the value of the last optimizer step.
#pragma once

#include <cstdint>

#include "gradient_state.hpp"

namespace accel {

class AcceleratedOptimizer {
 public:
  explicit AcceleratedOptimizer(bool has_scaler = false) : has_scaler_(has_scaler) {}

  // optimizer.step(). `found_inf`: the scaler found inf/NaN in the gradients (ignored without a scaler,
  // where nothing checks).
  void step(const GradientState& state, bool found_inf = false);
  // optimizer.zero_grad().
  void zero_grad(const GradientState& state);

  bool step_was_skipped() const noexcept { return is_overflow_; }
  // Writes the flag directly, as the golden recorder does to stand for a scaler overflow at a given
  // micro-step (AcceleratedOptimizer._is_overflow); counts a skip when it turns a step into one.
  void set_step_was_skipped(bool skipped) noexcept;

  bool has_scaler() const noexcept { return has_scaler_; }
  // Wrapped optimizer steps requested on syncing micro-steps, and how many of them were skipped.
  std::int64_t optimizer_steps() const noexcept { return optimizer_steps_; }
  std::int64_t skipped_steps() const noexcept { return skipped_steps_; }
  std::int64_t zero_grads() const noexcept { return zero_grads_; }

 private:
  bool has_scaler_;
  bool is_overflow_ = false;
  bool last_call_synced_ = false;
  std::int64_t optimizer_steps_ = 0;
  std::int64_t skipped_steps_ = 0;
  std::int64_t zero_grads_ = 0;
};

}  // namespace accel
