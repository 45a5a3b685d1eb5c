#include "accumulate.hpp"

#include "error.hpp"
#include "mutation.hpp"

namespace accel {

bool Accumulator::do_sync(GradientState& state) {
  if (state.sync_with_dataloader() && state.end_of_dataloader() && !mutant(Mutation::AccumulateIgnoresEndOfDataloader)) {
    step_ = 0;
    state.set_sync_gradients(true);
  } else {
    ++step_;
    if (state.num_steps() == 0) {
      // Python's `step % 0` (GradientAccumulationPlugin does not check num_steps).
      throw AccelerateError(PyErrorType::ZeroDivisionError, "accumulate", "integer modulo by zero");
    }
    state.set_sync_gradients(step_ % state.num_steps() == 0);
  }
  return state.sync_gradients();
}

}  // namespace accel
