// The consumer example: rank 0's first batches of a data-parallel job, computed with the installed accel-sim
// core (BatchSamplerShard over the epoch order of the sampler Accelerate would use), and cross-checked with the
// installed simulator.
//
//   consumer [--ranks R] [--dataset-len N] [--batch-size B] [--split-batches] [--no-even-batches] [--drop-last]
//            [--shuffle --seed S] [--batches K]
// The flags mean what they mean to `accel-sim trace`; prints "epoch 0 batch j: ids..." for j < K.
#include <accel_sim/core/batch_sampler_shard.hpp>
#include <accel_sim/core/error.hpp>
#include <accel_sim/core/sampler.hpp>
#include <accel_sim/sim/simulator.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

struct Config {
  std::int64_t ranks = 2;
  std::int64_t dataset_len = 10;
  std::int64_t batch_size = 3;
  bool split_batches = false;
  bool even_batches = true;
  bool drop_last = false;
  bool shuffle = false;
  std::uint64_t seed = 0;
  std::int64_t batches = 4;
};

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto number = [&]() -> std::int64_t {
      if (i + 1 >= argc) {
        std::cerr << "consumer: " << a << " needs a value\n";
        std::exit(2);
      }
      return std::stoll(argv[++i]);
    };
    if (a == "--ranks") c.ranks = number();
    else if (a == "--dataset-len") c.dataset_len = number();
    else if (a == "--batch-size") c.batch_size = number();
    else if (a == "--split-batches") c.split_batches = true;
    else if (a == "--no-even-batches") c.even_batches = false;
    else if (a == "--drop-last") c.drop_last = true;
    else if (a == "--shuffle") c.shuffle = true;
    else if (a == "--seed") c.seed = static_cast<std::uint64_t>(number());
    else if (a == "--batches") c.batches = number();
    else {
      std::cerr << "consumer: unknown flag " << a << "\n";
      std::exit(2);
    }
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = parse(argc, argv);
  try {
    // The sampler prepare_data_loader keeps: sequential, or SeedableRandomSampler(data_seed) when shuffling.
    accel::SamplerOptions sampler_options;
    sampler_options.dataset_len = c.dataset_len;
    if (c.shuffle) {
      sampler_options.kind = accel::SamplerKind::SeedableRandom;
      sampler_options.initial_seed = c.seed;
    }
    accel::Sampler sampler(sampler_options);
    const accel::SampleOrder order = sampler.iterate();  // epoch 0

    // What prepare_data_loader wraps the user's BatchSampler in, seen from rank 0.
    const accel::BatchSamplerShard shard(accel::BatchSampler{c.batch_size, c.drop_last}, sampler.size(),
                                         accel::ShardOptions{c.ranks, 0, c.split_batches, c.even_batches});

    // The simulator's rank 0 for the same job: the two layers of the package must agree.
    accel::trace::LoaderCase job;
    job.loader.dataset_len = c.dataset_len;
    job.loader.batch_size = c.batch_size;
    job.loader.drop_last = c.drop_last;
    job.loader.shuffle = c.shuffle;
    job.prepare.num_processes = c.ranks;
    job.prepare.split_batches = c.split_batches;
    job.prepare.even_batches = c.even_batches;
    job.prepare.use_seedable_sampler = c.shuffle;
    if (c.shuffle) job.prepare.data_seed = c.seed;
    job.schedule = {accel::trace::LoaderRole::Prepared};
    const accel::trace::RankRecord simulated = accel::sim::simulate_rank(job, 0);

    std::cout << "# rank 0 of " << c.ranks << ": len " << shard.size() << ", " << shard.num_batches()
              << " batches per epoch\n";
    const auto& sim_batches = simulated.epochs.at(0).batches;
    for (std::int64_t j = 0; j < shard.num_batches() && j < c.batches; ++j) {
      const accel::Batch ids = shard.batch_ids(j, order);
      if (j >= static_cast<std::int64_t>(sim_batches.size()) || sim_batches[static_cast<std::size_t>(j)] != ids) {
        std::cerr << "consumer: BatchSamplerShard and the simulator disagree at batch " << j << "\n";
        return 1;
      }
      std::cout << "epoch 0 batch " << j << ":";
      for (const accel::SampleId id : ids) std::cout << " " << id;
      std::cout << "\n";
    }
  } catch (const accel::AccelerateError& e) {
    std::cerr << "consumer: Accelerate rejects this configuration: " << e.message() << "\n";
    return 2;
  }
  return 0;
}
