#include "training_simulator.hpp"

#include <optional>

#include "core/accelerated_optimizer.hpp"
#include "core/accelerated_scheduler.hpp"
#include "core/accumulate.hpp"
#include "core/error.hpp"
#include "core/gradient_state.hpp"
#include "core/prepare_data_loader.hpp"
#include "overflow_plan.hpp"

namespace accel::sim {
namespace {

trace::SchedulerState state_of(const LRScheduler& s) { return {s.last_epoch(), s.step_count(), s.last_lr()}; }

trace::SchedulerErrorRecord error_at(std::int64_t micro_step, const AccelerateError& e) {
  return {micro_step, "scheduler.step", std::string(python_name(e.type())), e.message()};
}

OverflowPlan overflow_plan(const trace::SchedulerCase& c) {
  return OverflowPlan(c.skipped_micro_steps, c.overflow_prob, c.overflow_seed);
}

AcceleratedSchedulerOptions scheduler_options(const trace::SchedulerCase& c) {
  return {c.step_with_optimizer, c.split_batches, c.num_processes};
}

// Rank `rank`'s loader as Accelerator.prepare() builds it: a sequential map-style DataLoader through
// prepare_data_loader with the Accelerator's split_batches and even_batches.
DataLoaderShard prepared_loader(const trace::SchedulerCase& c, std::int64_t rank) {
  DataLoaderArgs dl;
  dl.dataset_kind = DatasetKind::Map;
  dl.dataset_len = *c.dataset_len;
  dl.batch_size = c.batch_size;
  dl.drop_last = c.drop_last;
  PrepareOptions po;
  po.num_processes = c.num_processes;
  po.process_index = rank;
  po.split_batches = c.split_batches;
  po.even_batches = c.even_batches;
  po.put_on_device = c.multiprocess;
  po.torch_device_mesh = c.torch_device_mesh;
  return std::get<DataLoaderShard>(prepare_data_loader(dl, po));  // map-style, never dispatched
}

// scheduler.step() for one micro-step, recording how far the wrapped scheduler moved; a torch error
// (OneCycleLR stepped past total_steps) is returned, and the loop stops there.
std::optional<AccelerateError> step_scheduler(AcceleratedScheduler& scheduler, GradientState& state,
                                              AcceleratedOptimizer& optimizer, trace::MicroStepRecord& rec) {
  const std::int64_t before = scheduler.scheduler().last_epoch();
  std::optional<AccelerateError> failure;
  try {
    scheduler.step(state, optimizer);
  } catch (const AccelerateError& e) {
    failure = e;
  }
  rec.after = state_of(scheduler.scheduler());
  rec.scheduler_calls = rec.after.last_epoch - before;
  return failure;
}

trace::SchedulerRankRecord simulate_direct(const trace::SchedulerCase& c) {
  GradientState state(GradientState::Settings{.adjust_scheduler = c.adjust_scheduler});
  AcceleratedOptimizer optimizer;
  AcceleratedScheduler scheduler(LRScheduler(c.scheduler), scheduler_options(c));
  const OverflowPlan overflow = overflow_plan(c);

  trace::SchedulerRankRecord out;
  out.api = trace::SchedulerApi::Direct;
  out.effective.gradient_state_adjust_scheduler = state.adjust_scheduler();
  out.effective.accelerator_state_num_processes = c.num_processes;
  out.initial = state_of(scheduler.scheduler());
  for (std::size_t k = 0; k < c.sync_pattern.size(); ++k) {
    const auto micro = static_cast<std::int64_t>(k);
    state.set_sync_gradients(c.sync_pattern[k]);
    optimizer.step(state);
    optimizer.set_step_was_skipped(overflow.overflows(micro));
    trace::MicroStepRecord rec;
    rec.micro_step = micro;
    rec.sync_gradients = state.sync_gradients();
    rec.step_was_skipped = optimizer.step_was_skipped();
    const auto failure = step_scheduler(scheduler, state, optimizer, rec);
    out.steps.push_back(rec);
    if (failure) {
      out.error = error_at(micro, *failure);
      break;
    }
  }
  return out;
}

}  // namespace

trace::SchedulerRankRecord simulate_training_rank(const trace::SchedulerCase& c, std::int64_t rank) {
  if (c.api == trace::SchedulerApi::Direct) return simulate_direct(c);

  GradientState state = GradientState::from_plugin(c.plugin);
  Accumulator accumulator;
  AcceleratedOptimizer optimizer;
  std::optional<DataLoaderShard> loader;
  if (c.dataset_len) loader = prepared_loader(c, rank);
  AcceleratedScheduler scheduler(LRScheduler(c.scheduler), scheduler_options(c));
  const OverflowPlan overflow = overflow_plan(c);

  trace::SchedulerRankRecord out;
  out.api = trace::SchedulerApi::TrainingLoop;
  out.rank = rank;
  out.effective = {state.num_steps(), state.adjust_scheduler(), state.sync_with_dataloader(), c.num_processes};
  if (loader && loader->len().ok()) out.dataloader_len = loader->len().value();
  out.initial = state_of(scheduler.scheduler());

  std::int64_t micro = 0;
  for (std::int64_t epoch = 0; epoch < c.epochs; ++epoch) {
    std::optional<LoaderPass> pass;
    if (loader) {
      pass = loader->iterate();
      state.begin_dataloader();
    }
    const std::int64_t batches = pass ? pass->num_batches() : c.micro_steps_per_epoch;
    for (std::int64_t j = 0; j < batches; ++j, ++micro) {
      // The loader looks one batch ahead, so end_of_dataloader is already set when the last batch arrives.
      if (pass) state.update_dataloader(pass->end_of_dataloader(j), pass->remainder);
      trace::MicroStepRecord rec;
      rec.micro_step = micro;
      rec.epoch = epoch;
      rec.batch_index = j;
      rec.sync_gradients = accumulator.do_sync(state);
      rec.end_of_dataloader = state.end_of_dataloader();
      optimizer.step(state);
      optimizer.set_step_was_skipped(overflow.overflows(micro));
      rec.step_was_skipped = optimizer.step_was_skipped();
      const auto failure = step_scheduler(scheduler, state, optimizer, rec);
      out.steps.push_back(rec);
      if (failure) {
        out.error = error_at(micro, *failure);
        return out;
      }
      optimizer.zero_grad(state);
    }
    if (pass) state.end_dataloader();
  }
  return out;
}

trace::Trace simulate(const trace::SchedulerCase& config) {
  trace::Trace t;
  std::vector<trace::SchedulerRankRecord> ranks;
  // A single-process recording has only the process it ran in; a multiprocess one has every rank.
  const std::int64_t recorded = config.api == trace::SchedulerApi::TrainingLoop && config.multiprocess
                                    ? config.num_processes
                                    : 1;
  try {
    for (std::int64_t r = 0; r < recorded; ++r) ranks.push_back(simulate_training_rank(config, r));
  } catch (const AccelerateError& e) {
    t.error = trace::ErrorRecord{e.where(), std::string(python_name(e.type())), e.message(), std::nullopt};
    ranks.clear();
  }
  t.body = std::move(ranks);
  return t;
}

}  // namespace accel::sim
