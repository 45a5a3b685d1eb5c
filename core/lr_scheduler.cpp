#include "lr_scheduler.hpp"

#include <charconv>
#include <cmath>
#include <numbers>

#include "error.hpp"

namespace accel {
namespace {

// Python's max(0.0, x): the first argument wins unless the second is strictly greater (so -0.0 and NaN
// both give 0.0).
double py_max0(double x) { return x > 0.0 ? x : 0.0; }

double warmup_factor(std::int64_t step, std::int64_t warmup_steps) {
  return static_cast<double>(step) / static_cast<double>(std::max<std::int64_t>(1, warmup_steps));
}

// str(float) as Python writes it, for torch's messages: shortest round trip, ".0" on integral values.
std::string py_float(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Python's float division, which raises where C++ would return inf or NaN.
double py_div(double num, double den) {
  if (den == 0.0) throw AccelerateError(PyErrorType::ZeroDivisionError, "scheduler.step", "float division by zero");
  return num / den;
}

}  // namespace

std::string scheduler_class_name(const ScheduleSpec& spec) {
  if (std::holds_alternative<StepSchedule>(spec)) return "StepLR";
  if (std::holds_alternative<OneCycleLinearSchedule>(spec)) return "OneCycleLR";
  return "LambdaLR";
}

LRScheduler::LRScheduler(ScheduleSpec spec) : spec_(std::move(spec)) {
  if (const auto* s = std::get_if<StepSchedule>(&spec_)) {
    if (s->step_size < 1) {
      throw AccelerateError(PyErrorType::ValueError, "StepLR",
                            "step_size must be a positive integer, got " + std::to_string(s->step_size));
    }
    lr_ = s->base_lr;
  }
  if (const auto* o = std::get_if<OneCycleLinearSchedule>(&spec_)) {
    if (o->total_steps <= 0) {
      throw AccelerateError(PyErrorType::ValueError, "OneCycleLR",
                            "Expected positive integer total_steps, but got " + std::to_string(o->total_steps));
    }
    if (!(o->pct_start >= 0.0 && o->pct_start <= 1.0)) {
      throw AccelerateError(PyErrorType::ValueError, "OneCycleLR",
                            "Expected float between 0 and 1 pct_start, but got " + py_float(o->pct_start));
    }
  }
  try {
    step();
  } catch (const AccelerateError& e) {
    // The construction-time step already runs get_lr(): its failures belong to the constructor.
    throw AccelerateError(e.type(), scheduler_class_name(spec_), e.message());
  }
}

std::optional<std::int64_t> LRScheduler::total_steps() const noexcept {
  if (const auto* o = std::get_if<OneCycleLinearSchedule>(&spec_)) return o->total_steps;
  return std::nullopt;
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  lr_ = next_lr();
}

double LRScheduler::next_lr() const {
  const std::int64_t s = last_epoch_;
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec_)) {
    const double f = s < p->warmup_steps
                         ? warmup_factor(s, p->warmup_steps)
                         : py_max0(static_cast<double>(p->training_steps - s) /
                                   static_cast<double>(std::max<std::int64_t>(1, p->training_steps - p->warmup_steps)));
    return p->base_lr * f;
  }
  if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec_)) {
    double f;
    if (s < p->warmup_steps) {
      f = warmup_factor(s, p->warmup_steps);
    } else {
      const double progress = static_cast<double>(s - p->warmup_steps) /
                              static_cast<double>(std::max<std::int64_t>(1, p->training_steps - p->warmup_steps));
      f = py_max0(0.5 * (1.0 + std::cos(std::numbers::pi * p->num_cycles * 2.0 * progress)));
    }
    return p->base_lr * f;
  }
  if (const auto* p = std::get_if<ConstantWarmupSchedule>(&spec_)) {
    return p->base_lr * (s < p->warmup_steps ? warmup_factor(s, p->warmup_steps) : 1.0);
  }
  if (const auto* p = std::get_if<StepSchedule>(&spec_)) {
    // Chainable form: torch multiplies the lr the optimizer holds now, so rounding accumulates exactly
    // as in torch (gamma ** k would differ in the last bits).
    if (s == 0 || s % p->step_size != 0) return lr_;
    return lr_ * p->gamma;
  }
  const auto& p = std::get<OneCycleLinearSchedule>(spec_);
  if (s > p.total_steps) {
    throw AccelerateError(PyErrorType::ValueError, "scheduler.step",
                          "Tried to step " + std::to_string(p.torch_version == TorchVersion::v1_13 ? s + 1 : s) + " times. The specified number of total steps is " +
                              std::to_string(p.total_steps));
  }
  const double initial_lr = p.max_lr / p.div_factor;
  const double min_lr = initial_lr / p.final_div_factor;
  // Phase ends as torch stores them: the warm-up end is a float, the last end an integer.
  const double warmup_end = p.pct_start * static_cast<double>(p.total_steps) - 1;
  const auto last_end = static_cast<double>(p.total_steps - 1);
  const auto step_num = static_cast<double>(s);
  if (step_num <= warmup_end) {
    const double pct = py_div(step_num - 0.0, warmup_end - 0.0);
    return (p.max_lr - initial_lr) * pct + initial_lr;
  }
  // The last phase also takes every step past its end, so the linear anneal extrapolates there.
  const double pct = py_div(step_num - warmup_end, last_end - warmup_end);
  return (min_lr - p.max_lr) * pct + p.max_lr;
}

}  // namespace accel
