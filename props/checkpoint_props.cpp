// Property 10: save_state / load_state resumes (sim/resume_simulator), checked against the uninterrupted
// job the same simulation runs, never against a copy of the model's rules.
//
// 10a. With what makes Accelerate's resume exact as recorded (golden/cases*/resume-seedable-*-setepoch):
//      a SeedableRandomSampler with a data_seed and the loop calling set_epoch, every way of skipping the
//      S batches (skip_first_batches, continue, a StatefulDataLoader) restarts on exactly the uninterrupted
//      job's batches, on every rank, for every epoch from E — except a StatefulDataLoader whose restored state
//      says the iterator finished (a checkpoint after an epoch's last batch, or before an epoch: the snapshot
//      DataLoaderShard took one batch ahead), which trains epoch E again from its first batch (recorded:
//      golden/cases-torch2/resume-*-stateful*).
// 10b. One process, torch's RandomSampler, set_seed: the sampler draws from the global generator, which
//      load_state restores as the checkpoint left it (after epoch E's draw), so the restarted epoch E is
//      the uninterrupted epoch E+1 from batch S on (resume-rand-n1-*), for any S >= 1.
// 10c. Several processes, torch's RandomSampler, in the releases that draw every pass's seed from each rank's global
//      generator (0.26.0 - 0.29.3, core/accelerate_release.hpp GlobalGeneratorPerEpoch): load_state restores that
//      generator after epoch E's draw, so the restarted epoch E is the uninterrupted epoch E+1 from batch S on
//      (recorded: golden/cases-releases/0.2{6,8,9}*/rel-resume-rand-n2-*).
// 10d. Several processes, torch's RandomSampler, in the releases that give it a generator of its own (0.14.0 -
//      0.23.0 and 0.30.0 on, but 1.5.0 - 1.5.1 on torch 1.13): the checkpoint does not hold it and the restarted
//      job makes it afresh, so the restarted epoch E is the uninterrupted epoch 0 from batch S on (recorded:
//      rel-resume-rand-n2-* of 0.14.0 - 0.22.0, 0.30.1 - 1.4.0, 1.5.2 - 1.15.0).
// 10e. 0.34.0 - 1.12.x on several processes: the StatefulDataLoader state save_state writes counts num_processes - 1
//      batches fewer than were taken, so a mid-epoch checkpoint after S >= R - 1 batches restarts epoch E at batch
//      S - (R - 1), every later epoch as uninterrupted (recorded: rel-resume-*-stateful of 1.4.0 - 1.8.1).
#include <rapidcheck.h>

#include <algorithm>

#include "core/accelerate_release.hpp"
#include "properties.hpp"
#include "sim/resume_simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::props {
namespace {

std::vector<Batch> from(const std::vector<Batch>& v, std::int64_t k) {
  return std::vector<Batch>(v.begin() + std::min<std::ptrdiff_t>(k, static_cast<std::ptrdiff_t>(v.size())), v.end());
}

trace::ResumeCase drawn_case(std::int64_t ranks, bool seedable, std::int64_t min_epochs_after) {
  trace::ResumeCase c;
  c.job.api = "accelerator";
  c.job.accelerator = AcceleratorOptions{};
  c.job.loader.dataset_len = *rc::gen::inRange<std::int64_t>(1, 60);
  c.job.loader.batch_size = *rc::gen::inRange<std::int64_t>(1, 6);
  c.job.loader.drop_last = *rc::gen::arbitrary<bool>();
  c.job.loader.shuffle = true;
  c.job.accelerator->dataloader_config.even_batches = *rc::gen::arbitrary<bool>();
  c.job.accelerator->dataloader_config.use_seedable_sampler = seedable;
  if (seedable) c.job.accelerator->dataloader_config.data_seed = PythonInt{*rc::gen::inRange<std::int64_t>(0, 1000)};
  c.job.prepare = prepare_options_of(*c.job.accelerator, ranks, 0);
  c.job.torch_manual_seed = PythonInt{*rc::gen::inRange<std::int64_t>(0, 1000)};
  c.job.multiprocess = true;
  c.resume.epoch = *rc::gen::inRange<std::int64_t>(0, 3);
  c.job.epochs = c.resume.epoch + min_epochs_after + *rc::gen::inRange<std::int64_t>(0, 2);
  c.resume.step = *rc::gen::inRange<std::int64_t>(0, 12);
  return c;
}

// The simulated resume, or a discarded case when the checkpoint would never be reached (S past the end).
trace::ResumeTrace run(const trace::ResumeCase& c) {
  try {
    return sim::simulate_resume(c);
  } catch (const trace::ConfigError&) {
    RC_DISCARD("step past the end of the epoch");
  } catch (const AccelerateError&) {
    RC_DISCARD("a configuration Accelerate rejects");
  }
  return {};
}

}  // namespace

void seedable_set_epoch_resume_is_exact() {
  const std::int64_t ranks = *rc::gen::inRange<std::int64_t>(1, 5);
  trace::ResumeCase c = drawn_case(ranks, true, 1);
  c.resume.loop_set_epoch = true;
  c.resume.mode = *rc::gen::element(trace::ResumeMode::SkipFirstBatches, trace::ResumeMode::Continue,
                                    trace::ResumeMode::Stateful);
  const bool stateful = c.resume.mode == trace::ResumeMode::Stateful;
  c.job.accelerator->dataloader_config.use_stateful_dataloader = stateful;
  // Which rank's state file survives is a race the recorder pins; any rank may be the last writer.
  if (stateful) c.resume.state_writer = *rc::gen::inRange<std::int64_t>(0, ranks);
  RC_TAG(trace::mode_name(c.resume.mode));
  const auto t = run(c);
  const bool restarts_epoch =
      stateful && sim::saved_loader_states(c).at(static_cast<std::size_t>(*c.resume.state_writer)).iterator_finished;
  if (stateful) RC_TAG(restarts_epoch ? "restored state finished" : "restored state mid-epoch");
  for (std::int64_t r = 0; r < ranks; ++r) {
    const auto& rank = t.ranks.at(static_cast<std::size_t>(r));
    RC_ASSERT(static_cast<std::int64_t>(rank.resumed.size()) == c.job.epochs - c.resume.epoch);
    for (std::int64_t e = c.resume.epoch; e < c.job.epochs; ++e) {
      const auto& expected = rank.uninterrupted.at(static_cast<std::size_t>(e));
      const std::int64_t k = e == c.resume.epoch && !restarts_epoch ? c.resume.step : 0;
      RC_ASSERT(rank.resumed.at(static_cast<std::size_t>(e - c.resume.epoch)) == from(expected, k));
    }
  }
}

void single_process_random_resume_draws_the_next_epoch() {
  trace::ResumeCase c = drawn_case(1, false, 2);
  // S = 0 saves before epoch E's loop starts, so before its draw: that resume is exact instead.
  c.resume.step = std::max<std::int64_t>(1, c.resume.step);
  c.resume.loop_set_epoch = *rc::gen::arbitrary<bool>();
  c.resume.mode = *rc::gen::element(trace::ResumeMode::SkipFirstBatches, trace::ResumeMode::Continue);
  const auto t = run(c);
  const auto& rank = t.ranks.at(0);
  const auto next = static_cast<std::size_t>(c.resume.epoch + 1);
  RC_ASSERT(rank.resumed.at(0) == from(rank.uninterrupted.at(next), c.resume.step));
}

namespace {

// Draws a multi-process RandomSampler resume in one of `releases`, checkpointed after S >= 1 batches (S = 0 saves
// before epoch E's draw), resumed by continue, or by skip_first_batches where the release has it.
trace::ResumeCase drawn_release_case(const std::vector<std::string>& releases) {
  trace::ResumeCase c = drawn_case(*rc::gen::inRange<std::int64_t>(2, 5), false, 2);
  c.job.prepare.release = modelled_release(*rc::gen::elementOf(releases));
  c.resume.step = std::max<std::int64_t>(1, c.resume.step);
  c.resume.mode = has_skip_first_batches(c.job.prepare.release)
                      ? *rc::gen::element(trace::ResumeMode::SkipFirstBatches, trace::ResumeMode::Continue)
                      : trace::ResumeMode::Continue;
  RC_LOG() << "Accelerate " << c.job.prepare.release.name() << ", " << c.job.prepare.num_processes << " ranks, "
           << c.job.loader.dataset_len << " samples, batch " << c.job.loader.batch_size << ", resume at "
           << c.resume.epoch << ":" << c.resume.step << " (" << trace::mode_name(c.resume.mode) << ")\n";
  return c;
}

}  // namespace

void global_generator_releases_resume_on_the_next_epoch() {
  const trace::ResumeCase c = drawn_release_case({"0.26.1", "0.27.2", "0.28.0", "0.29.3"});
  const auto t = run(c);
  const auto next = static_cast<std::size_t>(c.resume.epoch + 1);
  for (const auto& rank : t.ranks) RC_ASSERT(rank.resumed.at(0) == from(rank.uninterrupted.at(next), c.resume.step));
}

void own_generator_releases_resume_on_epoch_zero() {
  const trace::ResumeCase c = drawn_release_case({"0.14.0", "0.16.0", "0.20.3", "0.23.0", "0.30.1", "0.34.2", "1.0.1",
                                                  "1.4.0", "1.5.2", "1.6.0", "1.8.1", "1.13.0", "1.15.0"});
  const auto t = run(c);
  for (const auto& rank : t.ranks) RC_ASSERT(rank.resumed.at(0) == from(rank.uninterrupted.at(0), c.resume.step));
}

void pre_113_stateful_resume_restarts_r_minus_1_batches_early() {
  const std::int64_t ranks = *rc::gen::inRange<std::int64_t>(2, 5);
  trace::ResumeCase c = drawn_case(ranks, true, 1);
  c.job.prepare.release = modelled_release(*rc::gen::element<std::string>("1.1.1", "1.4.0", "1.7.0", "1.8.1", "1.12.0"));
  c.resume.loop_set_epoch = true;
  c.resume.mode = trace::ResumeMode::Stateful;
  c.job.accelerator->dataloader_config.use_stateful_dataloader = true;
  c.job.prepare.use_stateful_dataloader = true;
  c.resume.step = std::max(c.resume.step, ranks - 1);
  c.resume.state_writer = *rc::gen::inRange<std::int64_t>(0, ranks);
  const auto t = run(c);
  const bool finished = sim::saved_loader_states(c).at(static_cast<std::size_t>(*c.resume.state_writer)).iterator_finished;
  RC_TAG(finished ? "restored state finished" : "restored state mid-epoch");
  RC_LOG() << "Accelerate " << c.job.prepare.release.name() << ", " << ranks << " ranks, resume at " << c.resume.epoch
           << ":" << c.resume.step << "\n";
  for (const auto& rank : t.ranks) {
    RC_ASSERT(!rank.error.has_value());
    for (std::int64_t e = c.resume.epoch; e < c.job.epochs; ++e) {
      const auto& expected = rank.uninterrupted.at(static_cast<std::size_t>(e));
      const std::int64_t k = e == c.resume.epoch && !finished ? c.resume.step - (ranks - 1) : 0;
      RC_ASSERT(rank.resumed.at(static_cast<std::size_t>(e - c.resume.epoch)) == from(expected, k));
    }
  }
}

}  // namespace accel::props
