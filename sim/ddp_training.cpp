#include "ddp_training.hpp"

#include <algorithm>
#include <sstream>

#include "core/accelerated_optimizer.hpp"
#include "core/accelerated_scheduler.hpp"
#include "core/accumulate.hpp"
#include "core/error.hpp"
#include "core/gradient_state.hpp"
#include "core/prepare_data_loader.hpp"
#include "in_process_group.hpp"
#include "rank_ranges.hpp"
#include "simulator.hpp"

namespace accel::sim {
namespace {

// Whether every contributor of an all_reduce of (1, x, x^2) sent the same x: n * sum(x^2) == sum(x)^2 holds
// only then (Cauchy-Schwarz), so one reduction tells it without gathering.
bool same_everywhere(std::int64_t n, std::int64_t sum, std::int64_t sum_sq) { return n * sum_sq == sum * sum; }

// The rank's loop, with where it is kept up to date for the report of a hang.
class Loop {
 public:
  Loop(Communicator& comm, const TrainingLoop& options, bool join, TrainingRank& out)
      : comm_(comm), options_(options), join_(join), out_(out) {}

  void micro_step(std::int64_t epoch, std::int64_t step, bool sync) {
    epoch_ = epoch;
    step_ = step;
    // accumulate(): DDP stays out of no_sync when syncing, or on every batch with sync_each_batch.
    const bool allow_sync = sync || (options_.sync_each_batch && comm_.world_size() > 1);
    if (join_) {
      collective_ = "join notify (all_reduce)";
      (void)comm_.all_reduce({1});
      collective_ = "requires-grad-sync flag (all_reduce)";
      (void)comm_.all_reduce({allow_sync ? 1 : 0});
    }
    if (allow_sync) gradient_all_reduce(epoch, step, true);
    if (sync) ++out_.optimizer_steps;  // accumulate() leaves sync_gradients set for optimizer.step()
  }

  // A rank whose loader is exhausted, under an enabled Join: shadow the others until all have joined.
  void join_until_everyone_has() {
    if (!join_) return;
    step_ = out_.micro_steps.empty() ? 0 : out_.micro_steps.back();
    for (;;) {
      collective_ = "join notify (all_reduce, joined)";
      if (comm_.all_reduce({0}).at(0) == 0) return;
      collective_ = "requires-grad-sync flag (all_reduce, joined)";
      if (comm_.all_reduce({0}).at(0) > 0) {
        gradient_all_reduce(epoch_, step_, false);
        ++out_.shadowed_all_reduces;
      }
    }
  }

  void hung(const CollectiveError& e) {
    out_.hang = TrainingHang{epoch_, step_, collective_, e.collective_index(), e.missing_ranks(), e.what()};
  }

 private:
  void gradient_all_reduce(std::int64_t epoch, std::int64_t step, bool own) {
    collective_ = own ? "gradient all_reduce" : "gradient all_reduce (joined, zeros)";
    const std::vector<std::int64_t> mine =
        own ? std::vector<std::int64_t>{1, epoch, epoch * epoch, step, step * step} : std::vector<std::int64_t>(5, 0);
    const std::vector<std::int64_t> sum = comm_.all_reduce(mine);
    if (own) ++out_.gradient_all_reduces;
    if (own && !out_.out_of_step &&
        !(same_everywhere(sum[0], sum[1], sum[2]) && same_everywhere(sum[0], sum[3], sum[4]))) {
      out_.out_of_step = OutOfStep{epoch, step};
    }
  }

  Communicator& comm_;
  const TrainingLoop& options_;
  bool join_;
  TrainingRank& out_;
  std::int64_t epoch_ = 0;
  std::int64_t step_ = 0;
  std::string collective_ = "the loader's collective";
};

}  // namespace

bool join_enabled(const trace::LoaderCase& config, const TrainingLoop& loop) {
  if (!loop.join_uneven_inputs || !loop.multi_device || config.prepare.num_processes <= 1) return false;
  return !loop.join_even_batches.value_or(config.prepare.even_batches);
}

trace::LoaderCase loader_under_loop(const trace::LoaderCase& config, const TrainingLoop& loop) {
  trace::LoaderCase c = config;
  // Accelerator.join_uneven_inputs sets dl.batch_sampler.even_batches on every prepared loader but a
  // DataLoaderDispatcher; only a BatchSamplerShard reads it.
  if (loop.join_uneven_inputs && loop.multi_device && loop.join_even_batches && config.prepare.num_processes > 1 &&
      !resolve_dispatch_batches(config.loader, config.prepare)) {
    c.prepare.even_batches = *loop.join_even_batches;
  }
  return c;
}

TrainingRank train_rank(const trace::LoaderCase& config, std::int64_t rank, Communicator& comm,
                        const TrainingLoop& loop) {
  TrainingRank out;
  out.rank = rank;
  const trace::LoaderCase c = loader_under_loop(config, loop);
  Loop run(comm, loop, join_enabled(config, loop), out);
  trace::RankRecord record;
  try {
    record = simulate_rank(c, rank, &comm);
  } catch (const AccelerateError& e) {
    out.error = case_error(c, e);
    return out;
  }
  out.record = record;
  GradientState state(GradientState::Settings{.num_steps = std::max<std::int64_t>(1, loop.gradient_accumulation_steps),
                                              .adjust_scheduler = true,
                                              .sync_with_dataloader = true,
                                              .sync_each_batch = loop.sync_each_batch});
  Accumulator accumulator;
  // optimizer.step() / scheduler.step() after each backward, through the core: the scheduler moves
  // num_processes steps per optimizer step (split_batches off), as the what-if's training section says.
  AcceleratedOptimizer optimizer;
  AcceleratedScheduler scheduler(LRScheduler(ConstantWarmupSchedule{}),
                                 {true, c.prepare.split_batches, c.prepare.num_processes});
  try {
    for (const trace::PassRecord& pass : record.epochs) {
      out.micro_steps.push_back(0);
      state.begin_dataloader();
      for (std::size_t j = 0; j < pass.batches.size(); ++j) {
        // The loader looks one batch ahead: end_of_dataloader is set when the last batch arrives.
        state.update_dataloader(pass.end_of_dataloader[j], pass.remainder[j]);
        const bool sync = accumulator.do_sync(state);
        run.micro_step(pass.epoch, static_cast<std::int64_t>(j), sync);
        optimizer.step(state);
        out.scheduler_steps += scheduler.step(state, optimizer);
        optimizer.zero_grad(state);
        ++out.micro_steps.back();
      }
      if (pass.error) {
        out.error = pass.error;  // the exception leaves the loop: this rank stops here
        break;
      }
      state.end_dataloader();
    }
    if (record.error) {
      // A loader collective (rng synchronisation, a dispatched batch) that some rank never entered.
      out.hang = TrainingHang{static_cast<std::int64_t>(record.epochs.size()) - 1,
                              0,
                              "the loader's collective",
                              0,
                              {},
                              record.error->message};
      return out;
    }
    if (!out.error) run.join_until_everyone_has();
  } catch (const CollectiveError& e) {
    run.hung(e);
  }
  return out;
}

std::vector<TrainingRank> simulate_training_ranks(const trace::LoaderCase& config, const TrainingLoop& loop) {
  const std::int64_t world = config.prepare.num_processes;
  std::vector<TrainingRank> out(static_cast<std::size_t>(world));
  run_ranks_in_threads(world, [&](std::int64_t r, Communicator& comm) {
    out[static_cast<std::size_t>(r)] = train_rank(config, r, comm, loop);
  });
  return out;
}

TrainingVerdict training_verdict(const std::vector<TrainingRank>& ranks) {
  TrainingVerdict v;
  for (const TrainingRank& r : ranks) {
    if (r.error && !v.error) v.error = r.error;
    if (r.out_of_step && !v.out_of_step) v.out_of_step = r.out_of_step;
    if (r.hang) {
      v.waiting_ranks.push_back(r.rank);
      if (!v.hang) v.hang = r.hang;
    } else {
      v.finished_ranks.push_back(r.rank);
    }
  }
  v.completed = v.waiting_ranks.empty() && !v.error;
  if (v.waiting_ranks.empty()) v.finished_ranks.clear();
  return v;
}

namespace {

struct MicroStep {
  std::int64_t epoch, step;
  bool all_reduce;  // a gradient all_reduce (syncing, or sync_each_batch)
  friend bool operator==(const MicroStep& a, const MicroStep& b) { return a.epoch == b.epoch && a.step == b.step; }
};

}  // namespace

std::optional<TrainingVerdict> predict_training(const std::vector<std::vector<std::int64_t>>& batches,
                                                const TrainingLoop& loop, bool join, std::int64_t max_micro_steps) {
  const auto world = static_cast<std::int64_t>(batches.size());
  const std::int64_t k = std::max<std::int64_t>(1, loop.gradient_accumulation_steps);
  // One schedule per distinct count vector, in the order of the first rank that has it.
  std::vector<std::vector<MicroStep>> schedules;
  std::vector<std::size_t> schedule_of(static_cast<std::size_t>(world));
  std::vector<std::vector<std::int64_t>> seen;
  for (std::int64_t r = 0; r < world; ++r) {
    const auto& counts = batches[static_cast<std::size_t>(r)];
    const auto it = std::find(seen.begin(), seen.end(), counts);
    if (it != seen.end()) {
      schedule_of[static_cast<std::size_t>(r)] = static_cast<std::size_t>(it - seen.begin());
      continue;
    }
    std::int64_t total = 0;
    for (std::int64_t n : counts) total += n;
    if (total > max_micro_steps) return std::nullopt;
    std::vector<MicroStep> steps;
    steps.reserve(static_cast<std::size_t>(total));
    for (std::size_t e = 0; e < counts.size(); ++e) {
      // accumulate()'s _do_sync: every k-th micro-step, and the pass's last batch (the count restarts there).
      for (std::int64_t j = 0; j < counts[e]; ++j) {
        const bool sync = (j + 1) % k == 0 || j == counts[e] - 1;
        steps.push_back({static_cast<std::int64_t>(e), j, sync || (loop.sync_each_batch && world > 1)});
      }
    }
    schedule_of[static_cast<std::size_t>(r)] = schedules.size();
    schedules.push_back(std::move(steps));
    seen.push_back(counts);
  }
  TrainingVerdict v;
  if (join) {
    // Every micro-step of an active rank makes the same Join collectives; a joined rank shadows them. So
    // nothing blocks while the active ranks agree on whether to all_reduce.
    std::size_t longest = 0;
    for (const auto& s : schedules) longest = std::max(longest, s.size());
    std::vector<std::optional<MicroStep>> first_mismatch(schedules.size());
    for (std::size_t p = 0; p < longest; ++p) {
      std::optional<bool> reduces;
      std::optional<MicroStep> reducing;
      bool mismatch = false;
      for (const auto& s : schedules) {
        if (p >= s.size()) continue;
        if (reduces && *reduces != s[p].all_reduce) return std::nullopt;
        reduces = s[p].all_reduce;
        if (s[p].all_reduce) {
          if (reducing && !(*reducing == s[p])) mismatch = true;
          reducing = s[p];
        }
      }
      if (!mismatch) continue;
      for (std::size_t g = 0; g < schedules.size(); ++g) {
        if (p < schedules[g].size() && !first_mismatch[g]) first_mismatch[g] = schedules[g][p];
      }
    }
    for (std::int64_t r = 0; r < world && !v.out_of_step; ++r) {
      if (const auto& m = first_mismatch[schedule_of[static_cast<std::size_t>(r)]])
        v.out_of_step = OutOfStep{m->epoch, m->step};
    }
    return v;
  }
  // Without Join the i-th gradient all_reduce of every rank pairs up, whatever step each is at.
  std::vector<std::vector<MicroStep>> reduces(schedules.size());
  for (std::size_t g = 0; g < schedules.size(); ++g) {
    for (const MicroStep& m : schedules[g]) {
      if (m.all_reduce) reduces[g].push_back(m);
    }
  }
  std::size_t fewest = reduces[0].size();
  for (const auto& a : reduces) fewest = std::min(fewest, a.size());
  for (std::size_t i = 0; i < fewest && !v.out_of_step; ++i) {
    for (const auto& a : reduces) {
      if (!(a[i] == reduces[0][i])) {
        // Every rank notices on the same collective; the verdict reports rank 0's step.
        const MicroStep& m = reduces[schedule_of[0]][i];
        v.out_of_step = OutOfStep{m.epoch, m.step};
        break;
      }
    }
  }
  std::vector<std::int64_t> missing;
  for (std::int64_t r = 0; r < world; ++r) {
    const auto& a = reduces[schedule_of[static_cast<std::size_t>(r)]];
    (a.size() > fewest ? v.waiting_ranks : missing).push_back(r);
  }
  if (v.waiting_ranks.empty()) return v;
  v.completed = false;
  v.finished_ranks = missing;
  const MicroStep& at = reduces[schedule_of[static_cast<std::size_t>(v.waiting_ranks.front())]][fewest];
  v.hang = TrainingHang{at.epoch, at.step, "gradient all_reduce", 0, missing, ""};
  return v;
}

std::string describe(const TrainingVerdict& v, const std::vector<TrainingRank>& ranks) {
  std::ostringstream os;
  if (v.hang) {
    // Ranks that wait at different places are named by where the first one waits, then each other.
    os << "ranks " << rank_ranges(v.waiting_ranks) << " wait forever in the " << v.hang->collective << " at epoch "
       << v.hang->epoch << " step " << v.hang->step;
    for (const TrainingRank& r : ranks) {
      if (r.hang && (r.hang->epoch != v.hang->epoch || r.hang->step != v.hang->step)) {
        os << " (rank " << r.rank << " at epoch " << r.hang->epoch << " step " << r.hang->step << ")";
      }
    }
    if (!v.finished_ranks.empty()) {
      // What the finished ranks trained on: the reason the others wait.
      os << "; " << (v.finished_ranks.size() == 1 ? "rank " : "ranks ") << rank_ranges(v.finished_ranks)
         << (v.finished_ranks.size() == 1 ? " finished its loop after " : " finished their loops after ");
      std::vector<std::int64_t> totals;
      for (std::int64_t f : v.finished_ranks) {
        std::int64_t total = 0;
        for (std::int64_t m : ranks[static_cast<std::size_t>(f)].micro_steps) total += m;
        if (std::find(totals.begin(), totals.end(), total) == totals.end()) totals.push_back(total);
      }
      for (std::size_t i = 0; i < totals.size(); ++i) os << (i ? " or " : "") << totals[i];
      os << (totals.size() == 1 && totals[0] == 1 ? " micro-step" : " micro-steps");
    }
  } else if (v.error) {
    os << "the ranks raised " << v.error->type << (v.error->where.empty() ? "" : " at " + v.error->where) << ": "
       << v.error->message;
  } else {
    std::int64_t steps = 0, all_reduces = 0, scheduler_steps = 0;
    for (const TrainingRank& r : ranks) {
      steps = std::max(steps, r.optimizer_steps);
      all_reduces = std::max(all_reduces, r.gradient_all_reduces);
      scheduler_steps = std::max(scheduler_steps, r.scheduler_steps);
    }
    os << "completed: " << steps << " optimizer steps, " << all_reduces << " gradient all_reduces, " << scheduler_steps
       << " scheduler steps per rank";
  }
  if (v.out_of_step) {
    os << "; ranks were out of step from epoch " << v.out_of_step->epoch << " step " << v.out_of_step->step
       << " (a gradient all_reduce averaged different steps' gradients)";
  }
  return os.str();
}

}  // namespace accel::sim
