// LibTorch is the oracle for torch's shuffle: the core's randperm / randint must equal torch's bit for
// bit for every length and seed tried, and the generator must advance exactly as torch's does.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/randperm.hpp"
#include "core/sampler.hpp"

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

}  // namespace
