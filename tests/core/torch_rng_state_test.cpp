// Reading torch.get_rng_state()'s bytes: what a state file must hold, and the draw count it gives. The
// states here are built from the core's own MT19937 in torch's layout; the LibTorch oracle test reads
// states torch itself wrote.
#include "core/torch_rng_state.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace accel {
namespace {

// torch's layout after `draws` draws from manual_seed(seed), computed from std::mt19937-equivalent steps
// written out independently of the reader: regenerations happen on the 1st, 625th, 1249th ... draw.
std::vector<std::byte> state_after(std::uint64_t seed, std::uint64_t draws) {
  Mt19937 engine(static_cast<std::uint32_t>(seed));
  std::int32_t left = 1;
  std::uint64_t next = 0;
  for (std::uint64_t d = 0; d < draws; ++d) {
    if (--left == 0) {
      engine.next_block();
      left = Mt19937::kStateSize;
      next = 0;
    }
    ++next;
  }
  std::vector<std::byte> out(kTorchRngStateBytes);
  const std::int32_t seeded = 1;
  std::memcpy(out.data(), &seed, 8);
  std::memcpy(out.data() + 8, &left, 4);
  std::memcpy(out.data() + 12, &seeded, 4);
  std::memcpy(out.data() + 16, &next, 8);
  for (int i = 0; i < Mt19937::kStateSize; ++i) {
    const std::uint64_t w = engine.words()[i];
    std::memcpy(out.data() + 24 + 8 * i, &w, 8);
  }
  return out;
}

std::string refusal(const std::vector<std::byte>& bytes, std::uint64_t max_draws = kMaxRngStateDraws) {
  try {
    (void)generator_state_from_torch_rng_state(bytes, max_draws);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TorchRngState, GivesTheSeedAndTheDrawsMade) {
  for (std::uint64_t seed : {0ULL, 42ULL, 0xffffffffULL + 5}) {
    for (std::uint64_t draws : {0, 1, 2, 623, 624, 625, 1248, 1249, 9999}) {
      const GeneratorState s = generator_state_from_torch_rng_state(state_after(seed, draws));
      EXPECT_EQ(s.seed, seed);
      EXPECT_EQ(s.draws, draws) << "seed " << seed;
    }
  }
}

TEST(TorchRngState, RefusesWhatTorchDidNotWrite) {
  EXPECT_NE(refusal(std::vector<std::byte>(100)).find("must be the 5056 bytes"), std::string::npos);
  auto unseeded = state_after(42, 10);
  std::memset(unseeded.data() + 12, 0, 4);
  EXPECT_NE(refusal(unseeded).find("not the state of a seeded torch generator"), std::string::npos);
  auto moved = state_after(42, 10);
  const std::int32_t bad_left = 3;
  std::memcpy(moved.data() + 8, &bad_left, 4);
  EXPECT_NE(refusal(moved).find("inconsistent position"), std::string::npos);
  auto wide = state_after(42, 10);
  wide[24 + 8 * 5 + 4] = std::byte{1};
  EXPECT_NE(refusal(wide).find("wider than 32 bits"), std::string::npos);
  // Another seed's state under this seed's header: no number of draws reaches it.
  auto foreign = state_after(7, 700);
  const std::uint64_t other_seed = 8;
  std::memcpy(foreign.data(), &other_seed, 8);
  EXPECT_NE(refusal(foreign, 100000).find("is not reached from manual_seed(8) within 100000 draws"), std::string::npos);
  // A state further than the bound is refused, not searched for ever.
  EXPECT_NE(refusal(state_after(42, 5000), 2000).find("within 2000 draws"), std::string::npos);
}

}  // namespace
}  // namespace accel
