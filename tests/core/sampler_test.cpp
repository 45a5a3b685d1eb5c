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
  SamplerOptions o;
  o.kind = SamplerKind::SeedableRandom;
  o.dataset_len = 50;
  o.initial_seed = 7;
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
  SamplerOptions o;
  o.kind = SamplerKind::Random;
  o.dataset_len = 20;
  o.generator_seed = 11;
  Sampler s(o);
  s.iterate();
  const auto second_epoch = ids(s.iterate());
  TorchGenerator g(11);
  randperm(20, g);
  randperm(20, g);
  EXPECT_EQ(second_epoch, randperm(20, g));
}

TEST(Sampler, NumSamplesAndReplacement) {
  SamplerOptions o;
  o.kind = SamplerKind::Random;
  o.dataset_len = 10;
  o.num_samples = 25;
  o.generator_seed = 3;
  Sampler s(o);
  const auto v = ids(s.iterate());
  ASSERT_EQ(v.size(), 25u);
  EXPECT_EQ(std::set<std::int64_t>(v.begin(), v.begin() + 10).size(), 10u);
  SamplerOptions r;
  r.kind = SamplerKind::Random;
  r.dataset_len = 4;
  r.replacement = true;
  r.num_samples = 100;
  r.generator_seed = 3;
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

TEST(Sampler, SeedableSeedPastTorchsRangeRaisesOnTheEpochThatReachesIt) {
  // manual_seed(initial_seed + epoch) with Python ints: 2^64 - 1 is accepted, 2^64 is not.
  SamplerOptions o;
  o.kind = SamplerKind::SeedableRandom;
  o.dataset_len = 5;
  o.initial_seed = kTorchSeedEnd - 1;
  Sampler s(o);
  TorchGenerator last(~std::uint64_t{0});
  EXPECT_EQ(ids(s.iterate()), ids(SampleOrder::of(randperm(5, last))));
  try {
    s.iterate();
    FAIL() << "epoch 1 seeds manual_seed(2^64), which torch refuses";
  } catch (const AccelerateError& e) {
    // Current torch (checked on 2.15) raises ValueError; torch 1.13 raised RuntimeError.
    EXPECT_EQ(e.type(), PyErrorType::ValueError);
    EXPECT_EQ(e.message(), "Overflow when unpacking long long");
    EXPECT_EQ(e.where(), "iterate");
  }
  EXPECT_EQ(s.epoch(), 1) << "the epoch only advances after a full pass";
  o.torch_version = TorchVersion::v1_13;
  Sampler old_torch(o);
  old_torch.set_epoch(1);
  try {
    old_torch.iterate();
    FAIL() << "torch 1.13 refuses 2^64 too";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::RuntimeError);
    EXPECT_EQ(e.message(), "Overflow when unpacking long");
  }
}

TEST(Sampler, NegativeDataSeedPlusEpochIsAPythonSumNotAWrap) {
  // data_seed=-1 at epoch 1 seeds manual_seed(0); its 2^64-1 two's complement would overflow instead.
  SamplerOptions o;
  o.kind = SamplerKind::SeedableRandom;
  o.dataset_len = 6;
  o.initial_seed = -1;
  Sampler s(o);
  TorchGenerator minus_one(~std::uint64_t{0});
  EXPECT_EQ(ids(s.iterate()), ids(SampleOrder::of(randperm(6, minus_one))));
  TorchGenerator zero(0);
  EXPECT_EQ(ids(s.iterate()), ids(SampleOrder::of(randperm(6, zero))));
  o.initial_seed = kTorchSeedMin - 1;
  Sampler below(o);
  EXPECT_THROW(below.iterate(), AccelerateError);
}

TEST(Sampler, LoaderPassDrawsItsBaseSeedBeforeAGeneratorlessSamplerDrawsItsSeed) {
  // One process: the DataLoader iterator's _base_seed and then RandomSampler's seed both come from the
  // global generator, in that order, on every pass.
  SamplerOptions o;
  o.kind = SamplerKind::Random;
  o.dataset_len = 9;
  o.seed = 1234;
  Sampler s(o);
  TorchGenerator global(1234);
  for (int pass = 0; pass < 3; ++pass) {
    (void)draw_seed(global);
    TorchGenerator fresh(draw_seed(global));
    EXPECT_EQ(ids(s.iterate_in_loader()), ids(SampleOrder::of(randperm(9, fresh)))) << "pass " << pass;
  }
}

TEST(Sampler, LoaderSharingTheSamplersGeneratorAdvancesItBeforeEachPass) {
  // DataLoader(generator=g): _base_seed takes two 32-bit draws from g ahead of each pass's randperm.
  SamplerOptions o;
  o.kind = SamplerKind::Random;
  o.dataset_len = 7;
  o.generator_seed = 5;
  o.loader_shares_generator = true;
  Sampler s(o);
  TorchGenerator g(5);
  for (int pass = 0; pass < 2; ++pass) {
    (void)draw_seed(g);
    const auto expected = randperm(7, g);
    skip_randperm_draws(7, g, TorchVersion::v2_6);  // RandomSampler's cut-off second randperm
    EXPECT_EQ(ids(s.iterate_in_loader()), ids(SampleOrder::of(expected))) << "pass " << pass;
  }
  o.loader_shares_generator = false;
  Sampler unshared(o);
  TorchGenerator h(5);
  EXPECT_EQ(ids(unshared.iterate_in_loader()), ids(SampleOrder::of(randperm(7, h))));
}

TEST(Sampler, NumSamplesOverAnEmptyDatasetFailsOnTheFirstDrawAsTorchDoes) {
  SamplerOptions o;
  o.kind = SamplerKind::Random;
  o.dataset_len = 0;
  o.num_samples = 5;
  Sampler without(o);  // num_samples > 0 passes the constructor's check
  try {
    without.iterate();
    FAIL() << "num_samples // 0";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::ZeroDivisionError);
  }
  o.replacement = true;
  Sampler with(o);
  try {
    with.iterate();
    FAIL() << "randint(high=0)";
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.type(), PyErrorType::RuntimeError);
  }
}

}  // namespace
}  // namespace accel
