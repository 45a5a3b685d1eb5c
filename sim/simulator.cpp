#include "simulator.hpp"

#include <string>

#include "core/data_loader_shard.hpp"
#include "core/error.hpp"
#include "core/randperm.hpp"
#include "core/sampler.hpp"

namespace accel::sim {
namespace {

trace::ErrorRecord record(const AccelerateError& e) {
  return {e.where(), std::string(python_name(e.type())), e.message()};
}

template <typename T>
void read_attribute(const Attribute<T>& attr, const char* name, std::optional<T>& out,
                    std::map<std::string, trace::ErrorRecord>& errors) {
  if (attr.ok()) {
    out = attr.value();
  } else {
    errors[name] = {"", std::string(python_name(attr.failure().type)), attr.failure().message};
  }
}

trace::LoaderAttributes attributes_of(const DataLoaderShard& loader) {
  trace::LoaderAttributes a;
  a.loader_class = "DataLoaderShard";
  read_attribute(loader.len(), "len", a.len, a.attr_errors);
  read_attribute(loader.total_batch_size(), "total_batch_size", a.total_batch_size, a.attr_errors);
  read_attribute(loader.total_dataset_length(), "total_dataset_length", a.total_dataset_length, a.attr_errors);
  return a;
}

PrepareOptions options_for_rank(const trace::LoaderCase& config, std::int64_t rank) {
  PrepareOptions options = config.prepare;
  options.process_index = rank;
  options.process_seed = config.torch_manual_seed.value_or(kTorchDefaultSeed);
  return options;
}

trace::PassRecord run_pass(DataLoaderShard& loader, std::int64_t epoch, trace::LoaderRole role,
                           std::optional<std::int64_t> set_epoch) {
  trace::PassRecord pass;
  pass.epoch = epoch;
  pass.loader = role;
  pass.set_epoch = set_epoch;
  if (set_epoch) loader.set_epoch(*set_epoch);
  const LoaderPass view = loader.iterate();
  const std::int64_t count = view.num_batches();
  pass.batches.reserve(static_cast<std::size_t>(count));
  for (std::int64_t j = 0; j < count; ++j) {
    pass.batches.push_back(view.batch(j));
    pass.end_of_dataloader.push_back(view.end_of_dataloader(j));
    pass.remainder.push_back(view.remainder);
  }
  pass.iteration_after = view.iteration_after;
  pass.sampler_epoch_after = loader.sampler_epoch();
  return pass;
}

}  // namespace

trace::RankRecord simulate_rank(const trace::LoaderCase& config, std::int64_t rank) {
  DataLoaderShard prepared = prepare_data_loader(config.loader, options_for_rank(config, rank));
  trace::RankRecord out;
  out.rank = rank;
  out.attributes = attributes_of(prepared);
  for (std::int64_t e = 0; e < config.epochs; ++e) {
    const auto role = e < static_cast<std::int64_t>(config.schedule.size()) ? config.schedule[e]
                                                                             : trace::LoaderRole::Prepared;
    std::optional<std::int64_t> set_epoch;
    if (config.set_epoch && e < static_cast<std::int64_t>(config.set_epoch->size())) set_epoch = (*config.set_epoch)[e];
    if (role == trace::LoaderRole::Skipped) {
      DataLoaderShard skipped = prepared.skip_first_batches(config.skip_first_batches.value_or(0));
      auto attrs = attributes_of(skipped);
      out.epochs.push_back(run_pass(skipped, e, role, set_epoch));
      out.epochs.back().skipped_loader = std::move(attrs);
    } else {
      out.epochs.push_back(run_pass(prepared, e, role, set_epoch));
    }
  }
  return out;
}

trace::Trace simulate(const trace::LoaderCase& config) {
  trace::Trace t;
  std::vector<trace::RankRecord> ranks;
  try {
    for (std::int64_t r = 0; r < config.prepare.num_processes; ++r) ranks.push_back(simulate_rank(config, r));
  } catch (const AccelerateError& e) {
    t.error = record(e);
    ranks.clear();
  }
  t.body = std::move(ranks);
  return t;
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
  options.seed = config.data_seed;
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

}  // namespace accel::sim
