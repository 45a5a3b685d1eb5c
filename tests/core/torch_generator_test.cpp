// The block-drawing MT19937 and the blocked, prefetching randperm loops against plain references:
// std::mt19937 for the stream, and straight transcriptions of torch's two randperm loops.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "core/randperm.hpp"
#include "core/torch_generator.hpp"

namespace accel {
namespace {

TEST(Mt19937, BlockDrawsAndDiscardsFollowStdMt19937) {
  for (std::uint32_t seed : {0u, 1u, 42u, 5489u, 4294967295u}) {
    std::mt19937 reference(seed);
    Mt19937 mine(seed);
    std::vector<std::uint32_t> block(2000);
    // Mixed single draws, blocks and discards, crossing the 624-word regeneration boundary often.
    for (std::size_t round = 0; round < 40; ++round) {
      for (int k = 0; k < 7; ++k) ASSERT_EQ(mine(), reference()) << "seed " << seed;
      const std::size_t count = (round * 131) % block.size();
      mine.fill(block.data(), count);
      for (std::size_t k = 0; k < count; ++k) ASSERT_EQ(block[k], reference()) << "seed " << seed << " round " << round;
      const std::uint64_t skip = (round * 977) % 3000;
      mine.discard(skip);
      reference.discard(skip);
    }
    ASSERT_EQ(mine(), reference());
  }
}

TEST(TorchGenerator, LazyDiscardCountsDrawsAndCatchesUpWhenRead) {
  TorchGenerator a(7), b(7);
  a.discard(1000);
  for (int k = 0; k < 1000; ++k) b.random();
  EXPECT_EQ(a.state(), b.state());
  EXPECT_EQ(a.random64(), b.random64());
  std::uint32_t x[5], y[5];
  a.discard(3);
  b.random(), b.random(), b.random();
  a.fill(x, 5);
  b.fill(y, 5);
  EXPECT_EQ(std::vector<std::uint32_t>(x, x + 5), std::vector<std::uint32_t>(y, y + 5));
  TorchGenerator c(0);
  c.set_state(a.state());
  EXPECT_EQ(c.random(), a.random());
}

// torch's loops as written in aten/src/ATen/native/TensorFactories.cpp, on int64 ids.
std::vector<std::int64_t> forward_reference(std::int64_t n, TorchGenerator& gen) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<std::int64_t>(gen.random() % static_cast<std::uint64_t>(n - i));
    std::swap(r[static_cast<std::size_t>(i)], r[static_cast<std::size_t>(i + z)]);
  }
  return r;
}

std::vector<std::int64_t> inside_out_reference(std::int64_t n, TorchGenerator& gen) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto z = static_cast<std::int64_t>(gen.random64() % static_cast<std::uint64_t>(i + 1));
    r[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(z)];
    r[static_cast<std::size_t>(z)] = i;
  }
  return r;
}

template <typename Index>
std::vector<std::int64_t> blocked(std::int64_t n, TorchGenerator& gen, RandpermLoop loop) {
  std::vector<Index> r(static_cast<std::size_t>(n));
  randperm_loop_into(std::span<Index>(r), gen, loop);
  return std::vector<std::int64_t>(r.begin(), r.end());
}

TEST(Randperm, BlockedLoopsEqualTorchsLoopsAcrossBlockAndPrefetchSizes) {
  // Lengths around the 1024-swap block, and above 1 MiB of ids, where the loops prefetch.
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 0; n <= 70; ++n) lengths.push_back(n);
  for (std::int64_t n : {1023, 1024, 1025, 2047, 2049, 5000, 300001, 600000}) lengths.push_back(n);
  for (const auto loop : {RandpermLoop::Forward, RandpermLoop::InsideOut}) {
    for (std::int64_t n : lengths) {
      for (std::uint64_t seed : {3ULL, 99ULL}) {
        TorchGenerator g_ref(seed), g32(seed), g64(seed);
        const auto expected = loop == RandpermLoop::Forward ? forward_reference(n, g_ref) : inside_out_reference(n, g_ref);
        ASSERT_EQ(blocked<std::uint32_t>(n, g32, loop), expected) << "n=" << n << " inside_out=" << (loop == RandpermLoop::InsideOut);
        ASSERT_EQ(blocked<std::int64_t>(n, g64, loop), expected) << "n=" << n;
        EXPECT_EQ(g32.state(), g_ref.state());
        EXPECT_EQ(g64.state(), g_ref.state());
      }
    }
  }
}

TEST(Randperm, CompactOrderAndSkippedDrawsMatchTheFullPermutation) {
  for (std::int64_t n : {0, 1, 2, 1000, 300000}) {
    TorchGenerator a(5), b(5), c(5);
    const auto full = randperm(n, a);
    const SampleOrder order = randperm_order(n, b);
    ASSERT_EQ(order.size(), n);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(order[i], full[static_cast<std::size_t>(i)]);
    skip_randperm_draws(n, c);
    EXPECT_EQ(c.state(), a.state());
    EXPECT_EQ(c.random(), a.random());
  }
  // PyTorch 2.6's inside-out loop draws two words per id.
  EXPECT_EQ(randperm_draws(kRandpermInsideOutThreshold, TorchVersion::v2_6), 2ULL * kRandpermInsideOutThreshold);
  EXPECT_EQ(randperm_draws(kRandpermInsideOutThreshold, TorchVersion::v1_13), kRandpermInsideOutThreshold - 1ULL);
}

}  // namespace
}  // namespace accel
