// torch's scheduler arithmetic: every expected lr is computed here from torch's / transformers'
// documented formulas, written out independently of core/lr_scheduler.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/lr_scheduler.hpp"

namespace accel {
namespace {

// transformers.get_linear_schedule_with_warmup's lambda.
double linear_lambda(std::int64_t s, std::int64_t w, std::int64_t t) {
  if (s < w) return double(s) / double(std::max<std::int64_t>(1, w));
  return std::max(0.0, double(t - s) / double(std::max<std::int64_t>(1, t - w)));
}

TEST(LRScheduler, ConstructionTakesTorchsInitialStep) {
  const LRScheduler s(LinearWarmupSchedule{0.1, 3, 30});
  EXPECT_EQ(s.last_epoch(), 0);
  EXPECT_EQ(s.step_count(), 1);
  EXPECT_EQ(s.last_lr(), 0.0);
  EXPECT_FALSE(s.total_steps().has_value());
}

TEST(LRScheduler, LinearWarmupIsBaseLrTimesTheLambda) {
  LRScheduler s(LinearWarmupSchedule{0.1, 3, 30});
  for (std::int64_t k = 1; k <= 35; ++k) {
    s.step();
    EXPECT_EQ(s.last_epoch(), k);
    EXPECT_EQ(s.step_count(), k + 1);
    EXPECT_EQ(s.last_lr(), 0.1 * linear_lambda(k, 3, 30)) << "step " << k;
  }
  EXPECT_EQ(s.last_lr(), 0.0);  // clamped at 0 past training_steps
}

TEST(LRScheduler, CosineAndConstantWarmupShapes) {
  LRScheduler cosine(CosineWarmupSchedule{0.2, 4, 20, 0.5});
  LRScheduler constant(ConstantWarmupSchedule{0.2, 4});
  for (std::int64_t k = 1; k <= 24; ++k) {
    cosine.step();
    constant.step();
    double cos_f, const_f;
    if (k < 4) {
      cos_f = const_f = double(k) / 4.0;
    } else {
      const double progress = double(k - 4) / double(20 - 4);
      cos_f = std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * 0.5 * 2.0 * progress)));
      const_f = 1.0;
    }
    EXPECT_EQ(cosine.last_lr(), 0.2 * cos_f) << "step " << k;
    EXPECT_EQ(constant.last_lr(), 0.2 * const_f) << "step " << k;
    if (k == 20) {
      EXPECT_NEAR(cosine.last_lr(), 0.0, 1e-17);
    }
  }
  // transformers' cosine does not clamp past training_steps: half a cycle later it climbs again.
  EXPECT_GT(cosine.last_lr(), 0.02);
}

TEST(LRScheduler, StepLRMultipliesTheCurrentLrAtEachBoundary) {
  LRScheduler s(StepSchedule{0.1, 4, 0.5});
  EXPECT_EQ(s.last_lr(), 0.1);
  double lr = 0.1;
  for (std::int64_t k = 1; k <= 25; ++k) {
    s.step();
    if (k % 4 == 0) lr = lr * 0.5;
    EXPECT_EQ(s.last_lr(), lr) << "step " << k;
    // The closed form gamma ** (k // step_size) agrees up to rounding.
    EXPECT_NEAR(s.last_lr(), 0.1 * std::pow(0.5, double(k / 4)), 1e-15);
  }
}

// OneCycleLR(anneal_strategy="linear", three_phase=False): warm-up from max_lr/div_factor to max_lr
// until step pct_start*total_steps - 1, then down to initial_lr/final_div_factor at total_steps - 1.
double onecycle_lr(std::int64_t step, double max_lr, std::int64_t total, double pct, double div, double final_div) {
  const double initial = max_lr / div;
  const double min_lr = initial / final_div;
  const double up_end = pct * double(total) - 1;
  const double down_end = double(total - 1);
  if (double(step) <= up_end) return (max_lr - initial) * (double(step) / up_end) + initial;
  return (min_lr - max_lr) * ((double(step) - up_end) / (down_end - up_end)) + max_lr;
}

TEST(LRScheduler, OneCycleLinearFollowsTorchsPhases) {
  LRScheduler s(OneCycleLinearSchedule{1.0, 12, 0.25, 25.0, 1e4});
  EXPECT_EQ(s.total_steps(), 12);
  EXPECT_EQ(s.last_lr(), 0.04);
  for (std::int64_t k = 1; k <= 12; ++k) {
    s.step();
    EXPECT_EQ(s.last_lr(), onecycle_lr(k, 1.0, 12, 0.25, 25.0, 1e4)) << "step " << k;
  }
  EXPECT_EQ(s.last_epoch(), 12);
  // Step total_steps is allowed and extrapolates the anneal below min_lr, to a negative lr.
  EXPECT_LT(s.last_lr(), 0.0);
}

TEST(LRScheduler, OneCycleOverrunMessageOfTorch113CountsFromOne) {
  OneCycleLinearSchedule spec{1.0, 12, 0.25, 25.0, 1e4};
  spec.torch_version = TorchVersion::v1_13;
  LRScheduler s(spec);
  for (int k = 0; k < 12; ++k) s.step();
  try {
    s.step();
    FAIL() << "stepping past total_steps must raise";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.message(), "Tried to step 14 times. The specified number of total steps is 12");
  }
}

TEST(LRScheduler, OneCyclePastTotalStepsRaisesAfterAdvancingItsCounters) {
  LRScheduler s(OneCycleLinearSchedule{1.0, 12, 0.25, 25.0, 1e4});
  for (int k = 0; k < 12; ++k) s.step();
  const double lr = s.last_lr();
  try {
    s.step();
    FAIL() << "stepping past total_steps must raise";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::ValueError);
    EXPECT_EQ(e.message(), "Tried to step 13 times. The specified number of total steps is 12");  // torch >= 2 counts from 0
  }
  EXPECT_EQ(s.last_epoch(), 13);
  EXPECT_EQ(s.step_count(), 14);
  EXPECT_EQ(s.last_lr(), lr);
}

TEST(LRScheduler, ConstructorChecksAreTorchs) {
  EXPECT_THROW(LRScheduler(OneCycleLinearSchedule{1.0, 0, 0.3, 25.0, 1e4}), AccelerateError);
  EXPECT_THROW(LRScheduler(OneCycleLinearSchedule{1.0, 10, 1.5, 25.0, 1e4}), AccelerateError);
  EXPECT_THROW(LRScheduler(StepSchedule{0.1, 0, 0.5}), AccelerateError);
  // pct_start * total_steps == 1 puts the warm-up end at 0.0: torch divides 0 by 0.0 at construction.
  try {
    LRScheduler s(OneCycleLinearSchedule{1.0, 4, 0.25, 25.0, 1e4});
    FAIL() << "expected ZeroDivisionError";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::ZeroDivisionError);
    EXPECT_EQ(e.where(), "OneCycleLR");
  }
}

}  // namespace
}  // namespace accel
