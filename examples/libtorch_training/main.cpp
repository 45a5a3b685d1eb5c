// A LibTorch training loop with Accelerate's data sharding: linear regression on SyntheticRegression, trained
// data-parallel over real ranks (c10d TCPStore + ProcessGroupGloo), one gradient all_reduce per step, the batches
// coming from AccelerateSampler. Each rank writes the sample ids it trained on, so they can be checked against
// `accel-sim trace` for the same flags.
//
//   libtorch_training --ranks 2 --dataset-len 37 --batch-size 4 --shuffle --seed 42 --epochs 3
//                     --skip-batches 2 --out-dir DIR
// Without RANK in the environment it starts --ranks local ranks itself; under torchrun (--no-python) each process
// is one rank. Loader flags mean what they mean to accel-sim; --skip-batches K resumes the first pass after K
// batches (skip_first_batches), as `accel-sim --skip-batches` does.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <accel_sim/core/error.hpp>
#include <accel_sim/libtorch/accelerate_sampler.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "local_launcher.hpp"
#include "synthetic_regression.hpp"

namespace {

struct Flags {
  std::int64_t ranks = 2;
  std::int64_t dataset_len = 37;
  std::int64_t batch_size = 4;
  bool split_batches = false;
  bool even_batches = true;
  bool drop_last = false;
  bool shuffle = false;
  std::optional<std::uint64_t> seed;
  std::int64_t epochs = 1;
  std::int64_t skip_batches = 0;
  std::string out_dir = ".";
  double lr = 0.5;
};

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--ranks") f.ranks = std::stoll(value());
    else if (a == "--dataset-len") f.dataset_len = std::stoll(value());
    else if (a == "--batch-size") f.batch_size = std::stoll(value());
    else if (a == "--split-batches") f.split_batches = true;
    else if (a == "--no-even-batches") f.even_batches = false;
    else if (a == "--drop-last") f.drop_last = true;
    else if (a == "--shuffle") f.shuffle = true;
    else if (a == "--seed") f.seed = std::stoull(value());
    else if (a == "--epochs") f.epochs = std::stoll(value());
    else if (a == "--skip-batches") f.skip_batches = std::stoll(value());
    else if (a == "--out-dir") f.out_dir = value();
    else if (a == "--lr") f.lr = std::stod(value());
    else throw std::invalid_argument("unknown flag " + a);
  }
  // An unseeded shuffle differs in every real run; accel-sim can only stand in seeds for it.
  if (f.shuffle && !f.seed) throw std::invalid_argument("--shuffle needs --seed (the seedable sampler's data_seed)");
  return f;
}

std::int64_t env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) throw std::invalid_argument(std::string(name) + " is not set");
  return std::stoll(v);
}

using Group = c10::intrusive_ptr<c10d::ProcessGroupGloo>;

// The rendezvous ranks/ uses: rank 0 hosts the TCPStore, Gloo builds its mesh through it.
Group connect(std::int64_t rank, std::int64_t world) {
  const char* addr_env = std::getenv("MASTER_ADDR");
  const std::string addr = addr_env ? addr_env : "127.0.0.1";
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<std::uint16_t>(env_int("MASTER_PORT"));
  store_options.isServer = rank == 0;
  store_options.timeout = std::chrono::seconds(60);
  auto store = c10::make_intrusive<c10d::TCPStore>(addr, store_options);
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(addr));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, static_cast<int>(rank), static_cast<int>(world), options);
}

// Every rank's step count for this pass. A training loop with a collective per step needs them equal (Accelerate's
// even_batches exists for this); unequal counts would leave a rank waiting forever, so they are refused up front.
void require_lockstep(Group& group, std::int64_t steps, std::int64_t world, std::int64_t epoch) {
  std::vector<at::Tensor> input{torch::tensor({steps}, torch::kLong)};
  std::vector<std::vector<at::Tensor>> output(1);
  for (std::int64_t r = 0; r < world; ++r) output[0].push_back(torch::empty({1}, torch::kLong));
  group->allgather(output, input)->wait();
  for (std::int64_t r = 0; r < world; ++r) {
    const std::int64_t theirs = output[0][static_cast<std::size_t>(r)].item<std::int64_t>();
    if (theirs != steps) {
      throw std::runtime_error("pass " + std::to_string(epoch) + ": this rank has " + std::to_string(steps) +
                               " batches, rank " + std::to_string(r) + " has " + std::to_string(theirs) +
                               "; a per-step all_reduce would hang (use even_batches)");
    }
  }
}

int train(const Flags& f, std::int64_t rank, std::int64_t world) {
  if (f.ranks != world) throw std::invalid_argument("--ranks must equal WORLD_SIZE");
  Group group = connect(rank, world);

  accel::DataLoaderArgs loader_args;
  loader_args.dataset_len = f.dataset_len;
  loader_args.batch_size = f.batch_size;
  loader_args.drop_last = f.drop_last;
  loader_args.shuffle = f.shuffle;
  accel::PrepareOptions prepare;
  prepare.num_processes = world;
  prepare.process_index = rank;
  prepare.split_batches = f.split_batches;
  prepare.even_batches = f.even_batches;
  prepare.use_seedable_sampler = f.shuffle;
  if (f.seed) prepare.data_seed = *f.seed;
  accel::libtorch::AccelerateSampler sampler(loader_args, prepare);

  // The DataLoader holds a copy of the sampler that shares its state: `sampler` still drives it.
  auto loader = torch::data::make_data_loader(SyntheticRegression(static_cast<std::size_t>(f.dataset_len)), sampler,
                                              torch::data::DataLoaderOptions().batch_size(static_cast<std::size_t>(f.batch_size)));

  torch::manual_seed(0);  // the same initial weights on every rank, as DDP's broadcast would give
  torch::nn::Linear model(2, 1);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(f.lr));

  std::ostringstream consumed;
  std::vector<double> step_losses;
  for (std::int64_t epoch = 0; epoch < f.epochs; ++epoch) {
    if (epoch == 0 && f.skip_batches > 0) sampler.skip_first_batches(f.skip_batches);
    auto it = loader->begin();  // one pass of the prepared loader (AccelerateSampler::reset)
    require_lockstep(group, sampler.batches_in_pass(), world, epoch);
    std::int64_t step = 0;
    for (; it != loader->end(); ++it) {
      std::vector<torch::Tensor> xs, ys;
      consumed << "epoch " << epoch << " batch " << step++ << ":";
      for (const Sample& s : *it) {
        consumed << " " << s.id;
        xs.push_back(s.x);
        ys.push_back(s.y);
      }
      consumed << "\n";
      optimizer.zero_grad();
      torch::Tensor loss = torch::mse_loss(model->forward(torch::stack(xs)), torch::stack(ys));
      loss.backward();
      for (auto& p : model->parameters()) {  // DDP's gradient all_reduce, averaged over ranks
        std::vector<at::Tensor> grads{p.grad()};
        group->allreduce(grads)->wait();
        p.grad().div_(static_cast<double>(world));
      }
      optimizer.step();
      step_losses.push_back(loss.item<double>());
    }
  }

  // Hex floats: the ranks' weights must be bit-identical after averaged gradients, so compare them exactly.
  std::ostringstream weights;
  weights << "weights:";
  for (const auto& p : model->parameters()) {
    for (std::int64_t k = 0; k < p.numel(); ++k) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %a", p.flatten()[k].item<double>());
      weights << buf;
    }
  }
  std::ofstream out(f.out_dir + "/rank" + std::to_string(rank) + ".txt");
  out << consumed.str() << weights.str() << "\n";
  if (!out) throw std::runtime_error("cannot write to " + f.out_dir);
  if (rank == 0 && !step_losses.empty()) {
    std::cout << world << " ranks, " << step_losses.size() << " steps; rank 0 loss: first step " << step_losses.front()
              << ", last step " << step_losses.back() << "\n"
              << weights.str() << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Flags flags = parse(argc, argv);
    if (std::getenv("RANK") == nullptr) return launch_local_ranks(static_cast<int>(flags.ranks), argv);
    return train(flags, env_int("RANK"), env_int("WORLD_SIZE"));
  } catch (const accel::AccelerateError& e) {
    std::cerr << "libtorch_training: Accelerate rejects this configuration: " << e.message() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "libtorch_training" << (std::getenv("RANK") ? std::string(" rank ") + std::getenv("RANK") : "")
              << ": " << e.what() << "\n";
    return 1;
  }
}
