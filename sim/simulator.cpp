#include "simulator.hpp"

#include <exception>
#include <string>

#include "core/accelerate_release.hpp"
#include "core/error.hpp"
#include "core/prepare_data_loader.hpp"
#include "core/randperm.hpp"
#include "core/sampler.hpp"
#include "in_process_group.hpp"
#include "metrics_simulator.hpp"
#include "sequential_group.hpp"
#include "trace/trace_json.hpp"
#include "training_simulator.hpp"

namespace accel::sim {
namespace {

trace::ErrorRecord record(const AccelerateError& e) {
  return {e.where(), std::string(python_name(e.type())), e.message(), std::nullopt};
}



template <typename T>
void read_attribute(const Attribute<T>& attr, const char* name, std::optional<T>& out,
                    std::map<std::string, trace::ErrorRecord>& errors) {
  if (attr.ok()) {
    out = attr.value();
  } else {
    errors[name] = {"", std::string(python_name(attr.failure().type)), attr.failure().message, std::nullopt};
  }
}

template <typename Loader>
trace::LoaderAttributes attributes_of(const Loader& loader, const char* loader_class) {
  trace::LoaderAttributes a;
  a.loader_class = loader_class;
  read_attribute(loader.len(), "len", a.len, a.attr_errors);
  read_attribute(loader.total_batch_size(), "total_batch_size", a.total_batch_size, a.attr_errors);
  read_attribute(loader.total_dataset_length(), "total_dataset_length", a.total_dataset_length, a.attr_errors);
  return a;
}

const char* class_of(const DataLoaderShard&) { return "DataLoaderShard"; }
const char* class_of(const DataLoaderDispatcher&) { return "DataLoaderDispatcher"; }

PrepareOptions options_for_rank(const trace::LoaderCase& config, std::int64_t rank) {
  PrepareOptions options = config.prepare;
  options.process_index = rank;
  options.process_seed = process_seed(config, rank);
  return options;
}

// loader.iteration, or null in a release whose loaders have none (before 0.24.0).
template <typename Loader>
std::optional<std::int64_t> iteration_of(const Loader& loader) {
  if (!loader.has_iteration()) return std::nullopt;
  return loader.iteration();
}

void run_pass(DataLoaderShard& loader, Communicator* comm, trace::PassRecord& pass) {
  std::optional<LoaderPass> started;
  try {
    started.emplace(loader.iterate(comm));
  } catch (const AccelerateError& e) {
    // Raised by the sampler inside the pass (a seed torch cannot unpack, a draw over an empty dataset):
    // the loop records it and goes on, with the counters as the failed pass left them.
    if (e.where() != "iterate") throw;
    pass.error = record(e);
    pass.iteration_after = iteration_of(loader);
    pass.sampler_epoch_after = loader.sampler_epoch();
    return;
  }
  const LoaderPass& view = *started;
  const std::int64_t count = view.num_batches();
  pass.batches.reserve(static_cast<std::size_t>(count));
  for (std::int64_t j = 0; j < count; ++j) {
    pass.batches.push_back(view.batch(j));
    pass.end_of_dataloader.push_back(view.end_of_dataloader(j));
    pass.remainder.push_back(view.remainder);
  }
  pass.iteration_after = iteration_of(loader);
  pass.sampler_epoch_after = loader.sampler_epoch();
}

void run_pass(DataLoaderDispatcher& loader, Communicator* comm, trace::PassRecord& pass) {
  if (!comm) throw AccelerateError(PyErrorType::RuntimeError, "iterate", "DataLoaderDispatcher needs a communicator");
  DispatchPass d = loader.iterate(*comm);
  pass.batches = std::move(d.batches);
  pass.end_of_dataloader = std::move(d.end_of_dataloader);
  pass.remainder = std::move(d.remainder);
  pass.iteration_after = loader.has_iteration() ? std::optional<std::int64_t>(d.iteration_after) : std::nullopt;
  pass.sampler_epoch_after = d.sampler_epoch_after;
  if (d.error) pass.error = record(*d.error);
}

std::int64_t pass_count(const trace::LoaderCase& config) { return config.epochs; }

// skip_first_batches in a release before 0.16.0 (has_skip_first_batches): the Accelerator has no such method, and
// `from accelerate.data_loader import skip_first_batches` fails (the message ends with the module's file, which
// names the recorder's environment: trace_diff compares an ImportError's message without it).
AccelerateError missing_skip_first_batches(const trace::LoaderCase& config) {
  if (config.api == "accelerator") {
    return AccelerateError(PyErrorType::AttributeError, "skip_first_batches",
                           "'Accelerator' object has no attribute 'skip_first_batches'");
  }
  return AccelerateError(PyErrorType::ImportError, "skip_first_batches",
                         "cannot import name 'skip_first_batches' from 'accelerate.data_loader' "
                         "(accelerate/data_loader.py)");
}

trace::LoaderRole role_of(const trace::LoaderCase& config, std::int64_t e) {
  return e < static_cast<std::int64_t>(config.schedule.size()) ? config.schedule[static_cast<std::size_t>(e)]
                                                               : trace::LoaderRole::Prepared;
}

std::optional<std::int64_t> set_epoch_of(const trace::LoaderCase& config, std::int64_t e) {
  if (config.set_epoch && e < static_cast<std::int64_t>(config.set_epoch->size())) {
    return (*config.set_epoch)[static_cast<std::size_t>(e)];
  }
  return std::nullopt;
}

}  // namespace

std::vector<trace::RankRecord> simulate_ranks_threaded(const trace::LoaderCase& config) {
  const std::int64_t world = config.prepare.num_processes;
  std::vector<trace::RankRecord> ranks(static_cast<std::size_t>(world));
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(world));
  run_ranks_in_threads(
      world,
      [&](std::int64_t r, Communicator& comm) {
        try {
          ranks[static_cast<std::size_t>(r)] = simulate_rank(config, r, &comm);
        } catch (...) {
          failures[static_cast<std::size_t>(r)] = std::current_exception();
        }
      },
      RankExit::ClosesConnection);
  for (auto& f : failures)
    if (f) std::rethrow_exception(f);
  return ranks;
}

trace::ErrorRecord case_error(const trace::LoaderCase& config, const AccelerateError& e) {
  trace::ErrorRecord r = record(e);
  if (config.api == "accelerator") {
    if (r.where == "prepare_data_loader") r.where = "Accelerator.prepare";
    if (r.where == "torch.manual_seed") r.where = "set_seed";
  }
  return r;
}

std::uint64_t process_seed(const trace::LoaderCase& config, std::int64_t rank) {
  const auto r = static_cast<std::uint64_t>(rank);
  if (config.torch_manual_seed) {
    // set_seed(seed + process_index): a common way to give every rank different augmentations, and
    // what makes an unsynchronised shuffle differ between ranks. The sum is a Python int, so the
    // last ranks can push it past what torch.manual_seed accepts.
    const PythonInt seed = *config.torch_manual_seed + (config.seed_per_rank ? rank : 0);
    // An Accelerator script seeds through Accelerate's set_seed, which seeds numpy first.
    if (config.api == "accelerator") check_set_seed_numpy(seed, "set_seed");
    return torch_seed_or_raise(seed, "torch.manual_seed", config.prepare.torch_version);
  }
  // splitmix64 of the rank: a fixed stand-in for the OS-drawn seed, different on every rank.
  std::uint64_t z = r + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool ranks_shuffle_differently(const trace::LoaderCase& c) {
  if (!c.loader.shuffle || c.prepare.num_processes == 1 || resolve_dispatch_batches(c.loader, c.prepare)) return false;
  const bool seeds_differ = !c.torch_manual_seed || c.seed_per_rank;
  // The release's rules say what seeds the order (core/prepare_data_loader.hpp shuffle_seeding).
  const ShuffleSeeding seeding = shuffle_seeding(c.loader, c.prepare);
  return !seeding.fixed && !seeding.synchronised && seeds_differ;
}

bool reports_error_rank(const trace::LoaderCase& config) {
  // The recorder runs an Accelerator's ranks as real processes (or one) and names the failing one.
  return config.multiprocess || config.api == "accelerator" || needs_communicator(config);
}

bool needs_communicator(const trace::LoaderCase& config) {
  return resolve_dispatch_batches(config.loader, config.prepare) || config.prepare.synchronize_generator;
}

trace::RankRecord simulate_rank(const trace::LoaderCase& config, std::int64_t rank, Communicator* comm,
                                std::shared_ptr<DrawMemo> draws) {
  trace::check_replay_limits(config);
  PreparedLoader prepared = prepare_data_loader(config.loader, options_for_rank(config, rank));
  if (auto* shard = std::get_if<DataLoaderShard>(&prepared); shard && draws) shard->share_draws(std::move(draws));
  trace::RankRecord out;
  out.rank = rank;
  std::visit([&](auto& loader) { out.attributes = attributes_of(loader, class_of(loader)); }, prepared);
  for (std::int64_t e = 0; e < pass_count(config); ++e) {
    trace::PassRecord pass;
    pass.epoch = e;
    pass.loader = role_of(config, e);
    pass.set_epoch = set_epoch_of(config, e);
    try {
      std::visit(
          [&](auto& loader) {
            // The script's own calls before the pass (skip_first_batches, set_epoch) fail where the release lacks
            // them: the pass records the error and yields nothing.
            const auto failed_call = [&](const auto& on, const AccelerateError& error) {
              pass.error = record(error);
              pass.iteration_after = iteration_of(on);
              pass.sampler_epoch_after = on.sampler_epoch();
            };
            if (pass.loader == trace::LoaderRole::Skipped) {
              if (!has_skip_first_batches(config.prepare.release)) {
                failed_call(loader, missing_skip_first_batches(config));
                return;
              }
              auto skipped = loader.skip_first_batches(config.skip_first_batches.value_or(0));
              pass.skipped_loader = attributes_of(skipped, class_of(skipped));
              try {
                if (pass.set_epoch) skipped.set_epoch(*pass.set_epoch);
              } catch (const AccelerateError& error) {
                failed_call(skipped, error);
                return;
              }
              run_pass(skipped, comm, pass);
            } else {
              try {
                if (pass.set_epoch) loader.set_epoch(*pass.set_epoch);
              } catch (const AccelerateError& error) {
                failed_call(loader, error);
                return;
              }
              run_pass(loader, comm, pass);
            }
          },
          prepared);
    } catch (const CollectiveError& e) {
      out.epochs.push_back(std::move(pass));
      out.error = trace::ErrorRecord{"iterate", "Hang", e.what(), std::nullopt};
      return out;
    }
    out.epochs.push_back(std::move(pass));
  }
  return out;
}

trace::Trace simulate(const trace::LoaderCase& config) {
  trace::check_replay_limits(config);
  trace::Trace t;
  const std::int64_t world = config.prepare.num_processes;
  std::vector<trace::RankRecord> ranks(static_cast<std::size_t>(world));
  try {
    // Every rank's torch.manual_seed runs before anything of Accelerate's; the first rank whose seed
    // torch refuses fails the job.
    for (std::int64_t r = 0; r < world; ++r) {
      try {
        (void)process_seed(config, r);
      } catch (const AccelerateError& e) {
        t.error = case_error(config, e);
        if (reports_error_rank(config)) t.error->rank = r;
        t.body = std::vector<trace::RankRecord>{};
        return t;
      }
    }
    // Options the release does not have: Accelerator(...) / prepare_data_loader(...) raise TypeError.
    check_release_keywords(config);
    // Configuration errors are the same on every rank: rank 0 reports them for the case.
    (void)prepare_data_loader(config.loader, options_for_rank(config, 0));
    // Ranks that share their epoch orders draw each once (ranks that shuffle differently share none).
    const auto draws = ranks_shuffle_differently(config) ? nullptr : std::make_shared<DrawMemo>();
    if (needs_communicator(config)) {
      // One rank after another (every collective a loader makes is rooted at rank 0); the threaded
      // group only for a pattern that cannot be scheduled so.
      // A rank's process ends with its passes, closing its connections (rank_exit.hpp).
      SequentialGroup group(world, RankExit::ClosesConnection);
      const bool scheduled = group.run([&](std::int64_t r, Communicator& comm) {
        ranks[static_cast<std::size_t>(r)] = simulate_rank(config, r, &comm, draws);
      });
      if (!scheduled) ranks = simulate_ranks_threaded(config);
    } else {
      for (std::int64_t r = 0; r < world; ++r)
        ranks[static_cast<std::size_t>(r)] = simulate_rank(config, r, nullptr, draws);
    }
  } catch (const AccelerateError& e) {
    t.error = case_error(config, e);
    if (reports_error_rank(config)) t.error->rank = 0;
    ranks.clear();
  } catch (const NotModelled& e) {
    throw trace::ConfigError(std::string("config: ") + e.what() + " is not simulated");
  }
  t.body = std::move(ranks);
  return t;
}

std::vector<LockstepRank> simulate_lockstep(const trace::LoaderCase& config) {
  const std::int64_t world = config.prepare.num_processes;
  std::vector<LockstepRank> out(static_cast<std::size_t>(world));
  run_ranks_in_threads(world, [&](std::int64_t r, Communicator& comm) {
    LockstepRank& me = out[static_cast<std::size_t>(r)];
    me.rank = r;
    PreparedLoader prepared = prepare_data_loader(config.loader, options_for_rank(config, r));
    for (std::int64_t e = 0; e < pass_count(config); ++e) {
      trace::PassRecord pass;
      std::visit(
          [&](auto& loader) {
            if (role_of(config, e) == trace::LoaderRole::Skipped) {
              auto skipped = loader.skip_first_batches(config.skip_first_batches.value_or(0));
              run_pass(skipped, &comm, pass);
            } else {
              run_pass(loader, &comm, pass);
            }
          },
          prepared);
      std::int64_t step = 0;
      try {
        for (const Batch& b : pass.batches) {
          comm.all_gather(b);
          ++step;
        }
      } catch (const CollectiveError& err) {
        me.steps_per_epoch.push_back(step);
        me.hang = err.what();
        me.hang_epoch = e;
        me.hang_step = step;
        return;
      }
      me.steps_per_epoch.push_back(step);
    }
  });
  return out;
}

trace::Trace simulate_case(const trace::CaseConfig& config) {
  return std::visit([](const auto& c) { return simulate(c); }, config);
}

trace::Trace simulate(const trace::BatchSamplerShardCase& config) {
  trace::Trace t;
  std::vector<trace::ShardRankRecord> ranks;
  try {
    for (std::int64_t r = 0; r < config.num_processes; ++r) {
      const ShardOptions options{config.num_processes, r, config.split_batches, config.even_batches};
      check_batch_sampler_shard(std::nullopt, options);
      trace::ShardRankRecord rank;
      rank.rank = r;
      rank.len = replay_batch_sampler_shard_len(static_cast<std::int64_t>(config.batch_sampler.size()),
                                                config.drop_last, options);
      for (std::int64_t e = 0; e < config.epochs; ++e) {
        rank.epochs.push_back({e, replay_batch_sampler_shard(config.batch_sampler, std::nullopt, config.drop_last, options),
                               std::nullopt});
      }
      ranks.push_back(std::move(rank));
    }
  } catch (const AccelerateError& e) {
    t.error = record(e);
    ranks.clear();
  }
  t.body = std::move(ranks);
  return t;
}

trace::Trace simulate(const trace::RandpermCase& config) {
  SamplerOptions options;
  options.kind = SamplerKind::SeedableRandom;
  options.dataset_len = config.n;
  options.initial_seed = config.data_seed;
  trace::RandpermRecord out;
  Sampler sampler(options);
  for (std::int64_t e = 0; e < config.epochs; ++e) {
    const SampleOrder order = sampler.iterate();
    std::vector<std::int64_t> ids(static_cast<std::size_t>(order.size()));
    for (std::int64_t i = 0; i < order.size(); ++i) ids[static_cast<std::size_t>(i)] = order[i];
    out.permutations.push_back(std::move(ids));
  }
  TorchGenerator gen(config.data_seed);
  out.torch_randperm_seed = randperm(config.n, gen);
  trace::Trace t;
  t.body = std::move(out);
  return t;
}

void check_release_keywords(const trace::LoaderCase& config) {
  for (const std::string& keyword : config.keywords) {
    check_keyword(config.prepare.release,
                  config.api == "accelerator" ? KeywordSite::Accelerator : KeywordSite::PrepareDataLoader, keyword);
  }
}

std::optional<DataLoaderShard> prepared_shard(const trace::LoaderCase& job, std::int64_t rank) {
  PrepareOptions o = job.prepare;
  o.process_index = rank;
  o.process_seed = process_seed(job, rank);
  PreparedLoader p = prepare_data_loader(job.loader, o);
  if (auto* shard = std::get_if<DataLoaderShard>(&p)) return std::move(*shard);
  return std::nullopt;
}

}  // namespace accel::sim
