#include "training_summary.hpp"

#include <sstream>

namespace accel::reports {
namespace {

std::string number(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string describe(const ScheduleSpec& spec) {
  std::ostringstream os;
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec)) {
    os << "linear (LambdaLR, lr " << number(p->base_lr) << ", warmup " << p->warmup_steps << ", total_steps "
       << p->training_steps << ")";
  } else if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec)) {
    os << "cosine (LambdaLR, lr " << number(p->base_lr) << ", warmup " << p->warmup_steps << ", total_steps "
       << p->training_steps << ")";
  } else if (const auto* p = std::get_if<ConstantWarmupSchedule>(&spec)) {
    os << "constant (LambdaLR, lr " << number(p->base_lr) << ", warmup " << p->warmup_steps << ")";
  } else if (const auto* p = std::get_if<StepSchedule>(&spec)) {
    os << "step (StepLR, lr " << number(p->base_lr) << ", step_size " << p->step_size << ", gamma "
       << number(p->gamma) << ")";
  } else {
    const auto& o = std::get<OneCycleLinearSchedule>(spec);
    os << "onecycle (OneCycleLR linear, max_lr " << number(o.max_lr) << ", total_steps " << o.total_steps
       << ", pct_start " << number(o.pct_start) << ")";
  }
  return os.str();
}

std::optional<std::int64_t> length_of(const ScheduleSpec& spec) {
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec)) return p->training_steps;
  if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec)) return p->training_steps;
  if (const auto* p = std::get_if<OneCycleLinearSchedule>(&spec)) return p->total_steps;
  return std::nullopt;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

TrainingSummary summarize_training(const trace::SchedulerCase& config, const trace::SchedulerRankRecord& rank) {
  TrainingSummary s;
  s.num_processes = config.num_processes;
  s.split_batches = config.split_batches;
  s.gradient_accumulation_steps = rank.effective.gradient_state_num_steps;
  s.steps_per_optimizer_step = config.step_with_optimizer && !config.split_batches ? config.num_processes : 1;
  s.schedule = describe(config.scheduler);
  s.schedule_length = length_of(config.scheduler);
  s.initial_lr = rank.initial.lr;
  s.error = rank.error;
  for (std::int64_t e = 0; e < config.epochs; ++e) s.epochs.push_back({e, 0, 0, 0, 0, rank.initial.last_epoch, rank.initial.lr});
  std::int64_t last_epoch = rank.initial.last_epoch;
  double lr = rank.initial.lr;
  std::int64_t current = 0;
  for (const trace::MicroStepRecord& step : rank.steps) {
    // Epochs without micro-steps keep the state the previous one ended with.
    for (; current < step.epoch; ++current) {
      s.epochs[static_cast<std::size_t>(current)].last_epoch_end = last_epoch;
      s.epochs[static_cast<std::size_t>(current)].lr_end = lr;
    }
    EpochTraining& ep = s.epochs[static_cast<std::size_t>(step.epoch)];
    ++ep.micro_steps;
    if (step.sync_gradients) {
      if (step.step_was_skipped) {
        ++ep.skipped_steps;
      } else {
        ++ep.optimizer_steps;
        ++s.optimizer_steps;
        if (config.step_with_optimizer) s.guarded_steps += s.steps_per_optimizer_step - step.scheduler_calls;
      }
    }
    ep.scheduler_steps += step.scheduler_calls;
    last_epoch = step.after.last_epoch;
    lr = step.after.lr;
    if (s.schedule_length && !s.schedule_end_optimizer_step && last_epoch >= *s.schedule_length) {
      s.schedule_end_optimizer_step = s.optimizer_steps;
    }
  }
  for (; current < config.epochs; ++current) {
    s.epochs[static_cast<std::size_t>(current)].last_epoch_end = last_epoch;
    s.epochs[static_cast<std::size_t>(current)].lr_end = lr;
  }
  if (s.error) s.guarded_steps = 0;  // the failing step is reported as the error instead
  return s;
}

std::string render_training_terminal(const TrainingSummary& s) {
  std::ostringstream os;
  os << "training (rank 0): gradient_accumulation_steps " << s.gradient_accumulation_steps << ", schedule "
     << s.schedule << ",\n  " << s.steps_per_optimizer_step << " scheduler step"
     << (s.steps_per_optimizer_step == 1 ? "" : "s") << " per optimizer step"
     << (s.split_batches ? " (split_batches on)" : s.num_processes > 1 ? " (num_processes, split_batches off)" : "")
     << ", initial lr " << number(s.initial_lr) << "\n";
  for (const EpochTraining& ep : s.epochs) {
    os << "\nepoch " << ep.epoch << " (training):\n";
    os << "  optimizer steps    " << ep.optimizer_steps << " taken, " << ep.skipped_steps << " skipped (of "
       << ep.micro_steps << " micro-steps)\n";
    os << "  scheduler steps    " << ep.scheduler_steps << " (last_epoch " << ep.last_epoch_end << ")\n";
    os << "  lr at epoch end    " << number(ep.lr_end) << "\n";
  }
  const std::int64_t r = s.steps_per_optimizer_step;
  if (r > 1 || s.guarded_steps || s.error) os << "\n";
  if (r > 1) {
    if (s.schedule_length) {
      os << "warning: the scheduler will finish " << r << "x early: it steps num_processes times per optimizer step;"
         << " pass split_batches=True or scale total_steps\n";
      os << "  total_steps " << *s.schedule_length << " is reached after " << ceil_div(*s.schedule_length, r)
         << " optimizer steps, not " << *s.schedule_length;
      if (s.schedule_end_optimizer_step) {
        os << " (this run reaches it at optimizer step " << *s.schedule_end_optimizer_step << " of " << s.optimizer_steps << ")";
      } else {
        os << " (this run takes " << s.optimizer_steps << ")";
      }
      os << "\n";
    } else {
      os << "warning: the scheduler runs " << r << "x fast: it steps num_processes times per optimizer step;"
         << " pass split_batches=True or scale the schedule's step counts\n";
    }
  }
  if (s.guarded_steps) {
    os << "note: Accelerate's OneCycleLR guard (_step_count <= total_steps) held back " << s.guarded_steps
       << " scheduler steps; last_epoch stays at total_steps, where torch's linear anneal has already gone past"
       << " min_lr (lr " << number(s.epochs.empty() ? s.initial_lr : s.epochs.back().lr_end) << ")\n";
  }
  if (s.error) {
    os << "error: scheduler.step() raised " << s.error->type << " at micro-step " << s.error->micro_step << ": "
       << s.error->message << " (the loop stops there)\n";
  }
  return os.str();
}

}  // namespace accel::reports
