// Samplers: what stays and what changes between epochs, as torch and Accelerate define it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/sampler.hpp"

namespace accel {
namespace {

std::vector<std::int64_t> ids(const SampleOrder& o) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < o.size(); ++i) v.push_back(o[i]);
  return v;
}

TEST(Sampler, SeedableEpochsDifferAndReplayWithSetEpoch) {
  SamplerOptions o{SamplerKind::SeedableRandom, 50, false, std::nullopt, 7, std::nullopt};
  Sampler s(o);
  const auto e0 = ids(s.iterate());
  const auto e1 = ids(s.iterate());
  EXPECT_NE(e0, e1);
  s.set_epoch(0);
  EXPECT_EQ(ids(s.iterate()), e0);
  auto sorted = e0;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
}

TEST(Sampler, RandomSamplerWithGeneratorDrawsTwoPermutationsPerEpoch) {
  // Epoch 1 starts after two randperm(n) calls' worth of draws, not one.
  SamplerOptions o{SamplerKind::Random, 20, false, std::nullopt, kTorchDefaultSeed, 11};
  Sampler s(o);
  s.iterate();
  const auto second_epoch = ids(s.iterate());
  TorchGenerator g(11);
  randperm(20, g);
  randperm(20, g);
  EXPECT_EQ(second_epoch, randperm(20, g));
}

TEST(Sampler, NumSamplesAndReplacement) {
  SamplerOptions o{SamplerKind::Random, 10, false, 25, kTorchDefaultSeed, 3};
  Sampler s(o);
  const auto v = ids(s.iterate());
  ASSERT_EQ(v.size(), 25u);
  EXPECT_EQ(std::set<std::int64_t>(v.begin(), v.begin() + 10).size(), 10u);
  SamplerOptions r{SamplerKind::Random, 4, true, 100, kTorchDefaultSeed, 3};
  Sampler with_replacement(r);
  const auto w = ids(with_replacement.iterate());
  ASSERT_EQ(w.size(), 100u);
  EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](std::int64_t id) { return id >= 0 && id < 4; }));
}

TEST(Sampler, EmptyRandomSamplerIsRejectedLikeTorch) {
  SamplerOptions random;
  random.kind = SamplerKind::Random;
  EXPECT_THROW((Sampler(random)), AccelerateError);
  EXPECT_NO_THROW((Sampler(SamplerOptions{})));
}

}  // namespace
}  // namespace accel
