#include "trainer_simulator.hpp"

#include <algorithm>
#include <memory>

#include "broadcast_replay.hpp"
#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"
#include "simulator.hpp"
#include "trace/recorder_words.hpp"
#include "trace/trainer_json.hpp"

namespace accel::sim {
namespace {

struct JobShape {
  trace::LoaderCase job;
  TrainerLoopOptions loop;
};

JobShape shape_of(const trace::TrainerCase& c, bool resumed_job) {
  JobShape s;
  s.loop = c.loop;
  if (!resumed_job) {
    s.job = c.job;
    return s;
  }
  const auto& r = *c.resume;
  s.job = trace::trainer_job(c, r.num_processes, r.per_device_train_batch_size, r.gradient_accumulation_steps);
  s.loop.gradient_accumulation_steps = r.gradient_accumulation_steps;
  return s;
}

DataLoaderShard sharded(const trace::LoaderCase& job, std::int64_t rank) {
  auto shard = prepared_shard(job, rank);
  if (!shard)
    throw trace::ConfigError("config.accelerator_config.dispatch_batches: Trainer's loader is modelled sharded only");
  return std::move(*shard);
}

std::int64_t len_of(const DataLoaderShard& loader) {
  const auto len = loader.len();
  return len.ok() ? len.value() : 0;
}

// The loop's steps as the trace records them (the micro-batches' ids; a last record without a global step for
// micro-batches that never synced), with each step's data epoch appended to `epochs`.
template <typename BatchOf>
std::vector<trace::TrainerStepRecord> step_records(const TrainerRun& run, BatchOf batch_of,
                                                   std::vector<std::int64_t>& epochs) {
  std::vector<trace::TrainerStepRecord> out;
  for (const auto& step : run.steps) {
    trace::TrainerStepRecord rec{step.global_step, {}};
    for (const auto& m : step.micro_batches) rec.batches.push_back(batch_of(m));
    out.push_back(std::move(rec));
    epochs.push_back(step.micro_batches.back().epoch);
  }
  if (!run.unsynced.empty()) {
    trace::TrainerStepRecord rec{std::nullopt, {}};
    for (const auto& m : run.unsynced) rec.batches.push_back(batch_of(m));
    out.push_back(std::move(rec));
    epochs.push_back(run.unsynced.back().epoch);
  }
  return out;
}

// Each first-job rank's global generator as checkpoint-G saves it (rng_state[_{rank}].pth): its state once the pass
// holding step G has drawn, since nothing in the loop draws from it mid-pass; nullopt where nothing saved it.
using SavedRngStates = std::vector<std::optional<GeneratorState>>;

// One rank's run of one job: the loop's steps, read from the passes it iterated. The first job (with a resume)
// fills `saved_rng[rank]`; the resumed job loads the state its rank finds there, when Trainer does.
std::vector<trace::TrainerStepRecord> run_rank(const trace::TrainerCase& c, const JobShape& shape, std::int64_t rank,
                                               const std::shared_ptr<std::vector<std::vector<std::int64_t>>>& log,
                                               const std::shared_ptr<DrawMemo>& draws, bool resumed_job,
                                               std::vector<std::int64_t>& epochs, SavedRngStates& saved_rng) {
  DataLoaderShard loader = sharded(shape.job, rank);
  loader.share_draws(draws);
  const TrainerSchedule schedule = trainer_schedule(len_of(loader), shape.loop);
  std::optional<TrainerResumePosition> start;
  if (resumed_job) start = resume_position(c.resume->global_step, schedule, c.resume->ignore_data_skip);
  const auto r = static_cast<std::size_t>(rank);
  std::optional<GeneratorState> rng_to_load;
  if (resumed_job && finds_rng_state(c.job.prepare.num_processes, shape.job.prepare.num_processes, rank) &&
      r < saved_rng.size()) {
    rng_to_load = saved_rng[r];
  }
  const auto load_rng = [&] {
    if (rng_to_load) loader.set_process_generator_state(*rng_to_load);  // shared with the skipped loader
  };
  std::vector<std::optional<GeneratorState>> rng_after_pass;  // by epoch: the global generator once it drew
  BroadcastReplay comm(log, rank, shape.job.prepare.num_processes);
  struct Pass {
    std::int64_t epoch, skip;
    LoaderPass pass;
  };
  std::vector<Pass> passes;
  const TrainerRun run = run_trainer_loop(schedule, start, [&](std::int64_t epoch, std::int64_t skip) {
    const bool resumed_epoch = start && epoch == start->epochs_trained;
    if (resumed_epoch && loads_rng_state_before_pass(*start)) load_rng();
    if (skip == 0) {
      loader.set_epoch(epoch);
      passes.push_back({epoch, 0, loader.iterate(&comm)});
    } else if (sets_epoch_before_skip(c.release)) {
      loader.set_epoch(epoch);
      passes.push_back({epoch, skip, loader.skip_first_batches(skip).iterate(&comm)});
    } else {
      DataLoaderShard skipped = loader.skip_first_batches(skip);
      skipped.set_epoch(epoch);
      passes.push_back({epoch, skip, skipped.iterate(&comm)});
    }
    if (resumed_epoch && !loads_rng_state_before_pass(*start)) load_rng();
    rng_after_pass.resize(static_cast<std::size_t>(epoch) + 1);
    rng_after_pass.back() = loader.process_generator_state();
    return passes.back().pass.num_batches();
  });
  auto batch_of = [&](const MicroBatchRef& m) {
    const auto p = std::find_if(passes.begin(), passes.end(), [&](const Pass& x) { return x.epoch == m.epoch; });
    return p->pass.batch(m.batch - p->skip);
  };
  if (!resumed_job && c.resume && r < saved_rng.size()) {
    for (const auto& step : run.steps) {
      if (step.global_step != c.resume->global_step) continue;
      saved_rng[r] = rng_after_pass[static_cast<std::size_t>(step.micro_batches.back().epoch)];
    }
  }
  return step_records(run, batch_of, epochs);
}

trace::ErrorRecord rank_error(const AccelerateError& e) {
  return {"train", std::string(python_name(e.type())), e.message(), std::nullopt};
}

// An IterableDataset's loader, one pass per rank as the simulator's Accelerate iterates it (the dispatcher or
// IterableDatasetShard): every pass reads the same stream, so one pass serves every epoch (a dataset with set_epoch
// only renames its ids). Empty when Accelerate rejects the loader (`error`).
struct IterablePasses {
  std::vector<std::vector<Batch>> per_rank;
  std::optional<AccelerateError> error;
};

IterablePasses iterable_passes(const trace::LoaderCase& job) {
  trace::LoaderCase one = job;
  one.epochs = 1;
  one.schedule.assign(1, trace::LoaderRole::Prepared);
  one.set_epoch.reset();
  IterablePasses out;
  const trace::Trace t = simulate(one);
  if (t.error) {
    const auto type = py_error_type(t.error->type);
    out.error = AccelerateError(type.value_or(PyErrorType::ValueError), "train", t.error->message);
    return out;
  }
  for (const auto& r : std::get<std::vector<trace::RankRecord>>(t.body)) {
    if (r.epochs.empty() || r.epochs.front().error || r.error) {
      const auto& e = r.error ? *r.error : *r.epochs.front().error;
      out.error = AccelerateError(py_error_type(e.type).value_or(PyErrorType::RuntimeError), "train", e.message);
      return out;
    }
    out.per_rank.push_back(r.epochs.front().batches);
  }
  return out;
}

// The schedule a job over an IterableDataset runs: Trainer's own with __len__ (len(train_dataloader) = the batches
// a pass yields), else the one without a length.
TrainerSchedule iterable_schedule(const trace::TrainerCase& c, const TrainerLoopOptions& loop, std::int64_t pass_len) {
  return c.iterable_has_len ? trainer_schedule(pass_len, loop) : trainer_schedule_without_length(pass_len, loop);
}

// One rank's run of one job over an IterableDataset (golden/trainer-iterable.md): the loop of run_trainer_loop over
// passes of the same stream, the resumed job skipping (G % nups) * GA of its own per-rank batches of the pass of
// epoch G // nups.
std::vector<trace::TrainerStepRecord> run_iterable_rank(const trace::TrainerCase& c, const TrainerLoopOptions& loop,
                                                        const std::vector<Batch>& pass, bool resumed_job,
                                                        std::vector<std::int64_t>& epochs, bool& hangs) {
  const auto pass_len = static_cast<std::int64_t>(pass.size());
  const TrainerSchedule schedule = iterable_schedule(c, loop, pass_len);
  std::optional<TrainerResumePosition> start;
  if (resumed_job) start = resume_position(c.resume->global_step, schedule, c.resume->ignore_data_skip);
  hangs = !c.iterable_has_len && never_steps_without_length(pass_len, schedule.gradient_accumulation_steps);
  if (hangs) return {};
  std::vector<std::int64_t> skips;  // per epoch iterated
  const TrainerRun run = run_trainer_loop(schedule, start, [&](std::int64_t epoch, std::int64_t skip) {
    skips.resize(static_cast<std::size_t>(epoch) + 1, 0);
    skips[static_cast<std::size_t>(epoch)] = skip;
    return std::max<std::int64_t>(pass_len - skip, 0);
  });
  const std::int64_t n = c.job.loader.dataset_len;
  auto batch_of = [&](const MicroBatchRef& m) {
    Batch b = pass.at(static_cast<std::size_t>(m.batch));
    // set_epoch(e) reaches the dataset before pass e: it yields (e + j) mod n where the plain one yields j.
    if (c.iterable_set_epoch && n > 0) {
      for (SampleId& id : b) id = (id + m.epoch) % n;
    }
    return b;
  };
  return step_records(run, batch_of, epochs);
}

// What Trainer.__init__ refuses for an IterableDataset, on every rank, before anything is trained.
std::optional<trace::ErrorRecord> iterable_init_error(const trace::TrainerCase& c) {
  if (!c.iterable) return std::nullopt;
  if (!c.iterable_has_len && c.loop.max_steps <= 0) {
    return trace::ErrorRecord{"train", "ValueError", iterable_needs_max_steps_message(c.release), std::nullopt};
  }
  if (c.group_by_length_requested && refuses_group_by_length_for_iterable(c.release)) {
    return trace::ErrorRecord{"train", "ValueError", kGroupByLengthIterableMessage, std::nullopt};
  }
  return std::nullopt;
}

// checkpoint-G exists only for a G the first job reached: a resume from beyond its last step describes no run (the
// resumed job would report nothing trained, then extra samples against an end that was never saved).
void refuse_checkpoint_past_end(const trace::TrainerCase& c, const trace::TrainerTrace& first) {
  std::int64_t last = 0;
  for (const auto& rank : first.ranks) {
    if (rank.error) return;  // the first job's own error is the answer
    for (const auto& step : rank.steps)
      if (step.global_step) last = std::max(last, *step.global_step);
  }
  if (c.resume->global_step > last) {
    throw trace::ConfigError("resume.global_step (--resume-at-step): " + std::to_string(c.resume->global_step) +
                             " is past the first job's last step " + std::to_string(last) +
                             ": Trainer never saves checkpoint-" + std::to_string(c.resume->global_step) +
                             (last == 0 ? std::string(" (the first job takes no optimizer step)")
                                        : " (a resume is from a global step in 1.." + std::to_string(last) + ")"));
  }
}

}  // namespace

std::int64_t iterable_pass_length(const trace::TrainerCase& c, bool resumed_job, std::int64_t rank) {
  const IterablePasses p = iterable_passes(shape_of(c, resumed_job).job);
  return p.per_rank.empty() ? 0 : static_cast<std::int64_t>(p.per_rank.at(static_cast<std::size_t>(rank)).size());
}

TrainerSchedule trainer_job_schedule(const trace::TrainerCase& c, bool resumed_job, std::int64_t rank) {
  const JobShape shape = shape_of(c, resumed_job);
  if (c.iterable) return iterable_schedule(c, shape.loop, iterable_pass_length(c, resumed_job, rank));
  return trainer_schedule(len_of(sharded(shape.job, rank)), shape.loop);
}

trace::TrainerTrace simulate_trainer(const trace::TrainerCase& c, TrainerStepEpochs* epochs) {
  trace::TrainerTrace out;
  const std::int64_t world = c.job.prepare.num_processes;
  const std::int64_t world2 = c.resume ? c.resume->num_processes : 0;
  const auto all = static_cast<std::size_t>(std::max(world, world2));
  for (std::size_t r = 0; r < all; ++r) out.ranks.push_back({static_cast<std::int64_t>(r), {}, {}, std::nullopt});
  TrainerStepEpochs local;
  TrainerStepEpochs& step_epochs = epochs ? *epochs : local;
  step_epochs.first.assign(all, {});
  step_epochs.resumed.assign(all, {});
  SavedRngStates saved_rng(static_cast<std::size_t>(world));
  if (const auto refused = iterable_init_error(c)) {
    for (auto& rec : out.ranks) rec.error = *refused;
    return out;
  }
  for (bool resumed_job : {false, true}) {
    if (resumed_job && !c.resume) break;
    if (resumed_job) refuse_checkpoint_past_end(c, out);
    const JobShape shape = shape_of(c, resumed_job);
    if (c.iterable) {
      const IterablePasses passes = iterable_passes(shape.job);
      for (std::int64_t r = 0; r < shape.job.prepare.num_processes; ++r) {
        auto& rec = out.ranks[static_cast<std::size_t>(r)];
        if (rec.error) continue;
        if (resumed_job && c.on_cpu && resume_fails_on_cpu_group(c.release, shape.job.prepare.num_processes)) {
          rec.error = trace::ErrorRecord{"train", "RuntimeError", kIndexedCpuRestoreError, std::nullopt};
          continue;
        }
        if (passes.error) {
          rec.error = rank_error(*passes.error);
          continue;
        }
        const auto i = static_cast<std::size_t>(r);
        bool hangs = false;
        (resumed_job ? rec.resumed_steps : rec.steps) = run_iterable_rank(
            c, shape.loop, passes.per_rank.at(i), resumed_job,
            (resumed_job ? step_epochs.resumed : step_epochs.first)[i], hangs);
        if (hangs) {
          rec.error = trace::ErrorRecord{"train", "Hang", trace::recorder_hang_message(r, trace::kTrainerRecorderTimeoutS),
                                         std::nullopt};
        }
      }
      continue;
    }
    auto log = std::make_shared<std::vector<std::vector<std::int64_t>>>();
    // Ranks that draw the same epoch order from the same generator state take the first rank's (draw_memo.hpp).
    const auto draws = std::make_shared<DrawMemo>();
    for (std::int64_t r = 0; r < shape.job.prepare.num_processes; ++r) {
      auto& rec = out.ranks[static_cast<std::size_t>(r)];
      if (rec.error) continue;
      if (resumed_job && c.on_cpu && resume_fails_on_cpu_group(c.release, shape.job.prepare.num_processes)) {
        rec.error = trace::ErrorRecord{"train", "RuntimeError", kIndexedCpuRestoreError, std::nullopt};
        continue;
      }
      try {
        const auto i = static_cast<std::size_t>(r);
        (resumed_job ? rec.resumed_steps : rec.steps) =
            run_rank(c, shape, r, log, draws, resumed_job, (resumed_job ? step_epochs.resumed : step_epochs.first)[i],
                     saved_rng);
      } catch (const AccelerateError& e) {
        rec.error = rank_error(e);
      }
    }
  }
  return out;
}

}  // namespace accel::sim
