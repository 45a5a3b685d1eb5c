// Reading back the draws a script made before prepare from the seed prepare gave the sampler's generator. The
// expected seeds were printed by torch 1.13 itself (build/reference-venv):
//   torch.manual_seed(42); int(torch.empty((), dtype=torch.int64).random_())                 -> 6909045637428952499
//   torch.manual_seed(42); torch.nn.Linear(32, 64); int(torch.empty((), dtype=torch.int64).random_())
//                                                                                             -> 4928754098169890800
// (nn.Linear(32, 64) initialises 2048 weights and 64 biases, one 32-bit word each.)
#include "core/draws_before_prepare.hpp"

#include <gtest/gtest.h>

#include <random>

namespace accel {
namespace {

TEST(DrawsBeforePrepare, NothingDrawnIsZero) {
  EXPECT_EQ(draws_before_prepare(42, 6909045637428952499ULL), std::optional<std::uint64_t>(0));
}

TEST(DrawsBeforePrepare, ALinearLayerIsItsParameterCount) {
  EXPECT_EQ(draws_before_prepare(42, 4928754098169890800ULL), std::optional<std::uint64_t>(32 * 64 + 64));
}

TEST(DrawsBeforePrepare, TheSearchStopsAtItsBound) {
  EXPECT_EQ(draws_before_prepare(42, 4928754098169890800ULL, 2111), std::nullopt);
  EXPECT_EQ(draws_before_prepare(42, 4928754098169890800ULL, 2112), std::optional<std::uint64_t>(2112));
}

TEST(DrawsBeforePrepare, OnlyTheLow32BitsOfTheSeedSeedTheEngine) {
  // torch seeds its MT19937 with the seed's low 32 bits (as std::mt19937 takes them).
  EXPECT_EQ(draws_before_prepare(42 + (std::uint64_t{7} << 32), 6909045637428952499ULL),
            std::optional<std::uint64_t>(0));
}

TEST(DrawsBeforePrepare, CountsAcrossStateRegenerations) {
  // Past several 624-word regenerations, against std::mt19937 (the same stream) read independently.
  std::mt19937 mt(1234);
  mt.discard(5000);
  const std::uint64_t hi = mt(), lo = mt();
  const std::uint64_t seed = ((hi << 32) | lo) % (std::uint64_t{1} << 63);
  EXPECT_EQ(draws_before_prepare(1234, seed, 10000), std::optional<std::uint64_t>(5000));
}

}  // namespace
}  // namespace accel
