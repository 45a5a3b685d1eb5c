// Property 18: transformers.Trainer's loop over its prepared loader (core/trainer_loop, sim/trainer_simulator).
//
// 18a. A resume on the checkpoint's own shape (world size, per-device batch, accumulation), without
//      ignore_data_skip, over the seedable sampler or the sequential one, is exact: Trainer derives epoch
//      G // nups and skips (G % nups) * GA batches, which is where the uninterrupted job was, so every rank trains
//      the same batches at the same global steps (trainer.py _inner_training_loop; golden/cases-trainer records it
//      for 1-8 processes on both releases). The resume what-if says identical for the same configs.
//      (A resume at max_steps itself still takes one step: excluded here, reported by the what-if.)
// 18b. A run's optimizer steps (unless split_batches without even_batches leaves a rank's pass short): every epoch has
// num_update_steps_per_epoch = max(ceil(len / GA), 1) steps on every
//      rank, each accumulating GA micro-batches but an epoch's last (len % GA when it is not 0), and the run stops
//      at max_steps or after num_train_epochs * nups steps.
// 18c. Over an IterableDataset without __len__ (Trainer's dispatcher or IterableDatasetShard), the micro-batches of
//      every rank's optimizer steps, in order, are the rank's passes back to back (nothing lost or reordered at a
//      pass's end), and every step accumulates GA micro-batches except a pass's first, which also carries the
//      previous pass's last L % GA (golden/trainer-iterable.md, section 3; recorded in the -iter- cases).
// 18d. The loop's counts in closed form (trainer_run_counts, issue 48) are run_trainer_loop's for any schedule and
//      pass length (a pass may be shorter or longer than len(train_dataloader)): optimizer steps, the micro-batches
//      left unsynced, and whether pass 0 is trained whole within its own steps.
// 18e. The Trainer what-if's first job in closed form (trainer_job_closed_form), wherever it answers, is the
//      replay's summary: steps, lock-step, the first epoch's duplicated and dropped samples.
#include <rapidcheck.h>

#include <algorithm>
#include <optional>

#include "analysis/trainer_what_if.hpp"
#include "core/error.hpp"
#include "loader_config.hpp"
#include "properties.hpp"
#include "sim/trainer_simulator.hpp"
#include "trace/trainer_json.hpp"

namespace accel::props {
namespace {

struct TrainerDraw {
  trace::Json config;
  trace::TrainerCase parsed;
};

TrainerDraw draw_trainer() {
  const std::int64_t R = *int_in(1, 4);
  const bool split = *rc::gen::arbitrary<bool>();
  const std::int64_t b = split ? R * *int_in(1, 3) : *int_in(1, 4);
  const std::int64_t ga = *int_in(1, 4);
  const std::int64_t epochs = *int_in(1, 3);
  const bool capped = *rc::gen::arbitrary<bool>();
  const std::string release = *rc::gen::element<std::string>("5.25", "4.57");
  const bool sequential = release == "5.25" && *rc::gen::arbitrary<bool>();
  trace::Json c = {
      {"api", "trainer"},
      {"transformers_version", release},
      {"dataset_len", *int_in(1, 60)},  // 0 samples: RandomSampler raises (a rank error)
      {"num_processes", R},
      {"per_device_train_batch_size", b},
      {"gradient_accumulation_steps", ga},
      {"num_train_epochs", epochs},
      {"max_steps", capped ? *int_in(1, 25) : -1},
      {"dataloader_drop_last", *rc::gen::arbitrary<bool>()},
      {"seed", *int_in(0, 100)},
      {"data_seed", *rc::gen::arbitrary<bool>() ? trace::Json(*int_in(0, 100)) : trace::Json(nullptr)},
      {"train_sampling_strategy", sequential ? "sequential" : "random"},
      {"accelerator_config",
       {{"split_batches", split}, {"even_batches", *rc::gen::arbitrary<bool>()}, {"use_seedable_sampler", true}}},
      // GPUs: 4.57's CPU-group resume error is a rule of its own (golden/cases-trainer records it).
      {"device", "cuda"},
      {"resume", nullptr}};
  return {c, trace::parse_trainer_config(c)};
}

// Rank `rank`'s schedule, or nullopt where Trainer raises for it (an empty loader without max_steps).
std::optional<TrainerSchedule> schedule_of(const trace::TrainerCase& c, std::int64_t rank) {
  try {
    return sim::trainer_job_schedule(c, false, rank);
  } catch (const AccelerateError& e) {
    RC_ASSERT(e.type() == PyErrorType::ValueError);
    return std::nullopt;
  }
}

}  // namespace

void trainer_same_shape_resume_is_exact() {
  TrainerDraw d = draw_trainer();
  // Every rank trains: a rank whose loader is empty raises before its first step, or (with max_steps) takes none, so
  // no checkpoint exists to resume from (trainer_epochs_have_nups_steps_with_a_short_last_one checks both).
  for (std::int64_t r = 0; r < d.parsed.job.prepare.num_processes; ++r) {
    const auto schedule = schedule_of(d.parsed, r);
    RC_PRE(schedule.has_value() && schedule->steps_in_epoch > 0);
  }
  const TrainerSchedule s = sim::trainer_job_schedule(d.parsed, false);
  // At max_steps itself the resumed job still takes a step when its epoch range is not empty (Trainer tests
  // global_step >= max_steps only after a step): the resume what-if reports it, this property is about the rest.
  RC_PRE(s.max_steps >= 2);
  // split_batches without even_batches: a rank with a short pass falls out of step with the others (a DDP hang the
  // what-if reports as uneven-steps-hang), and its step numbers mean another position.
  RC_PRE(d.parsed.job.prepare.even_batches || !d.parsed.job.prepare.split_batches);
  const std::int64_t g = *int_in(1, s.max_steps - 1);
  d.config["resume"] = {{"global_step", g}};
  RC_LOG() << d.config.dump() << "\n";
  const trace::TrainerCase c = trace::parse_trainer_config(d.config);
  RC_TAG(g % s.num_update_steps_per_epoch == 0 ? "at an epoch boundary" : "inside an epoch");
  const trace::TrainerTrace t = sim::simulate_trainer(c);
  for (const auto& rank : t.ranks) {
    RC_ASSERT(!rank.error);
    std::vector<trace::TrainerStepRecord> rest, resumed;
    for (const auto& x : rank.steps) {
      if (x.global_step && *x.global_step > g) rest.push_back(x);
    }
    for (const auto& x : rank.resumed_steps) {
      if (x.global_step) resumed.push_back(x);
    }
    RC_ASSERT(rest == resumed);
  }
  RC_ASSERT(analysis::compare_trainer_resume(c).identical);
}

void trainer_epochs_have_nups_steps_with_a_short_last_one() {
  const TrainerDraw d = draw_trainer();
  // split_batches with even_batches=False: a rank's pass can be shorter than len(dataloader), and its last
  // micro-batches then never sync (run_trainer_loop keeps them unsynced, as Trainer's gradients are).
  RC_PRE(d.parsed.job.prepare.even_batches || !d.parsed.job.prepare.split_batches);
  RC_LOG() << d.config.dump() << "\n";
  sim::TrainerStepEpochs epochs;
  const trace::TrainerTrace t = sim::simulate_trainer(d.parsed, &epochs);
  const std::int64_t ga = d.parsed.loop.gradient_accumulation_steps;
  const std::int64_t max_steps = d.parsed.loop.max_steps;
  for (const auto& rank : t.ranks) {
    const auto schedule = schedule_of(d.parsed, rank.rank);
    if (!schedule) {
      // transformers tests `if len_dataloader:`: an empty loader without max_steps raises on that rank, before any
      // step (recorded message: "args.max_steps must be set to a positive value ...").
      RC_TAG("empty loader, epoch-based: ValueError");
      RC_ASSERT(max_steps <= 0);
      RC_ASSERT(rank.error && rank.error->type == "ValueError");
      RC_ASSERT(rank.steps.empty());
      continue;
    }
    RC_ASSERT(!rank.error);
    const std::int64_t len = schedule->steps_in_epoch;
    const std::int64_t nups = std::max<std::int64_t>((len + ga - 1) / ga, 1);
    const std::int64_t planned = max_steps > 0 ? max_steps : d.parsed.loop.num_train_epochs * nups;
    const auto& e = epochs.first.at(static_cast<std::size_t>(rank.rank));
    std::int64_t steps = 0;
    for (std::size_t i = 0; i < rank.steps.size(); ++i) {
      const auto& step = rank.steps[i];
      if (!step.global_step) continue;  // micro-batches of an empty epoch's pass never reach a step
      ++steps;
      RC_ASSERT(*step.global_step == steps);
      const std::int64_t in_epoch = std::count(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(i), e[i]);
      const bool last_of_epoch = in_epoch + 1 == nups;
      const auto micro = static_cast<std::int64_t>(step.batches.size());
      RC_ASSERT(micro == (last_of_epoch && len % ga != 0 ? len % ga : ga));
      RC_ASSERT(e[i] == (steps - 1) / nups);
    }
    // len == 0 (with max_steps): an epoch of no batches takes no step, so only a non-empty loader reaches the plan.
    if (len > 0) {
      RC_ASSERT(steps == planned);
    } else {
      // Without max_steps an empty loader raises (above): a run that gets here with no loader had max_steps.
      RC_ASSERT(max_steps > 0);
      RC_ASSERT(steps == 0);
    }
  }
}

void trainer_run_counts_are_the_loops() {
  TrainerLoopOptions o;
  o.gradient_accumulation_steps = *int_in(1, 5);
  o.num_train_epochs = *int_in(1, 4);
  o.max_steps = *rc::gen::arbitrary<bool>() ? -1 : *int_in(1, 60);
  const std::int64_t len = *int_in(0, 40);
  const std::int64_t pass = *rc::gen::weightedElement<bool>({{3, true}, {1, false}}) ? len : *int_in(0, 45);
  RC_LOG() << "len " << len << " pass " << pass << " ga " << o.gradient_accumulation_steps << " epochs "
           << o.num_train_epochs << " max_steps " << o.max_steps << "\n";
  TrainerSchedule schedule;
  try {
    schedule = trainer_schedule(len, o);
  } catch (const AccelerateError&) {
    RC_SUCCEED("an empty loader without max_steps raises before the loop");
  }
  const TrainerRun run = run_trainer_loop(schedule, std::nullopt, [&](std::int64_t, std::int64_t) { return pass; });
  TrainerRunCounts want;
  want.optimizer_steps = static_cast<std::int64_t>(run.steps.size());
  want.unsynced_batches = static_cast<std::int64_t>(run.unsynced.size());
  std::int64_t pass0_in_own_steps = 0;
  for (const auto& step : run.steps) {
    if (step.micro_batches.back().epoch != 0) continue;
    pass0_in_own_steps += static_cast<std::int64_t>(step.micro_batches.size());
  }
  want.first_pass_whole = pass0_in_own_steps == pass;
  if (!run.steps.empty()) RC_ASSERT(run.steps.back().global_step == want.optimizer_steps);
  RC_TAG(want.first_pass_whole ? "pass 0 whole" : "pass 0 cut or carried");
  RC_ASSERT(trainer_run_counts(schedule, pass) == want);
}

void trainer_closed_form_is_the_replay() {
  const TrainerDraw d = draw_trainer();
  RC_LOG() << d.config.dump() << "\n";
  const auto closed = analysis::trainer_job_closed_form(d.parsed);
  RC_TAG(closed ? "closed form" : "replayed only");
  if (closed) RC_ASSERT(*closed == analysis::trainer_job_replayed(d.parsed));
}

void trainer_iterable_steps_carry_across_passes() {
  const std::int64_t R = *int_in(1, 4);
  const std::int64_t b = *int_in(1, 3);
  const std::int64_t k = *int_in(1, 4);
  const trace::Json c = {{"api", "trainer"},
                         {"transformers_version", *rc::gen::element<std::string>("5.25", "4.57")},
                         {"dataset_kind", "iterable"},
                         {"dataset_len", *int_in(1, 40)},
                         {"num_processes", R},
                         {"per_device_train_batch_size", b},
                         {"gradient_accumulation_steps", k},
                         {"max_steps", *int_in(1, 12)},
                         {"accelerator_config",
                          {{"dispatch_batches", *rc::gen::arbitrary<bool>()}, {"split_batches", false}}},
                         {"device", "cuda"},
                         {"resume", nullptr}};
  RC_LOG() << c.dump() << "\n";
  const trace::TrainerCase parsed = trace::parse_trainer_config(c);
  const std::int64_t L = sim::iterable_pass_length(parsed, false);
  RC_PRE(L >= k);  // a pass shorter than GA never steps (a Hang, recorded as such)
  sim::TrainerStepEpochs epochs;
  const trace::TrainerTrace t = sim::simulate_trainer(parsed, &epochs);
  RC_TAG(L % k == 0 ? "passes end on a step" : "passes carry micro-batches");
  for (const auto& rank : t.ranks) {
    RC_ASSERT(!rank.error);
    // The pass, read from the first steps: the trained stream must be it, repeated.
    std::vector<Batch> stream;
    for (const auto& s : rank.steps) stream.insert(stream.end(), s.batches.begin(), s.batches.end());
    RC_ASSERT(static_cast<std::int64_t>(stream.size()) >= std::min<std::int64_t>(L, k));
    const auto& e = epochs.first.at(static_cast<std::size_t>(rank.rank));
    for (std::size_t i = 0; i < stream.size(); ++i) {
      if (i >= static_cast<std::size_t>(L)) RC_ASSERT(stream[i] == stream[i % static_cast<std::size_t>(L)]);
    }
    for (std::size_t i = 0; i < rank.steps.size(); ++i) {
      const auto micro = static_cast<std::int64_t>(rank.steps[i].batches.size());
      const bool first_of_later_pass = i > 0 && e[i] != e[i - 1];
      RC_ASSERT(micro == (first_of_later_pass ? k + L % k : k));
    }
  }
}

}  // namespace accel::props
