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

// A generator's full state as a small value: its seed and how many 32-bit draws it has made. This is
// what Accelerate's rng synchronisation broadcasts from rank 0 (torch sends the MT state itself; the
// pair determines it).
struct GeneratorState {
  std::uint64_t seed = kTorchDefaultSeed;
  std::uint64_t draws = 0;
  friend bool operator==(const GeneratorState&, const GeneratorState&) = default;
};

class TorchGenerator {
 public:
  explicit TorchGenerator(std::uint64_t seed = kTorchDefaultSeed) { manual_seed(seed); }

  void manual_seed(std::uint64_t seed) {
    seed_ = seed;
    draws_ = 0;
    engine_.seed(static_cast<std::uint32_t>(seed));
  }
  std::uint64_t initial_seed() const noexcept { return seed_; }

  GeneratorState state() const noexcept { return {seed_, draws_}; }
  void set_state(const GeneratorState& s) {
    manual_seed(s.seed);
    engine_.discard(s.draws);
    draws_ = s.draws;
  }

  std::uint32_t random() {
    ++draws_;
    return static_cast<std::uint32_t>(engine_());
  }
  std::uint64_t random64() {
    const std::uint64_t hi = random();
    return (hi << 32) | random();
  }

 private:
  std::uint64_t seed_ = kTorchDefaultSeed;
  std::uint64_t draws_ = 0;
  std::mt19937 engine_;
};

}  // namespace accel
