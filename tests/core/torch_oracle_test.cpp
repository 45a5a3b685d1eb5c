// LibTorch is the oracle for torch's shuffle: the core's randperm / randint must equal torch's bit for
// bit for every length and seed tried, and the generator must advance exactly as torch's does.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <cstring>
#include <span>
#include <vector>

#include "core/randperm.hpp"
#include "core/sampler.hpp"
#include "core/torch_rng_state.hpp"

namespace {

std::vector<std::int64_t> torch_randperm(std::int64_t n, at::Generator& gen) {
  const at::Tensor t = at::randperm(n, gen, at::TensorOptions().dtype(at::kLong));
  const auto* p = t.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(p, p + n);
}

TEST(TorchOracle, RandpermMatchesLibTorchForManyLengthsAndSeeds) {
  const std::uint64_t seeds[] = {0, 1, 7, 42, 1234, 2147483647ULL, (1ULL << 32) + 42, 67280421310721ULL};
  int compared = 0;
  for (std::uint64_t seed : seeds) {
    for (std::int64_t n = 0; n <= 600; ++n) {
      at::Generator tg = at::detail::createCPUGenerator(seed);
      accel::TorchGenerator g(seed);
      ASSERT_EQ(accel::randperm(n, g, accel::TorchVersion::v1_13), torch_randperm(n, tg)) << "n=" << n << " seed=" << seed;
      ++compared;
    }
  }
  for (std::int64_t n : {1000, 4096, 10007, 100000, 1000000}) {
    at::Generator tg = at::detail::createCPUGenerator(99);
    accel::TorchGenerator g(99);
    ASSERT_EQ(accel::randperm(n, g), torch_randperm(n, tg)) << "n=" << n;
    ++compared;
  }
  EXPECT_EQ(compared, 8 * 601 + 5);
}

TEST(TorchOracle, CompactOrdersMatchLibTorch) {
  // The 4-byte storage the samplers use, at lengths where the shuffle prefetches.
  for (std::int64_t n : {262145, 3000000}) {
    at::Generator tg = at::detail::createCPUGenerator(2024);
    accel::TorchGenerator g(2024);
    const accel::SampleOrder order = accel::randperm_order(n, g, accel::TorchVersion::v1_13);
    const auto expected = torch_randperm(n, tg);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(order[i], expected[static_cast<std::size_t>(i)]) << "n=" << n << " i=" << i;
  }
}

TEST(TorchOracle, GeneratorAdvancesLikeTorchAcrossConsecutiveCalls) {
  // A RandomSampler with its own generator draws randperm twice per epoch; the second call must see
  // the state the first left behind.
  at::Generator tg = at::detail::createCPUGenerator(5);
  accel::TorchGenerator g(5);
  for (std::int64_t n : {10, 1, 0, 33, 10, 257}) {
    ASSERT_EQ(accel::randperm(n, g), torch_randperm(n, tg)) << "n=" << n;
  }
}

TEST(TorchOracle, RandintMatchesLibTorch) {
  at::Generator tg = at::detail::createCPUGenerator(3);
  accel::TorchGenerator g(3);
  for (std::int64_t high : {1, 2, 10, 1000, 65537}) {
    const at::Tensor t = at::randint(high, {64}, tg, at::TensorOptions().dtype(at::kLong));
    std::vector<std::int64_t> mine(64);
    accel::randint_into(mine, high, g);
    const auto* p = t.data_ptr<std::int64_t>();
    ASSERT_EQ(mine, std::vector<std::int64_t>(p, p + 64)) << "high=" << high;
  }
}

TEST(TorchOracle, SeedableSamplerEpochsAreRandpermOfSeedPlusEpoch) {
  accel::SamplerOptions o;
  o.kind = accel::SamplerKind::SeedableRandom;
  o.dataset_len = 97;
  o.initial_seed = 42;
  accel::Sampler sampler(o);
  for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
    const accel::SampleOrder order = sampler.iterate();
    at::Generator tg = at::detail::createCPUGenerator(42 + epoch);
    const auto expected = torch_randperm(97, tg);
    for (std::int64_t i = 0; i < 97; ++i) ASSERT_EQ(order[i], expected[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(sampler.epoch(), 3);
}

// torch.get_rng_state()'s bytes: what a user saves between set_seed and prepare (torch_rng_state.hpp).
std::vector<std::byte> rng_state_bytes(const at::Generator& gen) {
  const at::Tensor t = gen.get_state();
  std::vector<std::byte> out(static_cast<std::size_t>(t.numel()));
  std::memcpy(out.data(), t.data_ptr<std::uint8_t>(), out.size());
  return out;
}

// Reading the state back must give the draws torch made, and the seed Accelerate then draws for the
// sampler (one int64 random_()) must be torch's next one.
void expect_state_reads_back(at::Generator& tg, std::uint64_t seed, std::uint64_t expected_draws) {
  const auto bytes = rng_state_bytes(tg);
  const accel::GeneratorState state = accel::generator_state_from_torch_rng_state(std::span<const std::byte>(bytes));
  EXPECT_EQ(state.seed, seed);
  EXPECT_EQ(state.draws, expected_draws);
  accel::TorchGenerator mine(seed);
  mine.set_state(state);
  const std::int64_t theirs = at::empty({}, at::TensorOptions().dtype(at::kLong)).random_(tg).item<std::int64_t>();
  EXPECT_EQ(static_cast<std::int64_t>(accel::draw_seed(mine)), theirs)
      << "seed " << seed << " draws " << expected_draws;
}

TEST(TorchOracle, RngStateReadsBackAsTheDrawsTorchMade) {
  int checked = 0;
  for (std::uint64_t seed : {0ULL, 42ULL, (1ULL << 32) + 7, 67280421310721ULL}) {
    for (std::uint64_t words : {0, 1, 2, 623, 624, 625, 1247, 1248, 1249, 100003}) {
      at::Generator tg = at::detail::createCPUGenerator(seed);
      // An int32 random_() takes one 32-bit word per element.
      if (words > 0) at::empty({static_cast<std::int64_t>(words)}, at::TensorOptions().dtype(at::kInt)).random_(tg);
      expect_state_reads_back(tg, seed, words);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 40);
}

TEST(TorchOracle, RngStateAfterBuildingAModelGivesTorchsNextSeed) {
  // What a script does between set_seed and prepare: its layers' initialisation draws from the global
  // generator. The draw count is not modelled; the saved state must still give torch's next draw.
  for (std::uint64_t seed : {42ULL, 7ULL}) {
    torch::manual_seed(seed);
    torch::nn::Linear linear(10, 5);
    torch::nn::Sequential mlp(torch::nn::Linear(32, 64), torch::nn::ReLU(), torch::nn::Linear(64, 10));
    at::Generator global = at::detail::getDefaultCPUGenerator();
    const auto bytes = rng_state_bytes(global);
    const accel::GeneratorState state = accel::generator_state_from_torch_rng_state(std::span<const std::byte>(bytes));
    EXPECT_EQ(state.seed, seed);
    EXPECT_GT(state.draws, 32u * 64u);  // at least one word per weight
    accel::TorchGenerator mine(seed);
    mine.set_state(state);
    const std::int64_t theirs =
        at::empty({}, at::TensorOptions().dtype(at::kLong)).random_(global).item<std::int64_t>();
    EXPECT_EQ(static_cast<std::int64_t>(accel::draw_seed(mine)), theirs);
  }
}

}  // namespace
