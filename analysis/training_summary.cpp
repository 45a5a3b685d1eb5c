#include "analysis/training_summary.hpp"

#include <sstream>

#include "core/device_mesh.hpp"
#include "core/error.hpp"
#include "sim/training_simulator.hpp"

namespace accel::analysis {
namespace {

std::string describe(const ScheduleSpec& spec) {
  std::ostringstream os;
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec)) {
    os << "linear (LambdaLR, lr " << lr_text(p->base_lr) << ", warmup " << p->warmup_steps << ", total_steps "
       << p->training_steps << ")";
  } else if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec)) {
    os << "cosine (LambdaLR, lr " << lr_text(p->base_lr) << ", warmup " << p->warmup_steps << ", total_steps "
       << p->training_steps << ")";
  } else if (const auto* p = std::get_if<ConstantWarmupSchedule>(&spec)) {
    os << "constant (LambdaLR, lr " << lr_text(p->base_lr) << ", warmup " << p->warmup_steps << ")";
  } else if (const auto* p = std::get_if<StepSchedule>(&spec)) {
    os << "step (StepLR, lr " << lr_text(p->base_lr) << ", step_size " << p->step_size << ", gamma "
       << lr_text(p->gamma) << ")";
  } else {
    const auto& o = std::get<OneCycleLinearSchedule>(spec);
    os << "onecycle (OneCycleLR linear, max_lr " << lr_text(o.max_lr) << ", total_steps " << o.total_steps
       << ", pct_start " << lr_text(o.pct_start) << ")";
  }
  return os.str();
}

std::optional<std::int64_t> length_of(const ScheduleSpec& spec) {
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec)) return p->training_steps;
  if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec)) return p->training_steps;
  if (const auto* p = std::get_if<OneCycleLinearSchedule>(&spec)) return p->total_steps;
  return std::nullopt;
}

std::optional<std::int64_t> warmup_of(const ScheduleSpec& spec) {
  if (const auto* p = std::get_if<LinearWarmupSchedule>(&spec)) return p->warmup_steps;
  if (const auto* p = std::get_if<CosineWarmupSchedule>(&spec)) return p->warmup_steps;
  if (const auto* p = std::get_if<ConstantWarmupSchedule>(&spec)) return p->warmup_steps;
  return std::nullopt;
}

// The spec with another length and warm-up (the corrected schedule), for the schedules that have them.
ScheduleSpec resized(ScheduleSpec spec, std::int64_t length, std::optional<std::int64_t> warmup) {
  if (auto* p = std::get_if<LinearWarmupSchedule>(&spec)) {
    p->training_steps = length;
    if (warmup) p->warmup_steps = *warmup;
  } else if (auto* p = std::get_if<CosineWarmupSchedule>(&spec)) {
    p->training_steps = length;
    if (warmup) p->warmup_steps = *warmup;
  } else if (auto* p = std::get_if<OneCycleLinearSchedule>(&spec)) {
    p->total_steps = length;
  }
  return spec;
}

// The simulated correction as evidence, when there is one.
void add_correction(Warning& w, const TrainingSummary& s) {
  if (s.corrected_total_steps) w.with("corrected_total_steps", *s.corrected_total_steps);
  if (s.corrected_warmup) w.with("corrected_warmup", *s.corrected_warmup);
  if (s.corrected_end_optimizer_step) {
    w.with("corrected_ends_at_optimizer_step", *s.corrected_end_optimizer_step)
        .with("corrected_lr_end", s.corrected_lr_end.value_or(0.0));
  }
}

// A schedule is sized right when it reaches its end as training does. Accelerate steps the wrapped
// scheduler num_processes times per optimizer step (unless split_batches), so both total_steps and the
// warm-up must count scheduler steps: optimizer steps x that factor.
// With a device mesh num_processes is still every rank of the job (AcceleratorState's), while only the data ranks
// consume batches: the factor is world, not data ranks, and worth saying.
void add_schedule_findings(TrainingSummary& s, const ScheduleSpec& spec, std::optional<std::int64_t> data_ranks) {
  const std::int64_t r = s.steps_per_optimizer_step;
  const std::string mesh = data_ranks && *data_ranks < r
                               ? ", every rank of the device mesh, though only " + std::to_string(*data_ranks) +
                                     " data ranks consume batches"
                               : "";
  const std::string per = r > 1 ? " (Accelerate steps the scheduler " + std::to_string(r) +
                                      " times per optimizer step: num_processes" + mesh + ", split_batches off)"
                                : "";
  if (!s.schedule_length) {
    if (r > 1) {
      s.warnings.push_back(Warning(code::kSchedulerRunsFast, Severity::Warning,
                                   "the scheduler runs " + std::to_string(r) + "x fast" + per +
                                       ": scale the schedule's step counts by " + std::to_string(r) +
                                       ", or pass split_batches=True")
                               .with("scheduler_steps_per_optimizer_step", r));
    }
    return;
  }
  const std::int64_t length = *s.schedule_length;
  const auto warmup = warmup_of(spec);
  std::string fix;
  if (s.corrected_total_steps && s.corrected_end_optimizer_step) {
    // Printed with what the simulation of the corrected schedule showed, never as arithmetic alone.
    const bool ends_with_training = *s.corrected_end_optimizer_step == s.optimizer_steps;
    fix = "; total_steps=" + std::to_string(*s.corrected_total_steps) + " (" + std::to_string(s.optimizer_steps) +
          " optimizer steps x " + std::to_string(r) + ")";
    if (s.corrected_warmup) {
      fix += " with warmup=" + std::to_string(*s.corrected_warmup) + " (keeping " + s.corrected_warmup_intent + ")";
    }
    fix += ends_with_training ? " warms up, decays and ends it with training" : " does not end it with training either";
    fix += " (simulated: the schedule then ends at optimizer step " + std::to_string(*s.corrected_end_optimizer_step) +
           " of " + std::to_string(s.optimizer_steps) + ", lr " + lr_text(s.corrected_lr_end.value_or(0.0)) + ")";
  }
  if (!s.corrected_total_steps && warmup && *warmup > 0 && r > 1 && *warmup % r != 0) {
    // The length is sized for Accelerate's stepping but the warm-up is not a whole number of optimizer steps:
    // it was most likely written in optimizer steps and left unscaled.
    std::ostringstream optimizer_steps;
    optimizer_steps << lr_text(static_cast<double>(*warmup) / static_cast<double>(r));
    s.warnings.push_back(Warning(code::kWarmupUnscaled, Severity::Note,
                                 "warmup=" + std::to_string(*warmup) + " counts scheduler steps" + per +
                                     ", so the warm-up lasts " + optimizer_steps.str() +
                                     " optimizer steps; a warm-up of " + std::to_string(*warmup) +
                                     " optimizer steps needs warmup=" + std::to_string(*warmup * r))
                             .with("warmup", *warmup)
                             .with("scheduler_steps_per_optimizer_step", r)
                             .with("corrected_warmup", *warmup * r));
  }
  if (s.schedule_end_optimizer_step && *s.schedule_end_optimizer_step < s.optimizer_steps) {
    Warning w(code::kScheduleEndsEarly, Severity::Warning,
              "the schedule ends early: total_steps " + std::to_string(length) + " is reached at optimizer step " +
                  std::to_string(*s.schedule_end_optimizer_step) + " of " + std::to_string(s.optimizer_steps) + per +
                  ", and training goes on past it, ending with lr " + lr_text(s.lr_end) +
                  (std::holds_alternative<CosineWarmupSchedule>(spec)
                       ? " (a cosine schedule past its end does not stay at its minimum: the lr rises again)"
                       : "") +
                  fix);
    w.with("total_steps", length)
        .with("ends_after_optimizer_step", *s.schedule_end_optimizer_step)
        .with("optimizer_steps", s.optimizer_steps)
        .with("lr_end", s.lr_end);
    add_correction(w, s);
    s.warnings.push_back(std::move(w));
  } else if (s.scheduler_steps * 10 < length * 9) {
    // Under 90 % of the schedule: the lr never gets near the value the schedule was written to end on.
    Warning w(code::kScheduleFarFromEnd, Severity::Warning,
              "the schedule is far from its end when training stops: last_epoch " + std::to_string(s.last_epoch_end) +
                  " of total_steps " + std::to_string(length) + " (" +
                  std::to_string(s.scheduler_steps * 100 / length) + "%), lr " + lr_text(s.lr_end) + per + fix);
    w.with("last_epoch", s.last_epoch_end).with("total_steps", length).with("lr_end", s.lr_end);
    add_correction(w, s);
    s.warnings.push_back(std::move(w));
  }
}

}  // namespace

std::string lr_text(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

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
  for (std::int64_t e = 0; e < config.epochs; ++e)
    s.epochs.push_back({e, 0, 0, 0, 0, rank.initial.last_epoch, rank.initial.lr});
  std::int64_t last_epoch = rank.initial.last_epoch;
  double lr = rank.initial.lr;
  std::int64_t current = 0;
  std::vector<LrPoint> curve = {{0, 0, rank.initial.last_epoch, rank.initial.lr}};
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
    if (step.sync_gradients) curve.push_back({s.optimizer_steps, step.epoch, last_epoch, lr});
  }
  // Thinned evenly, the first and last points kept.
  if (curve.size() > kLrCurvePoints) {
    const std::size_t n = curve.size();
    for (std::size_t i = 0; i < kLrCurvePoints; ++i) s.lr_curve.push_back(curve[i * (n - 1) / (kLrCurvePoints - 1)]);
  } else {
    s.lr_curve = std::move(curve);
  }
  for (; current < config.epochs; ++current) {
    s.epochs[static_cast<std::size_t>(current)].last_epoch_end = last_epoch;
    s.epochs[static_cast<std::size_t>(current)].lr_end = lr;
  }
  if (s.error) s.guarded_steps = 0;  // the failing step is reported as the error instead
  for (const EpochTraining& ep : s.epochs) s.scheduler_steps += ep.scheduler_steps;
  s.last_epoch_end = last_epoch;
  s.lr_end = lr;
  const std::int64_t r = s.steps_per_optimizer_step;
  if (s.schedule_length && s.optimizer_steps > 0 && s.optimizer_steps * r != *s.schedule_length && !s.error) {
    const std::int64_t total = s.optimizer_steps * r;
    const auto warmup = warmup_of(config.scheduler);
    // The user's intent for the warm-up, in order: W optimizer steps (W was written unscaled), else W's share of
    // the schedule they wrote. Either must end before the corrected schedule does, or the lr never decays.
    std::optional<std::int64_t> corrected_warmup;
    std::string intent;
    if (warmup && *warmup > 0) {
      if (r > 1 && *warmup * r < total) {
        corrected_warmup = *warmup * r;
        intent = "a warm-up of " + std::to_string(*warmup) + " optimizer steps";
      } else {
        const std::int64_t share = static_cast<std::int64_t>(
            static_cast<double>(*warmup) * static_cast<double>(total) / static_cast<double>(*s.schedule_length) + 0.5);
        if (share < total) {
          corrected_warmup = share;
          std::ostringstream pct;
          pct << lr_text(100.0 * static_cast<double>(*warmup) / static_cast<double>(*s.schedule_length));
          intent = "the warm-up's share of the schedule, " + pct.str() + "%";
        }
      }
    }
    // Apply the correction and run the same training loop again: the advice says what that run did, and is given
    // only when that run warms up (if it should), decays, and ends its schedule as training ends.
    trace::SchedulerCase corrected = config;
    corrected.scheduler = resized(config.scheduler, total, corrected_warmup);
    try {
      const TrainingSummary again = summarize_training(corrected, sim::simulate_training_rank(corrected, 0));
      double peak = again.initial_lr;
      for (const LrPoint& p : again.lr_curve) peak = std::max(peak, p.lr);
      const bool ends = again.schedule_end_optimizer_step == again.optimizer_steps;
      const bool warms_then_decays = !warmup || *warmup == 0 || corrected_warmup.has_value();
      const bool decays = !length_of(config.scheduler) || again.lr_end < peak ||
                          std::holds_alternative<ConstantWarmupSchedule>(config.scheduler);
      if (ends && warms_then_decays && decays) {
        s.corrected_total_steps = total;
        s.corrected_warmup = corrected_warmup;
        s.corrected_warmup_intent = intent;
        s.corrected_end_optimizer_step = again.schedule_end_optimizer_step;
        s.corrected_lr_end = again.lr_end;
      }
    } catch (const AccelerateError&) {
      // A corrected schedule torch would refuse: no advice rather than an unverified one.
    }
  }
  std::optional<std::int64_t> data_ranks;
  if (config.torch_device_mesh)
    data_ranks = mesh_loader_process(*config.torch_device_mesh, config.num_processes, 0, false).num_processes;
  add_schedule_findings(s, config.scheduler, data_ranks);
  if (s.guarded_steps) {
    s.warnings.push_back(
        Warning(code::kOneCycleGuard, Severity::Note,
                "Accelerate's OneCycleLR guard (_step_count <= total_steps) held back " +
                    std::to_string(s.guarded_steps) +
                    " scheduler steps; last_epoch stays at total_steps, where torch's linear anneal has already gone "
                    "past min_lr (lr " +
                    lr_text(s.epochs.empty() ? s.initial_lr : s.epochs.back().lr_end) + ")")
            .with("guarded_steps", s.guarded_steps));
  }
  if (s.error) {
    s.warnings.push_back(Warning(code::kSchedulerError, Severity::Error,
                                 "scheduler.step() raised " + s.error->type + " at micro-step " +
                                     std::to_string(s.error->micro_step) + ": " + s.error->message +
                                     " (the loop stops there)")
                             .with("micro_step", s.error->micro_step)
                             .with("error", s.error->type + ": " + s.error->message));
  }
  return s;
}

}  // namespace accel::analysis
