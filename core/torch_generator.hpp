// torch's CPU random generator, bit for bit.
//
// torch.Generator on CPU is a standard MT19937 seeded with the low 32 bits of manual_seed's argument;
// random() is one 32-bit draw and random64() joins two. Keeping it a plain value (no global default
// generator) lets the simulator hold one per rank.
#pragma once

#include <cstdint>
#include <random>

namespace accel {

// torch's default_rng_seed_val: what torch.initial_seed() returns when nobody called manual_seed.
inline constexpr std::uint64_t kTorchDefaultSeed = 67280421310721ULL;

class TorchGenerator {
 public:
  explicit TorchGenerator(std::uint64_t seed = kTorchDefaultSeed) { manual_seed(seed); }

  void manual_seed(std::uint64_t seed) {
    seed_ = seed;
    engine_.seed(static_cast<std::uint32_t>(seed));
  }
  std::uint64_t initial_seed() const noexcept { return seed_; }

  std::uint32_t random() { return static_cast<std::uint32_t>(engine_()); }
  std::uint64_t random64() {
    const std::uint64_t hi = random();
    return (hi << 32) | random();
  }

 private:
  std::uint64_t seed_ = kTorchDefaultSeed;
  std::mt19937 engine_;
};

}  // namespace accel
