#include "resume_simulator.hpp"

#include <memory>
#include <stdexcept>
#include <string>

#include "core/accelerate_release.hpp"
#include "core/prepare_data_loader.hpp"
#include "broadcast_replay.hpp"
#include "simulator.hpp"
#include "trace/trace_json.hpp"

namespace accel::sim {
namespace {

DataLoaderShard sharded(const trace::LoaderCase& job, std::int64_t rank) {
  auto shard = prepared_shard(job, rank);
  if (!shard) throw trace::ConfigError("config.accelerator.dispatch_batches: the resume family models DataLoaderShard only");
  return std::move(*shard);
}

std::vector<Batch> batches_of(const LoaderPass& pass, std::int64_t drop) {
  std::vector<Batch> out;
  for (std::int64_t j = drop; j < pass.num_batches(); ++j) out.push_back(pass.batch(j));
  return out;
}

// Within what set_seed accepts (numpy takes [0, 2^32 - 1]), with room for seed + rank on every rank.
constexpr std::uint64_t kRestartedSeedStandIn = 0x5eed'0002ULL;

struct FirstJob {
  std::vector<trace::ResumeRankRecord> ranks;
  std::vector<std::optional<GeneratorState>> generators;  // what random_states_{rank}.pkl holds
  std::vector<StatefulLoaderState> loader_states;         // what each rank writes to dl_state_dict.bin
};

FirstJob run_first_job(const trace::ResumeCase& c) {
  const auto& spec = c.resume;
  const std::int64_t world = c.job.prepare.num_processes;
  FirstJob out;
  out.generators.resize(static_cast<std::size_t>(world));
  out.loader_states.resize(static_cast<std::size_t>(world));
  auto log = std::make_shared<std::vector<std::vector<std::int64_t>>>();
  // Ranks that draw the same epoch order from the same generator state take the first rank's (draw_memo.hpp).
  const auto draws = std::make_shared<DrawMemo>();
  for (std::int64_t r = 0; r < world; ++r) {
    const auto pr = static_cast<std::size_t>(r);
    trace::ResumeRankRecord rec;
    rec.rank = r;
    DataLoaderShard loader = sharded(c.job, r);
    loader.share_draws(draws);
    BroadcastReplay comm(log, r, world);
    for (std::int64_t e = 0; e < c.job.epochs; ++e) {
      if (spec.loop_set_epoch) loader.set_epoch(e);
      if (e == spec.epoch && spec.step == 0) {
        out.generators[pr] = loader.process_generator_state();
        out.loader_states[pr] = as_saved(
            state_before_pass(e > 0 ? std::optional<std::int64_t>(static_cast<std::int64_t>(rec.uninterrupted.back().size()))
                                    : std::nullopt),
            c.job.prepare.release, world);
      }
      const LoaderPass pass = loader.iterate(&comm);
      // The loader draws everything it draws from torch's generator when the pass starts, so a checkpoint
      // after any batch of it sees the generator as the pass start left it.
      if (e == spec.epoch && spec.step > 0) {
        if (spec.step > pass.num_batches()) {
          throw trace::ConfigError("config.resume.step: " + std::to_string(spec.step) + " is past the end of epoch " +
                                   std::to_string(e) + " (" + std::to_string(pass.num_batches()) +
                                   " batches on rank " + std::to_string(r) + "), so save_state is never reached");
        }
        out.generators[pr] = loader.process_generator_state();
        out.loader_states[pr] = as_saved(state_after_batches(spec.step, pass.num_batches()), c.job.prepare.release, world);
      }
      rec.uninterrupted.push_back(batches_of(pass, 0));
    }
    out.ranks.push_back(std::move(rec));
  }
  return out;
}

// Every process writes its state to the one dl_state_dict.bin and every restarted process loads that file,
// so the restored state is the last writer's, on every rank.
StatefulLoaderState restored_state(const trace::ResumeCase& c, const std::vector<StatefulLoaderState>& states) {
  if (c.resume.state_writer) return states.at(static_cast<std::size_t>(*c.resume.state_writer));
  for (std::size_t r = 1; r < states.size(); ++r) {
    if (!(states[r] == states[0])) {
      throw trace::ConfigError("config.resume.state_writer: the ranks' StatefulDataLoader states differ (rank 0 " +
                               std::string(states[0].iterator_finished ? "is" : "is not") +
                               " at its last batch, rank " + std::to_string(r) +
                               (states[r].iterator_finished ? " is" : " is not") +
                               ") and every rank writes the same dl_state_dict.bin: which survives is a race; give "
                               "the rank that writes last");
    }
  }
  return states.at(0);
}

// The script stops where the release raises; the recorder writes the group's error on each of its ranks (every rank
// raises the same) and none of that group's batches.
trace::ErrorRecord group_error(const char* group, const AccelerateError& e) {
  return trace::ErrorRecord{group, std::string(python_name(e.type())), e.message(), std::nullopt};
}

}  // namespace

std::vector<StatefulLoaderState> saved_loader_states(const trace::ResumeCase& c) {
  return run_first_job(c).loader_states;
}

trace::ResumeTrace simulate_resume(const trace::ResumeCase& c) {
  const auto& spec = c.resume;
  const std::int64_t world = c.job.prepare.num_processes;
  trace::ResumeTrace out;
  FirstJob first;
  try {
    check_release_keywords(c.job);
    first = run_first_job(c);
  } catch (const AccelerateError& e) {
    // The restarted group runs the same start-up and fails the same way: the first group's error is recorded.
    for (std::int64_t r = 0; r < world; ++r) out.ranks.push_back(trace::ResumeRankRecord{r, {}, {}, group_error("first_group", e)});
    return out;
  }
  out.ranks = std::move(first.ranks);
  const auto& saved = first.generators;
  trace::LoaderCase job2 = c.job;
  job2.prepare.num_processes = spec.resume_ranks.value_or(world);
  job2.loader.batch_size = spec.resume_batch_size.value_or(c.job.loader.batch_size);
  if (!job2.torch_manual_seed) {
    // Without set_seed, torch seeds each new process from the OS, so the restarted ranks do not get the
    // first job's seeds: a different fixed stand-in per rank (seeding with it is the same generator state).
    job2.torch_manual_seed = PythonInt{kRestartedSeedStandIn};
    job2.seed_per_rank = true;
  }
  const std::int64_t world2 = job2.prepare.num_processes;
  // A StatefulDataLoader resumes where the restored state says (from the start when it says finished); the user
  // chooses only how many batches skip_first_batches / continue skip.
  const bool stateful = spec.mode == trace::ResumeMode::Stateful;
  const std::optional<StatefulLoaderState> loaded =
      stateful ? std::optional<StatefulLoaderState>(restored_state(c, first.loader_states)) : std::nullopt;
  // 0.34 - 1.12's adjusted count can fall below 0, which torchdata's islice refuses when the pass starts.
  const bool negative_count = loaded && !loaded->iterator_finished && loaded->batches_yielded < 0;
  const RestoredPass restored = loaded && !negative_count ? pass_after_load(*loaded) : RestoredPass{};
  const std::int64_t skip = stateful ? restored.skipped_batches : spec.skip.value_or(spec.step);
  auto log2 = std::make_shared<std::vector<std::vector<std::int64_t>>>();
  for (std::int64_t r = world; r < world2; ++r) out.ranks.push_back(trace::ResumeRankRecord{r, {}, {}, std::nullopt});
  try {
    if (negative_count) {
      throw AccelerateError(PyErrorType::ValueError, "iterate",
                            "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.");
    }
    // Before 0.16.0 the restarted loop's accelerator.skip_first_batches is no method at all.
    if (spec.mode == trace::ResumeMode::SkipFirstBatches && skip > 0 && !has_skip_first_batches(c.job.prepare.release)) {
      throw AccelerateError(PyErrorType::AttributeError, "skip_first_batches",
                            "'Accelerator' object has no attribute 'skip_first_batches'");
    }
    const auto draws = std::make_shared<DrawMemo>();
    for (std::int64_t r = 0; r < world2; ++r) {
      auto& rec = out.ranks[static_cast<std::size_t>(r)];
      DataLoaderShard loader = sharded(job2, r);
      loader.share_draws(draws);
      // load_state restores random_states_{process_index}.pkl; a process index the checkpoint has no file for
      // keeps its own generator (Accelerate logs "Could not load random states" and goes on).
      if (r < world && saved[static_cast<std::size_t>(r)]) loader.set_process_generator_state(*saved[static_cast<std::size_t>(r)]);
      // load_state hands the StatefulDataLoader the saved state, which drops the iterator prepare built.
      if (stateful) loader.load_state_dict();
      BroadcastReplay comm(log2, r, world2);
      for (std::int64_t e = spec.epoch; e < c.job.epochs; ++e) {
        if (spec.loop_set_epoch) loader.set_epoch(e);
        if (e != spec.epoch || spec.mode == trace::ResumeMode::None) {
          rec.resumed.push_back(batches_of(loader.iterate(&comm), 0));
        } else if (spec.mode == trace::ResumeMode::SkipFirstBatches && skip > 0) {
          DataLoaderShard skipped = loader.skip_first_batches(skip);
          rec.resumed.push_back(batches_of(skipped.iterate(&comm), 0));
        } else if (stateful) {
          rec.resumed.push_back(batches_of(loader.iterate(&comm, restored), 0));
        } else {
          rec.resumed.push_back(batches_of(loader.iterate(&comm), skip));
        }
      }
    }
  } catch (const AccelerateError& e) {
    for (std::int64_t r = 0; r < world2; ++r) {
      auto& rec = out.ranks[static_cast<std::size_t>(r)];
      rec.resumed.clear();
      rec.error = group_error("second_group", e);
    }
  }
  return out;
}

}  // namespace accel::sim
