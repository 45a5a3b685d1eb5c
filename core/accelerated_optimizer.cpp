#include "accelerated_optimizer.hpp"

namespace accel {

void AcceleratedOptimizer::step(const GradientState& state, bool found_inf) {
  last_call_synced_ = state.sync_gradients();
  if (!last_call_synced_) return;
  ++optimizer_steps_;
  if (has_scaler_) {
    is_overflow_ = found_inf;
    if (is_overflow_) ++skipped_steps_;
  }
}

void AcceleratedOptimizer::zero_grad(const GradientState& state) {
  if (state.sync_gradients()) ++zero_grads_;
}

void AcceleratedOptimizer::set_step_was_skipped(bool skipped) noexcept {
  if (last_call_synced_ && skipped != is_overflow_) skipped_steps_ += skipped ? 1 : -1;
  is_overflow_ = skipped;
}

}  // namespace accel
