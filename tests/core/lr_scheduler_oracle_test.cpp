// LibTorch's own StepLR is the oracle for the core's StepLR: same lr, bit for bit, at every step.
//
// LibTorch's C++ schedulers take no step at construction (Python's take one), so LibTorch's (k+1)-th
// step() leaves the optimizer in the state Python's scheduler is in after its k-th.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/lr_scheduler.hpp"

namespace {

TEST(LRSchedulerOracle, StepLRMatchesLibTorch) {
  for (const auto& [step_size, gamma] : std::vector<std::pair<unsigned, double>>{{1, 0.5}, {4, 0.5}, {3, 0.1}, {7, 0.93}}) {
    std::vector<torch::Tensor> params{torch::zeros({1}, torch::requires_grad())};
    torch::optim::SGD sgd(params, torch::optim::SGDOptions(0.1));
    torch::optim::StepLR torch_sched(sgd, step_size, gamma);
    accel::LRScheduler ours(accel::StepSchedule{0.1, step_size, gamma});
    torch_sched.step();  // LibTorch's counterpart of Python's construction-time step
    for (int k = 0; k <= 60; ++k) {
      const double torch_lr = sgd.param_groups()[0].options().get_lr();
      ASSERT_EQ(ours.last_lr(), torch_lr) << "step_size=" << step_size << " gamma=" << gamma << " after " << k << " steps";
      ours.step();
      torch_sched.step();
    }
  }
}

}  // namespace
