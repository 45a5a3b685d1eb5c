// Accelerator.accumulate(): the Accelerator's micro-step counter (`Accelerator.step`) and _do_sync,
// which sets GradientState.sync_gradients on entry to each `with accelerator.accumulate(model):` block.
//
// A block syncs every num_steps-th time the counter advances, and on the last batch of a dataloader
// when sync_with_dataloader is set; that end-of-dataloader sync resets the counter to 0, so each
// epoch restarts the count and an epoch whose length is not a multiple of num_steps still ends on an
// optimizer step. Without sync_with_dataloader the count simply runs on across epochs.
#pragma once

#include <cstdint>

#include "gradient_state.hpp"

namespace accel {

class Accumulator {
 public:
  // _do_sync(): updates `state.sync_gradients` and returns it.
  bool do_sync(GradientState& state);

  // Accelerator.step: micro-steps since the last end-of-dataloader sync.
  std::int64_t step() const noexcept { return step_; }

 private:
  std::int64_t step_ = 0;
};

}  // namespace accel
