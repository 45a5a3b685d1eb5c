// torch's CPU random generator, bit for bit.
//
// torch.Generator on CPU is a standard MT19937 seeded with the low 32 bits of manual_seed's argument;
// random() is one 32-bit draw and random64() joins two. Keeping it a plain value (no global default
// generator) lets the simulator hold one per rank.
//
// The engine is our own MT19937 rather than std::mt19937 so that hot loops can take draws in blocks
// (fill(): one state regeneration per 624 draws, tempering in a loop the compiler vectorises) and so
// that seeding and discarded draws are lazy: a RandomSampler's second randperm per epoch is only drawn
// when something reads the generator afterwards. The stream is std::mt19937's, word for word (the
// LibTorch oracle test checks it against torch itself).
#pragma once

#include <cstddef>
#include <cstdint>

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

// MT19937 (Matsumoto & Nishimura), the same sequence as std::mt19937 for the same 32-bit seed.
class Mt19937 {
 public:
  static constexpr int kStateSize = 624;

  Mt19937() noexcept = default;  // unseeded (zero state) until seed(); TorchGenerator seeds on first use
  explicit Mt19937(std::uint32_t seed) noexcept { this->seed(seed); }

  void seed(std::uint32_t s) noexcept {
    state_[0] = s;
    for (std::uint32_t i = 1; i < kStateSize; ++i) {
      state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
    }
    index_ = kStateSize;  // the first draw regenerates, as std::mt19937 does
  }

  std::uint32_t operator()() noexcept {
    if (index_ >= kStateSize) regenerate();
    return temper(state_[index_++]);
  }

  // The next `count` draws, in order, into `out`.
  void fill(std::uint32_t* out, std::size_t count) noexcept;
  // Advances by `count` draws without tempering them: one regeneration per 624.
  void discard(std::uint64_t count) noexcept;

  // The untempered state words, as torch.get_rng_state() stores them, and a regeneration made now:
  // what reading a saved state back into a draw count needs (torch_rng_state.hpp).
  const std::uint32_t* words() const noexcept { return state_; }
  void next_block() noexcept { regenerate(); }

 private:
  static std::uint32_t temper(std::uint32_t y) noexcept {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  void regenerate() noexcept;

  alignas(64) std::uint32_t state_[kStateSize] = {};
  std::uint32_t index_ = kStateSize;
};

class TorchGenerator {
 public:
  explicit TorchGenerator(std::uint64_t seed = kTorchDefaultSeed) { manual_seed(seed); }

  // Seeding MT19937 is a 624-step serial loop; it is deferred to the first draw, since most generators
  // the simulator builds (a sampler per rank per option) are never drawn from.
  void manual_seed(std::uint64_t seed) {
    seed_ = seed;
    draws_ = 0;
    pending_ = 0;
    seeded_ = false;
  }
  std::uint64_t initial_seed() const noexcept { return seed_; }

  GeneratorState state() const noexcept { return {seed_, draws_}; }
  void set_state(const GeneratorState& s) {
    manual_seed(s.seed);
    discard(s.draws);
  }

  std::uint32_t random() {
    if (!ready()) settle();
    ++draws_;
    return engine_();
  }
  std::uint64_t random64() {
    const std::uint64_t hi = random();
    return (hi << 32) | random();
  }
  // random() `count` times, into `out`: the block form hot loops use.
  void fill(std::uint32_t* out, std::size_t count) {
    if (!ready()) settle();
    draws_ += count;
    engine_.fill(out, count);
  }
  // Counts `count` draws as made; the engine catches up only when it is next read.
  void discard(std::uint64_t count) noexcept {
    draws_ += count;
    pending_ += count;
  }

 private:
  bool ready() const noexcept { return seeded_ && pending_ == 0; }
  void settle() noexcept {
    if (!seeded_) {
      engine_.seed(static_cast<std::uint32_t>(seed_));
      seeded_ = true;
    }
    engine_.discard(pending_);
    pending_ = 0;
  }

  std::uint64_t seed_ = kTorchDefaultSeed;
  std::uint64_t draws_ = 0;
  std::uint64_t pending_ = 0;  // draws counted in draws_ that the engine has not made yet
  bool seeded_ = false;        // engine_ holds seed_'s state (plus the draws made since)
  Mt19937 engine_;
};

}  // namespace accel
